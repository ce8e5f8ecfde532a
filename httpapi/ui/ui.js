// The sitediag report page. It asks the API (one folder above this page)
// for the diagnoses of a site and fills in each section as its answer
// comes back: first /up, which also checks the key and the target once
// for the whole page, then the network probes (the timing alone first,
// so that it measures the site and not our own load), then the browser
// operations, then Lighthouse. No framework, no build step, nothing from
// elsewhere.
'use strict';

(function () {
  const keyName = 'sitediag.apiKey';
  const apiBase = new URL('../', document.baseURI);

  // el builds an element; attrs go through setAttribute except text,
  // children are nodes or text (never HTML).
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'text') node.textContent = value;
      else node.setAttribute(name, value === true ? '' : value);
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function svg(tag, attrs) {
    const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
    return node;
  }

  function table(caption, head, rows) {
    return el('div', { class: 'scroll' },
      el('table', {},
        caption ? el('caption', { text: caption }) : null,
        el('thead', {}, el('tr', {}, head.map((h) => el('th', { scope: 'col', text: h })))),
        el('tbody', {}, rows.map((cells) => el('tr', {}, cells.map((c, i) =>
          i === 0 ? el('th', { scope: 'row' }, c) : el('td', {}, c)))))));
  }

  function yesNo(ok, good) {
    // good says which answer is the healthy one, for the colour; the
    // word carries the meaning without it. Without good, neither answer
    // is a problem.
    const tone = good === undefined ? (ok ? 'good' : 'neutral') : ok === good ? 'good' : 'bad';
    return el('span', { class: tone }, ok ? 'yes' : 'no');
  }

  function ms(v) {
    return (Math.round(v * 10) / 10).toLocaleString('en') + ' ms';
  }

  // sameOrigin says whether a link is on this page's origin: the page's
  // Content-Security-Policy shows images from its own origin only, so an
  // artifact kept elsewhere (a bucket's pre-signed link) is linked instead.
  function sameOrigin(href) {
    try {
      return new URL(href, document.baseURI).origin === location.origin;
    } catch (_) {
      return false;
    }
  }

  // ---- API key -------------------------------------------------------

  const keyForm = document.getElementById('key-form');
  const keyInput = document.getElementById('key');
  const keySaved = document.getElementById('key-saved');
  const targetInput = document.getElementById('target');

  function showKey() {
    const has = !!sessionStorage.getItem(keyName);
    keyForm.hidden = has;
    keySaved.hidden = !has;
  }

  keyForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = keyInput.value.trim();
    if (!v) return;
    sessionStorage.setItem(keyName, v);
    keyInput.value = '';
    showKey();
    if (targetInput.value.trim() && new URLSearchParams(location.search).has('url')) start();
    else targetInput.focus();
  });
  document.getElementById('forget-key').addEventListener('click', () => {
    sessionStorage.removeItem(keyName);
    showKey();
    keyInput.focus();
  });
  showKey();

  // ---- calling the API ---------------------------------------------

  // ApiError is a failed call, in words.
  class ApiError extends Error {
    constructor(message, status, code, envelope) {
      super(message);
      this.status = status;
      this.code = code;
      this.envelope = envelope;
    }
  }

  async function call(path, body, signal) {
    const key = sessionStorage.getItem(keyName) || '';
    let resp;
    try {
      resp = await fetch(new URL(path.replace(/^\//, ''), apiBase), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(body),
        signal,
      });
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      throw new ApiError('The sitediag server could not be reached (' + err.message + ').', 0, 'NETWORK');
    }
    let envelope = null;
    try {
      envelope = await resp.json();
    } catch (_) {
      // not JSON: reported below
    }
    if (resp.ok && envelope && envelope.apiStatus === 'success') return envelope;
    const code = (envelope && envelope.message) || 'HTTP_' + resp.status;
    const details = (envelope && envelope.details) || resp.statusText || 'no details';
    if (resp.status === 404 && code === 'NOT_FOUND') {
      throw new ApiError('Not available on this server.', 404, code, envelope);
    }
    throw new ApiError(details + ' (' + code + ', HTTP ' + resp.status + ').', resp.status, code, envelope);
  }

  // ---- the report ----------------------------------------------------

  const report = document.getElementById('report');

  // The report's sections, in page order, each [op, heading]: the section
  // sec-op, headed h-op, shows the answers Run.run gives s[op].
  const sectionHeadings = [
    ['screenshot', 'Screenshot'],
    ['up', 'Up and redirect chain'],
    ['tls', 'TLS'],
    ['headers', 'Security headers'],
    ['dns', 'DNS and DNSSEC'],
    ['timing', 'Timing'],
    ['protocols', 'HTTP versions'],
    ['ports', 'Open ports'],
    ['links', 'Broken links'],
    ['meta', 'Metadata'],
    ['mixed', 'Mixed content'],
    ['lighthouse', 'Lighthouse'],
  ];
  for (const [op, heading] of sectionHeadings) {
    report.append(el('section', { id: 'sec-' + op, 'data-op': op, 'aria-labelledby': 'h-' + op },
      el('h2', { id: 'h-' + op }, heading)));
  }

  const overall = document.getElementById('overall');
  const pageError = document.getElementById('page-error');
  const download = document.getElementById('download');

  // Run is one report: its target, its sections, every envelope it got
  // (for the download) and whether it was stopped for the whole page.
  class Run {
    constructor(input) {
      this.input = input;
      this.url = normalise(input);
      this.target = new URL(this.url);
      const host = this.target.hostname;
      this.isIP = /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith('[');
      this.abort = new AbortController();
      this.calls = [];
      this.certTrusted = null; // unknown until /tlsscan says
      this.stopped = '';
      this.sections = {};
      this.done = 0;
      for (const node of report.querySelectorAll('section[data-op]')) {
        this.sections[node.dataset.op] = new Section(this, node);
      }
      this.count = Object.keys(this.sections).length;
      this.summary = new Summary(document.getElementById('summary'));
    }

    // stop ends the report for the whole page, with one message saying
    // why; the sections not run yet say they were not run.
    stop(words, hint) {
      if (this.stopped) return;
      this.stopped = words;
      pageError.replaceChildren(el('strong', {}, words), hint ? el('span', {}, ' ', hint) : null);
      pageError.hidden = false;
      this.abort.abort();
      for (const s of Object.values(this.sections)) s.notRun();
      overall.textContent = 'Stopped.';
    }

    // gone says whether this report was stopped or replaced by another:
    // then it no longer touches the page.
    gone() {
      return this.stopped !== '' || this.abort.signal.aborted;
    }

    sectionDone() {
      this.done++;
      if (this.gone()) return;
      overall.textContent = this.done < this.count ? this.done + ' of ' + this.count + ' sections done…' : 'All ' + this.count + ' sections done.';
      if (this.done === this.count) this.finish();
    }

    finish() {
      report.setAttribute('aria-busy', 'false');
      download.hidden = false;
    }

    // gate asks /up first: a refused key or target is said once for the
    // page instead of once per section.
    async gate() {
      try {
        return await call('/up', { url: this.url, followRedirect: true }, this.abort.signal);
      } catch (err) {
        if (err.name === 'AbortError') return null;
        if (err.status === 401) {
          sessionStorage.removeItem(keyName);
          showKey();
          this.stop('The API key was refused.', 'Enter a valid key above and run again; no diagnosis was run.');
          return null;
        }
        if (err.code === 'TARGET_NOT_ALLOWED') {
          this.stop('The server refuses to diagnose ' + this.target.host + '.',
            'Its addresses are in a range the SSRF policy blocks (private, loopback, link-local, metadata…). ' +
            'The server\'s operator can exempt that network with SITEDIAG_ALLOW_NETWORKS (flag -allow-networks; ' +
            'Config.AllowNetworks in the library), a comma list of CIDRs such as 10.1.0.0/16.');
          return null;
        }
        if (err.code === 'NETWORK') {
          this.stop(err.message);
          return null;
        }
        return err; // the target's own failure: the Up section shows it
      }
    }

    async run() {
      const up = await this.gate();
      if (this.gone()) return;
      const s = this.sections;
      const url = this.url;
      const follow = { url, followRedirect: true };
      await s.up.run([[() => (up instanceof Error ? Promise.reject(up) : up), '/up', renderUp], ['/redirectcheck', { url }, renderRedirects]]);
      // The timing first and alone, so that it measures the site.
      await s.timing.run([['/loadtime', follow, renderTiming]]);
      // Then the other network probes at once.
      const ranges = document.getElementById('ports').value.trim();
      await Promise.all([
        // The headers' grade needs to know whether the certificate is trusted.
        s.tls.run(this.tlsCalls()).then(() => s.headers.run([['/httpheader', follow, renderHeaders]])),
        this.isIP ? s.dns.skip('Skipped: DNS records and DNSSEC belong to names, and ' + this.target.hostname + ' is an address.')
          : s.dns.run([['/dnsrecord', { url }, renderRecords], ['/dnssec', { url }, renderDNSSEC]]),
        s.protocols.run([['/httpprotocol', follow, renderProtocols]]),
        s.ports.run([['/openport', ranges ? { url, portRanges: ranges } : { url }, renderPorts]]),
        s.links.run([['/brokenlink', follow, renderLinks]]),
        s.meta.run([['/metascraping', { url, renderJS: false }, renderMeta]]),
      ]);
      // Then the browser, then Lighthouse, each on a quiet machine.
      await Promise.all([
        s.screenshot.run([['/screenshot', { url }, renderScreenshot]]),
        s.mixed.run([['/mixedcontent', follow, renderMixed]]),
      ]);
      await s.lighthouse.run([['/lighthouse', follow, renderLighthouse]]);
    }

    // tlsCalls scans the target's port when it speaks TLS (an https URL);
    // for a plain-HTTP target it says so, and scans 443 when the host has
    // it open.
    tlsCalls() {
      const t = this.target;
      if (t.protocol === 'https:') return [['/tlsscan', { url: this.url }, renderTLS]];
      const port = t.port || '80';
      const https = 'https://' + t.host.replace(/:\d+$/, '') + '/';
      const run = this;
      return [['/openport', { url: this.url, portRanges: '443' }, (env) => {
        const open = (env.data || []).includes(443);
        const words = el('p', { class: 'verdict neutral' }, 'No TLS on port ' + port + ': the target is plain HTTP. ',
          open ? 'Port 443 is open, so it is scanned below.' : 'Port 443 is closed: the host serves no HTTPS.');
        if (open) run.sections.tls.run([['/tlsscan', { url: https }, renderTLS]]);
        else run.summary.set('tls', 'no TLS (plain HTTP on port ' + port + ')', 'bad');
        return words;
      }]];
    }

    // json is the whole report: the target, when, and every call made
    // with its answer.
    json() {
      return JSON.stringify({ target: this.url, generated: new Date().toISOString(), calls: this.calls }, null, 2);
    }
  }

  // Section is one part of the report: a progress line, the result, the
  // errors in words and the raw JSON of each call it made.
  class Section {
    constructor(run, node) {
      this.r = run;
      this.node = node;
      this.heading = node.querySelector('h2');
      node.replaceChildren(this.heading);
      this.state = el('p', { class: 'state', role: 'status', 'aria-live': 'polite' });
      this.progress = el('progress', { 'aria-label': this.heading.textContent + ' progress' });
      this.body = el('div', { class: 'body' });
      this.raw = el('div', { class: 'raw' });
      node.append(el('div', { class: 'progressline' }, this.progress, this.state), this.body, this.raw);
      this.pending = 0;
      this.failed = 0;
      this.total = 0;
      this.ended = false;
      this.work = [];
      this.setState('waiting', 'Waiting for the probes before it…');
    }

    setState(state, words) {
      this.node.dataset.state = state;
      this.state.textContent = words;
    }

    begin() {
      if (this.total > 0) return;
      this.began = performance.now();
      this.setState('running', 'Running…');
      this.timer = setInterval(() => {
        this.state.textContent = 'Running… ' + Math.round((performance.now() - this.began) / 1000) + ' s';
      }, 1000);
    }

    // run makes the calls at once, each [path or a function returning the
    // envelope, path, render] or [path, body, render], and shows each
    // answer; errors are shown in words in this section only. It resolves
    // when they are all answered.
    run(calls) {
      if (this.r.gone() || this.ended) return Promise.resolve();
      this.begin();
      const answered = Promise.all(calls.map((c) => this.one(c)));
      this.work.push(answered);
      // Resolves once the calls that rendering these started are answered too.
      return answered.then(() => Promise.all(this.work));
    }

    async one(c) {
      const [first, second, render] = c;
      const path = typeof first === 'function' ? second : first;
      const ask = typeof first === 'function' ? first : () => call(path, second, this.r.abort.signal);
      this.pending++;
      this.total++;
      const part = el('div', { class: 'part', 'data-path': path });
      this.body.append(part);
      try {
        const env = await ask();
        if (this.r.gone()) return;
        this.addRaw(path, env);
        part.append(...[render(env, this.r)].flat().filter(Boolean));
      } catch (err) {
        if (err.name === 'AbortError' || this.r.gone()) return;
        if (err.status === 401) {
          this.r.stop('The API key was refused.', 'Enter a valid key above and run again.');
          return;
        }
        this.failed++;
        if (err.envelope) this.addRaw(path, err.envelope);
        const unavailable = err.status === 404 && err.code === 'NOT_FOUND';
        if (unavailable) this.node.dataset.unavailable = ''; // said by the progress line
        else part.append(el('p', { class: 'error', role: 'alert' }, path + ' failed: ' + err.message));
      } finally {
        this.pending--;
        if (this.pending === 0 && !this.r.gone()) {
          // A render may have started more calls (TLS on 443): wait a tick.
          await Promise.resolve();
          if (this.pending === 0) this.finish();
        }
      }
    }

    finish() {
      if (this.ended || this.r.gone()) return;
      this.ended = true;
      clearInterval(this.timer);
      this.progress.remove();
      const secs = ((performance.now() - this.began) / 1000).toFixed(1);
      if ('unavailable' in this.node.dataset) this.setState('unavailable', 'Not available on this server.');
      else if (this.failed === this.total) this.setState('failed', 'Failed after ' + secs + ' s.');
      else if (this.failed > 0) this.setState('partial', 'Partly done in ' + secs + ' s (' + this.failed + ' of ' + this.total + ' calls failed).');
      else this.setState('done', 'Done in ' + secs + ' s.');
      this.r.summary.settle(this.node.dataset.op, this.node.dataset.state);
      this.r.sectionDone();
    }

    skip(words) {
      if (this.r.gone()) return Promise.resolve();
      this.ended = true;
      this.progress.remove();
      this.setState('skipped', words);
      this.r.summary.settle(this.node.dataset.op, 'skipped');
      this.r.sectionDone();
      return Promise.resolve();
    }

    notRun() {
      if (this.ended) return;
      this.ended = true;
      clearInterval(this.timer);
      this.progress.remove();
      this.setState('notrun', 'Not run.');
      this.r.summary.settle(this.node.dataset.op, 'notrun');
    }

    addRaw(path, env) {
      this.r.calls.push({ path, response: env });
      const text = JSON.stringify(env, null, 2);
      const blob = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
      this.raw.append(el('details', {},
        el('summary', {}, 'Raw JSON of ' + path),
        el('p', {}, el('a', { href: blob, download: path.slice(1) + '.json' }, 'Download ' + path.slice(1) + '.json')),
        el('pre', { tabindex: '0' }, text)));
    }
  }

  // Summary is the card at the top: one line per finding, each linking to
  // its section, filled in as the answers come.
  class Summary {
    constructor(node) {
      this.node = node;
      const items = [['up', 'Reachable', 'sec-up'], ['tls', 'TLS grade', 'sec-tls'], ['cert', 'Certificate', 'sec-tls'],
        ['dnssec', 'DNSSEC', 'sec-dns'], ['headers', 'Security headers', 'sec-headers'], ['links', 'Broken links', 'sec-links'],
        ['lighthouse', 'Lighthouse', 'sec-lighthouse']];
      this.values = {};
      const dl = el('dl', { class: 'facts summary' });
      for (const [key, label, section] of items) {
        this.values[key] = el('dd', { 'data-key': key }, '…');
        dl.append(el('dt', {}, el('a', { href: '#' + section }, label)), this.values[key]);
      }
      node.replaceChildren(el('h2', { id: 'h-summary' }, 'Summary'), dl);
      node.hidden = false;
    }

    set(key, words, tone) {
      const dd = this.values[key];
      dd.dataset.set = '';
      dd.replaceChildren(el('span', { class: tone || 'neutral' }, words));
    }

    // settle says why the lines of a section that ended without a value
    // have none.
    settle(op, state) {
      const words = { done: 'none', partial: 'none', failed: 'failed', unavailable: 'not available on this server',
        skipped: 'not applicable', notrun: 'not run' }[state] || state;
      for (const key of Summary.keysOf[op] || []) {
        if (!('set' in this.values[key].dataset)) this.set(key, words, state === 'failed' ? 'bad' : 'neutral');
      }
    }
  }

  // The summary lines each section fills in.
  Summary.keysOf = { up: ['up'], tls: ['tls', 'cert'], dns: ['dnssec'], headers: ['headers'], links: ['links'], lighthouse: ['lighthouse'] };

  // ---- renderers: envelope -> nodes ---------------------------------

  function renderScreenshot(env) {
    const page = env.meta.redirectedURL || env.meta.url;
    if (!sameOrigin(env.data)) {
      return el('p', {}, el('a', { href: env.data }, 'Open the screenshot of ' + page), ' (kept on another origin, so not shown here).');
    }
    return el('figure', {},
      el('a', { href: env.data }, el('img', { src: env.data, alt: 'Screenshot of ' + page })),
      el('figcaption', {}, page + ' as Chromium rendered it'));
  }

  function renderUp(env, run) {
    const up = env.message === 'Site is up';
    const status = env.data && env.data.statusCode ? ' (' + env.data.statusCode + ' ' + env.data.reasonPhrase + ')' : '';
    run.summary.set('up', (up ? 'yes' : 'no') + status, up ? 'good' : 'bad');
    return el('p', { class: 'verdict ' + (up ? 'good' : 'bad') }, up ? 'Up: ' : 'Down: ', env.message, status);
  }

  function renderRedirects(env) {
    const hops = env.data || [];
    return table(hops.length > 1 ? 'Redirect chain, ' + (hops.length - 1) + ' redirect(s)' : 'No redirect',
      ['#', 'Status', 'URL', 'Location'],
      hops.map((h, i) => {
        const loc = (h.headers || []).find((x) => x.name === 'location');
        return [String(i + 1), String(h.status), el('span', { class: 'url' }, h.url), loc ? el('span', { class: 'url' }, loc.value) : '—'];
      }));
  }

  const protocolNames = { ssl2: 'SSL 2.0', ssl3: 'SSL 3.0', tls10: 'TLS 1.0', tls11: 'TLS 1.1', tls12: 'TLS 1.2', tls13: 'TLS 1.3' };
  const legacy = { ssl2: true, ssl3: true, tls10: true, tls11: true };

  // vulnerabilityWords names each vulnerability /tlsscan checks and says
  // in one line what it means.
  const vulnerabilityWords = {
    poodle: ['POODLE', 'SSL 3.0 with CBC suites: an attacker in the path can decrypt bytes through its padding.'],
    drown: ['DROWN', 'SSL 2.0 is enabled: its weak use of the RSA key can decrypt TLS sessions sharing that key.'],
    freak: ['FREAK', 'export-grade RSA suites (512-bit keys) can be forced on clients.'],
    logjam: ['Logjam', 'export-grade or weak Diffie-Hellman groups that can be broken.'],
    sweet32: ['Sweet32', '64-bit block ciphers (3DES and the like) leak data over long connections.'],
    rc4: ['RC4', 'the RC4 cipher\'s biases leak plaintext.'],
    nullCipher: ['Null cipher', 'suites that do not encrypt at all.'],
    anonymousCipher: ['Anonymous cipher', 'suites without a certificate let anyone in the path impersonate the server.'],
    crime: ['CRIME', 'TLS compression leaks secrets such as cookies.'],
    beast: ['BEAST', 'CBC suites with SSL 3.0 or TLS 1.0 use predictable IVs.'],
    heartbleed: ['Heartbleed', 'the heartbeat extension answers with the server\'s memory.'],
    robot: ['ROBOT', 'an RSA padding oracle lets an attacker decrypt or sign with the server\'s key.'],
    renegotiation: ['Insecure renegotiation', 'an attacker can inject requests into a client\'s connection, or tie up the server.'],
  };

  function vulnerabilityName(id) {
    return (vulnerabilityWords[id] || [id])[0];
  }

  function gradeText(g) {
    if (typeof g === 'string') return g;
    if (g && typeof g === 'object') return g.grade || g.letter || '';
    return '';
  }

  function renderTLS(env, run) {
    const d = env.data;
    const out = [];
    const cert = d.certificate || {};
    if (typeof cert.trusted === 'boolean' && run.target.protocol === 'https:') run.certTrusted = cert.trusted;
    const grade = gradeText(d.grade);
    if (grade) {
      run.summary.set('tls', grade, /^A/.test(grade) ? 'good' : /^[BC]/.test(grade) ? 'average' : 'bad');
    } else {
      run.summary.set('tls', 'no grade', 'neutral');
    }
    if (cert.expiry) {
      const days = cert.daysRemaining;
      const soon = typeof days === 'number' && days < 14;
      const left = typeof days === 'number' ? (days < 0 ? 'expired ' + -days + ' days ago' : days + ' days left') : '';
      run.summary.set('cert', left || cert.expiry, soon || cert.isExpired ? 'bad' : 'good');
      out.push(el('p', { class: 'verdict ' + (soon || cert.isExpired ? 'bad' : 'good'), 'data-days': days },
        'Certificate expires ', cert.expiry, left ? ': ' + left : '', soon && days >= 0 ? ' (renew now)' : ''));
    }
    out.push(el('dl', { class: 'facts' },
      el('dt', {}, 'Subject'), el('dd', {}, cert.commonName || cert.subjectAltName || '—'),
      el('dt', {}, 'Issuer'), el('dd', {}, [cert.issuer && cert.issuer.organization, cert.issuer && cert.issuer.commonName].filter(Boolean).join(', ') || '—'),
      el('dt', {}, 'Trusted'), el('dd', {}, cert.trusted === undefined ? '—' : yesNo(cert.trusted, true),
        cert.authorizationError ? ' (' + cert.authorizationError + ')' : '')));
    const suites = d.cipherSuites || {};
    out.push(table('Protocol versions', ['Version', 'Supported', 'Cipher suites'],
      Object.keys(protocolNames).map((k) => [protocolNames[k], yesNo(!!d.protocols[k], !legacy[k]),
        String(((suites[k] || {}).suites || []).length)])));
    if (d.grade) {
      out.push(el('p', { class: 'verdict ' + (d.grade.startsWith('A') ? 'good' : 'bad'), 'data-grade': d.grade },
        'Grade ' + d.grade + ' (SSL Labs rating guide)', (d.gradeReasons || []).length ? ': ' + d.gradeReasons.join('; ') : ''));
    }
    if ((d.clientSimulation || []).length) {
      out.push(table('Client simulation', ['Client', 'Protocol', 'Cipher suite', 'Group'],
        d.clientSimulation.map((c) => c.protocol ? [c.client, c.protocol, c.suite, c.group || '—'] : [c.client, 'fails', c.error, '—'])));
    }
    const vulns = d.vulnerabilities || {};
    const ids = Object.keys(vulns);
    if (ids.length) {
      const found = ids.filter((n) => vulns[n].vulnerable === true);
      const untested = ids.filter((n) => vulns[n].vulnerable === null);
      const tested = ids.filter((n) => vulns[n].vulnerable !== null);
      if (found.length) {
        out.push(el('p', { class: 'verdict bad' }, 'Vulnerable to ' + found.map(vulnerabilityName).join(', ') + ':'),
          el('ul', { class: 'vulns' }, found.map((id) => el('li', {}, el('strong', {}, vulnerabilityName(id)), ': ',
            (vulnerabilityWords[id] || ['', ''])[1], (vulns[id].evidence || []).length ? ' (' + vulns[id].evidence.join('; ') + ')' : ''))));
      } else {
        out.push(el('p', { class: 'verdict good' }, 'Not vulnerable to any of ' + tested.map(vulnerabilityName).join(', ') + '.'));
      }
      if (untested.length) {
        out.push(el('p', { class: 'verdict' }, 'Not tested: ' + untested.map((n) => vulnerabilityName(n) + ' (' + vulns[n].notTestedReason + ')').join(', ') + '.'));
      }
    }
    if (d.partial) {
      const u = d.unfinished || {};
      const left = [].concat(u.protocols || [], (u.cipherSuites || []).map((k) => k + ' suites'), u.checks || []);
      out.push(el('p', { class: 'verdict bad' }, 'Partial: the scan ran out of time before finishing ' + left.join(', ') + '.'));
    }
    return out;
  }

  function recordText(type, r) {
    if (typeof r === 'string') return r;
    if (type === 'MX') return r.priority + ' ' + r.exchange;
    return Object.values(r).join(' ');
  }

  function renderRecords(env) {
    const rows = Object.entries(env.data).filter(([, v]) => Array.isArray(v) && v.length)
      .map(([type, v]) => [type, el('ul', { class: 'plain' }, v.map((r) => el('li', {}, recordText(type, r))))]);
    if (!rows.length) return el('p', {}, 'No records found (' + (env.meta.rcode || 'empty answer') + ').');
    return table('DNS records', ['Type', 'Records'], rows);
  }

  function renderDNSSEC(env, run) {
    const d = env.data;
    const v = d.validation || {};
    const status = v.status || (d.isEnabled ? 'enabled' : 'not enabled');
    const tone = status === 'secure' ? 'good' : status === 'bogus' ? 'bad' : 'neutral';
    run.summary.set('dnssec', status, tone);
    return el('p', { class: 'verdict ' + tone }, 'DNSSEC: ', status, d.zone ? ' for zone ' + d.zone : '', v.reason ? ' — ' + v.reason : '');
  }

  // bar is one phase of the waterfall, placed by CSSOM (inline style
  // attributes are refused by the page's Content-Security-Policy).
  function bar(from, part) {
    const b = el('span', { class: 'bar' });
    b.style.marginLeft = (from * 100).toFixed(2) + '%';
    b.style.width = Math.max(part * 100, 0.5).toFixed(2) + '%';
    return b;
  }

  function renderTiming(env) {
    const t = env.data.timings || env.data;
    const phases = [['redirectDuration', 'Redirects'], ['dns', 'DNS'], ['connect', 'Connect'], ['tls', 'TLS'], ['send', 'Send'], ['wait', 'Wait'], ['download', 'Download']];
    const total = t.total || phases.reduce((s, [k]) => s + (t[k] || 0), 0) || 1;
    let start = 0;
    const rows = phases.map(([k, label]) => {
      const v = t[k] || 0;
      const row = el('li', { class: 'phase phase-' + k },
        el('span', { class: 'label' }, label),
        el('span', { class: 'track', 'aria-hidden': 'true' }, bar(start / total, v / total)),
        el('span', { class: 'value' }, ms(v)));
      start += v;
      return row;
    });
    return [
      el('ol', { class: 'waterfall', 'aria-label': 'Timing waterfall' }, rows),
      el('p', {}, 'Total ', el('strong', {}, ms(t.total)), ', first byte after ', ms(t.ttfb || 0),
        env.data.network ? ', over ' + env.data.network.protocol + ' from ' + env.data.network.remoteIp : '', '.'),
    ];
  }

  function renderProtocols(env) {
    const d = env.data;
    return table('HTTP versions', ['Version', 'Supported'], [
      ['HTTP/1.0', yesNo(d.http10, true)], ['HTTP/1.1', yesNo(d.http11, true)],
      ['HTTP/2', yesNo(d.http2)],
      ['HTTP/3', el('span', {}, yesNo(d.http3), d.http3 && d.http3SupportedVersion && d.http3SupportedVersion.length ? ' (' + d.http3SupportedVersion.join(', ') + ')' : '')],
    ]);
  }

  function renderPorts(env) {
    const ports = env.data || [];
    const scope = env.meta.portRanges ? 'ports ' + env.meta.portRanges : 'the ' + env.meta.topPorts + ' most common ports';
    if (!ports.length) return el('p', {}, 'No open port among ' + scope + ' of ' + env.meta.ip + '.');
    return [el('p', {}, ports.length + ' open among ' + scope + ' of ' + env.meta.ip + ':'),
      el('ul', { class: 'chips' }, ports.map((p) => el('li', {}, String(p))))];
  }

  function renderLinks(env, run) {
    const links = env.data || [];
    const s = env.summary || {};
    const broken = (s.broken || 0) + (s.serverError || 0);
    run.summary.set('links', broken ? broken + ' broken' : 'none broken', broken ? 'bad' : 'good');
    const bad = (l) => !(l.status >= 200 && l.status < 400);
    const sorted = links.slice().sort((a, b) => bad(b) - bad(a));
    return [
      el('p', { class: 'verdict ' + (broken ? 'bad' : 'good') }, env.message),
      links.length ? table('Links, broken first', ['Status', 'Link', 'Why'], sorted.map((l) => [
        el('span', { class: bad(l) ? 'bad' : 'good' }, l.status ? String(l.status) : 'none'),
        el('span', { class: 'url' }, l.link), l.error || l.reason || ''])) : null,
    ];
  }

  function renderHeaders(env, run) {
    const https = (env.meta.redirectedURL || env.meta.url || '').startsWith('https:');
    const g = globalThis.sitediagObservatory.grade(env.data || [], https, run.certTrusted);
    run.summary.set('headers', g.grade + ' (' + g.score + '/100)', /^A/.test(g.grade) ? 'good' : /^[BC]/.test(g.grade) ? 'average' : 'bad');
    return [
      el('p', { class: 'verdict grade-line' }, 'Grade ', el('strong', { class: 'grade' }, g.grade), ', score ' + g.score +
        ' (from 100, as Mozilla\'s HTTP Observatory scores these headers' + (g.bonusWithheld ? '; bonuses count only from 90' : '') + ')'),
      table('Security headers', ['Header', 'Finding', 'Score'], g.tests.map((t) => [
        t.name, el('span', { class: t.modifier < 0 ? 'bad' : t.modifier > 0 ? 'good' : 'neutral' }, t.finding),
        t.scored ? (t.modifier > 0 ? '+' : '') + t.modifier : 'not scored'])),
    ];
  }

  function renderMeta(env) {
    const d = env.data || {};
    const rows = [['Title', d.title], ['Description', d.description], ['Site', d.publisher], ['Author', d.author],
      ['Published', d.date], ['Language', d.lang], ['Address', d.url], ['Image', d.image],
      ['Feeds', (d.feeds || []).map((f) => f.url).join(', ')]].filter(([, v]) => v);
    if (!rows.length) return el('p', {}, 'The page declares no metadata.');
    return el('dl', { class: 'facts' }, rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', { class: /^https?:/.test(v) ? 'url' : null }, v)]));
  }

  function renderMixed(env) {
    const items = (env.data && env.data.items) || [];
    return [
      el('p', { class: 'verdict ' + (items.length ? 'bad' : 'good') }, env.message),
      items.length ? table('Insecure resources', ['Type', 'URL', 'Handling'], items.map((i) => [
        i.type, el('span', { class: 'url' }, i.url),
        [i.active ? 'active' : 'passive', i.blocked ? 'blocked' : i.upgraded ? 'upgraded' : 'loaded'].join(', ')])) : null,
    ];
  }

  function gauge(label, score) {
    const r = 36;
    const c = 2 * Math.PI * r;
    const known = typeof score === 'number';
    const tone = !known ? 'neutral' : score >= 90 ? 'good' : score >= 50 ? 'average' : 'bad';
    const g = svg('svg', { viewBox: '0 0 100 100', 'aria-hidden': 'true', class: 'dial' });
    g.append(svg('circle', { cx: 50, cy: 50, r, class: 'dial-track' }));
    g.append(svg('circle', { cx: 50, cy: 50, r, class: 'dial-value', 'stroke-dasharray': (known ? c * score / 100 : 0) + ' ' + c, transform: 'rotate(-90 50 50)' }));
    const text = svg('text', { x: 50, y: 50, 'dominant-baseline': 'central', 'text-anchor': 'middle' });
    text.textContent = known ? String(score) : '—';
    g.append(text);
    return el('li', { class: 'gauge ' + tone, role: 'img', 'aria-label': label + ': ' + (known ? score + ' of 100' : 'no score') },
      g, el('span', { 'aria-hidden': 'true' }, label));
  }

  function renderLighthouse(env, run) {
    const s = env.meta.scores || {};
    const n = (v) => (typeof v === 'number' ? String(v) : '—');
    run.summary.set('lighthouse', 'performance ' + n(s.performance) + ', accessibility ' + n(s.accessibility) +
      ', best practices ' + n(s.bestPractices) + ', SEO ' + n(s.seo), 'neutral');
    return [
      el('ul', { class: 'gauges' }, gauge('Performance', s.performance), gauge('Accessibility', s.accessibility),
        gauge('Best practices', s.bestPractices), gauge('SEO', s.seo)),
      el('p', {}, el('a', { href: env.data }, 'Full Lighthouse report'),
        env.meta.jsonReport ? [' · ', el('a', { href: env.meta.jsonReport }, 'its JSON')] : ''),
    ];
  }

  // ---- starting a report ---------------------------------------------

  let current = null;

  function normalise(input) {
    const v = input.trim();
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? v : 'https://' + v;
  }

  function start() {
    if (!sessionStorage.getItem(keyName)) {
      overall.textContent = 'Enter the API key first.';
      keyInput.focus();
      return;
    }
    const input = targetInput.value.trim();
    if (!input) return;
    if (current) {
      current.abort.abort();
      for (const s of Object.values(current.sections)) clearInterval(s.timer);
    }
    history.replaceState(null, '', '?url=' + encodeURIComponent(input));
    pageError.hidden = true;
    download.hidden = true;
    report.hidden = false;
    report.setAttribute('aria-busy', 'true');
    let run;
    try {
      run = new Run(input);
    } catch (_) {
      overall.textContent = input + ' is not a URL or a host name.';
      return;
    }
    current = run;
    overall.textContent = 'Diagnosing ' + run.url + ': 0 of ' + run.count + ' sections done…';
    run.run();
  }

  document.getElementById('target-form').addEventListener('submit', (e) => {
    e.preventDefault();
    start();
  });

  download.addEventListener('click', () => {
    if (!current) return;
    const a = el('a', {
      href: URL.createObjectURL(new Blob([current.json()], { type: 'application/json' })),
      download: 'sitediag-' + current.target.hostname + '.json',
    });
    document.body.append(a);
    a.click();
    a.remove();
  });

  // A shared address (?url=…) fills the form, and runs once a key is there.
  const shared = new URLSearchParams(location.search).get('url');
  if (shared) {
    targetInput.value = shared;
    if (sessionStorage.getItem(keyName)) start();
    else keyInput.focus();
  }
})();
