// The sitediag report page. It asks the API (one folder above this page)
// for each diagnosis of a site at once and fills in each section as its
// answer comes back. No framework, no build step, nothing from elsewhere.
'use strict';

(function () {
  const keyName = 'sitediag.apiKey';
  const apiBase = new URL('../', document.baseURI);

  // el builds an element; attrs go through setAttribute except the
  // properties listed, children are nodes or text (never HTML).
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
    // word carries the meaning without it.
    // Without good, neither answer is a problem.
    const tone = good === undefined ? (ok ? 'good' : 'neutral') : ok === good ? 'good' : 'bad';
    return el('span', { class: tone }, ok ? 'yes' : 'no');
  }

  function ms(v) {
    return (Math.round(v * 10) / 10).toLocaleString('en') + ' ms';
  }

  // ---- API key -------------------------------------------------------

  const keyForm = document.getElementById('key-form');
  const keyInput = document.getElementById('key');
  const keySaved = document.getElementById('key-saved');

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
    document.getElementById('target').focus();
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
    if (resp.status === 401) {
      sessionStorage.removeItem(keyName);
      showKey();
      throw new ApiError('The API key was refused: enter a valid key above and run again.', 401, code, envelope);
    }
    if (resp.status === 404 && code === 'NOT_FOUND') {
      throw new ApiError('Not available on this server.', 404, code, envelope);
    }
    throw new ApiError(details + ' (' + code + ', HTTP ' + resp.status + ').', resp.status, code, envelope);
  }

  // ---- sections ------------------------------------------------------

  // Section is one part of the report: a progress line, the result, the
  // errors in words and the raw JSON of each call it made.
  class Section {
    constructor(node) {
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
      this.began = performance.now();
      this.setState('running', 'Running…');
      this.timer = setInterval(() => {
        this.state.textContent = 'Running… ' + Math.round((performance.now() - this.began) / 1000) + ' s';
      }, 1000);
    }

    setState(state, words) {
      this.node.dataset.state = state;
      this.state.textContent = words;
    }

    // run calls path and hands the envelope to render, which returns the
    // nodes to show; errors are shown in words in this section only.
    async run(path, body, render, signal) {
      this.pending++;
      this.total++;
      const part = el('div', { class: 'part', 'data-path': path });
      this.body.append(part);
      try {
        const env = await call(path, body, signal);
        this.addRaw(path, env);
        part.append(...[render(env)].flat().filter(Boolean));
      } catch (err) {
        if (err.name === 'AbortError') return;
        this.failed++;
        if (err.envelope) this.addRaw(path, err.envelope);
        const unavailable = err.status === 404 && err.code === 'NOT_FOUND';
        if (unavailable) this.node.dataset.unavailable = ''; // said by the progress line
        else part.append(el('p', { class: 'error', role: 'alert' }, path + ' failed: ' + err.message));
      } finally {
        this.pending--;
        if (this.pending === 0 && !signal.aborted) this.finish();
      }
    }

    finish() {
      clearInterval(this.timer);
      this.progress.remove();
      const secs = ((performance.now() - this.began) / 1000).toFixed(1);
      if ('unavailable' in this.node.dataset) this.setState('unavailable', 'Not available on this server.');
      else if (this.failed === this.total) this.setState('failed', 'Failed after ' + secs + ' s.');
      else if (this.failed > 0) this.setState('partial', 'Partly done in ' + secs + ' s (' + this.failed + ' of ' + this.total + ' calls failed).');
      else this.setState('done', 'Done in ' + secs + ' s.');
      onSectionDone();
    }

    addRaw(path, env) {
      const text = JSON.stringify(env, null, 2);
      const blob = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
      this.raw.append(el('details', {},
        el('summary', {}, 'Raw JSON of ' + path),
        el('p', {}, el('a', { href: blob, download: path.slice(1) + '.json' }, 'Download ' + path.slice(1) + '.json')),
        el('pre', { tabindex: '0' }, text)));
    }
  }

  // ---- renderers: envelope -> nodes ---------------------------------

  function renderScreenshot(env) {
    return el('figure', {},
      el('a', { href: env.data }, el('img', { src: env.data, alt: 'Screenshot of ' + (env.meta.redirectedURL || env.meta.url) })),
      el('figcaption', {}, (env.meta.redirectedURL || env.meta.url) + ' as Chromium rendered it'));
  }

  function renderUp(env) {
    const up = env.message === 'Site is up';
    return el('p', { class: 'verdict ' + (up ? 'good' : 'bad') },
      up ? 'Up: ' : 'Down: ', env.message,
      env.data && env.data.statusCode ? ' (' + env.data.statusCode + ' ' + env.data.reasonPhrase + ')' : '');
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

  function renderTLS(env) {
    const d = env.data;
    const out = [];
    const cert = d.certificate || {};
    if (cert.expiry) {
      const days = cert.daysRemaining;
      const soon = typeof days === 'number' && days < 14;
      out.push(el('p', { class: 'verdict ' + (soon || cert.isExpired ? 'bad' : 'good'), 'data-days': days },
        'Certificate expires ', cert.expiry,
        typeof days === 'number' ? ': ' + (days < 0 ? 'expired ' + -days + ' days ago' : days + ' days left') : '',
        soon && days >= 0 ? ' (renew now)' : ''));
    }
    out.push(el('dl', { class: 'facts' },
      el('dt', {}, 'Subject'), el('dd', {}, cert.commonName || cert.subjectAltName || '—'),
      el('dt', {}, 'Issuer'), el('dd', {}, [cert.issuer && cert.issuer.organization, cert.issuer && cert.issuer.commonName].filter(Boolean).join(', ') || '—'),
      el('dt', {}, 'Trusted'), el('dd', {}, cert.trusted === undefined ? '—' : yesNo(cert.trusted, true),
        cert.authorizationError ? ' (' + cert.authorizationError + ')' : '')));
    const suites = d.cipherSuites || {};
    out.push(table('Protocol versions', ['Version', 'Supported', 'Cipher suites'],
      Object.keys(protocolNames).map((k) => [protocolNames[k], yesNo(!!d.protocols[k], !legacy[k] ? true : false),
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
    const names = Object.keys(vulns);
    if (names.length) {
      const found = names.filter((n) => vulns[n].vulnerable === true);
      const untested = names.filter((n) => vulns[n].vulnerable === null);
      const tested = names.filter((n) => vulns[n].vulnerable !== null);
      out.push(el('p', { class: 'verdict ' + (found.length ? 'bad' : 'good') },
        found.length ? 'Vulnerable to ' + found.join(', ') + '.' : 'Not vulnerable to any of ' + tested.join(', ') + '.'));
      if (untested.length) {
        out.push(el('p', { class: 'verdict' }, 'Not tested: ' + untested.map((n) => n + ' (' + vulns[n].notTestedReason + ')').join(', ') + '.'));
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

  function renderDNSSEC(env) {
    const d = env.data;
    const v = d.validation || {};
    const status = v.status || (d.isEnabled ? 'enabled' : 'not enabled');
    return el('p', { class: 'verdict ' + (status === 'secure' ? 'good' : status === 'bogus' ? 'bad' : 'neutral') },
      'DNSSEC: ', status, d.zone ? ' for zone ' + d.zone : '', v.reason ? ' — ' + v.reason : '');
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
        el('span', { class: 'track', 'aria-hidden': 'true' },
          bar(start / total, v / total)),
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

  function renderLinks(env) {
    const links = env.data || [];
    const s = env.summary || {};
    const bad = (l) => !(l.status >= 200 && l.status < 400);
    const sorted = links.slice().sort((a, b) => bad(b) - bad(a));
    return [
      el('p', { class: 'verdict ' + (s.broken || s.serverError ? 'bad' : 'good') }, env.message),
      links.length ? table('Links, broken first', ['Status', 'Link', 'Why'], sorted.map((l) => [
        el('span', { class: bad(l) ? 'bad' : 'good' }, l.status ? String(l.status) : 'none'),
        el('span', { class: 'url' }, l.link), l.error || l.reason || ''])) : null,
    ];
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

  function renderLighthouse(env) {
    const s = env.meta.scores || {};
    return [
      el('ul', { class: 'gauges' }, gauge('Performance', s.performance), gauge('Accessibility', s.accessibility),
        gauge('Best practices', s.bestPractices), gauge('SEO', s.seo)),
      el('p', {}, el('a', { href: env.data }, 'Full Lighthouse report'),
        env.meta.jsonReport ? [' · ', el('a', { href: env.meta.jsonReport }, 'its JSON')] : ''),
    ];
  }

  // ---- running a report ---------------------------------------------

  const report = document.getElementById('report');
  const overall = document.getElementById('overall');
  let running = null;
  let current = [];
  let done = 0;
  let count = 0;

  function onSectionDone() {
    done++;
    overall.textContent = done < count ? done + ' of ' + count + ' sections done…' : 'All ' + count + ' sections done.';
    if (done === count) report.setAttribute('aria-busy', 'false');
  }

  function normalise(input) {
    const v = input.trim();
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? v : 'https://' + v;
  }

  const plan = {
    screenshot: [['/screenshot', {}, renderScreenshot]],
    up: [['/up', { followRedirect: true }, renderUp], ['/redirectcheck', {}, renderRedirects]],
    tls: [['/tlsscan', {}, renderTLS]],
    dns: [['/dnsrecord', {}, renderRecords], ['/dnssec', {}, renderDNSSEC]],
    timing: [['/loadtime', { followRedirect: true }, renderTiming]],
    protocols: [['/httpprotocol', { followRedirect: true }, renderProtocols]],
    ports: [['/openport', () => {
      const ranges = document.getElementById('ports').value.trim();
      return ranges ? { portRanges: ranges } : {};
    }, renderPorts]],
    links: [['/brokenlink', { followRedirect: true }, renderLinks]],
    mixed: [['/mixedcontent', { followRedirect: true }, renderMixed]],
    lighthouse: [['/lighthouse', { followRedirect: true }, renderLighthouse]],
  };

  document.getElementById('target-form').addEventListener('submit', (e) => {
    e.preventDefault();
    if (!sessionStorage.getItem(keyName)) {
      overall.textContent = 'Enter the API key first.';
      keyInput.focus();
      return;
    }
    if (running) running.abort();
    for (const s of current) clearInterval(s.timer);
    current = [];
    running = new AbortController();
    const url = normalise(document.getElementById('target').value);
    const sections = report.querySelectorAll('section[data-op]');
    count = sections.length;
    done = 0;
    report.hidden = false;
    report.setAttribute('aria-busy', 'true');
    overall.textContent = 'Diagnosing ' + url + ': 0 of ' + count + ' sections done…';
    for (const node of sections) {
      const section = new Section(node);
      current.push(section);
      for (const [path, extra, render] of plan[node.dataset.op]) {
        section.run(path, Object.assign({ url }, typeof extra === 'function' ? extra() : extra), render, running.signal);
      }
    }
  });
})();
