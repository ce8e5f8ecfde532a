// Security headers graded as Mozilla's HTTP Observatory (MDN HTTP
// Observatory, its scoring methodology and analyzer) grades them, for the
// tests one response's headers decide: Content-Security-Policy, cookies,
// Strict-Transport-Security, X-Content-Type-Options, X-Frame-Options,
// Referrer-Policy and Cross-Origin-Resource-Policy. Redirection,
// Subresource Integrity and CORS need other requests or the page's HTML
// and are not judged; Permissions-Policy is shown, not scored (the
// Observatory does not score it). bench/observatory.sh measures the
// agreement with the Observatory's own analyzer on the same headers.
//
// A classic script: the report page loads it before ui.js, and the bench
// runs it in Node; both read globalThis.sitediagObservatory.
'use strict';

globalThis.sitediagObservatory = (function () {
  // Modifiers, from the Observatory's score table.
  const SIX_MONTHS = 15552000; // the Observatory's "six months"
  const BROAD = ['ftp:', 'http:', 'https:', '*', 'http://*', 'http://*.*', 'https://*', 'https://*.*'];
  const UNSAFE_INLINE = ["'unsafe-inline'", 'data:'];
  const NONCE_OR_HASH = /^'(nonce-|sha256-|sha384-|sha512-)/;

  // grade scores headers ([{name, value}], names in lower case, repeated
  // headers as separate items) of a response over https or not, with
  // certTrusted false when the certificate chain is not trusted (HSTS
  // then cannot count). It returns {score, grade, tests:[{name, finding,
  // modifier, scored}], bonusWithheld}.
  function grade(headers, https, certTrusted) {
    const all = (name) => headers.filter((h) => h.name === name).map((h) => h.value);
    // A repeated header reads as its values joined, as HTTP clients
    // (and the Observatory's) deliver it.
    const first = (name) => (all(name).length ? all(name).join(', ') : null);
    const tests = [];
    const add = (name, finding, modifier, scored = true) => tests.push({ name, finding, modifier, scored });

    const csp = cspResult(all('content-security-policy'), all('content-security-policy-report-only').length > 0, https);
    add('Content-Security-Policy', csp.finding, csp.modifier);

    const hsts = hstsResult(first('strict-transport-security'), https, certTrusted);
    add('Strict-Transport-Security', hsts.finding, hsts.modifier);

    const cookies = cookieResult(all('set-cookie'), hsts.pass);
    add('Cookies', cookies.finding, cookies.modifier);

    const xcto = first('x-content-type-options');
    if (xcto === null) add('X-Content-Type-Options', 'missing', -5);
    else if (xcto.trim().toLowerCase() === 'nosniff') add('X-Content-Type-Options', 'nosniff', 0);
    else add('X-Content-Type-Options', 'invalid: ' + xcto, -5);

    const xfo = first('x-frame-options');
    if (csp.directives && csp.directives.has('frame-ancestors')) add('X-Frame-Options', 'CSP frame-ancestors', 5);
    else if (xfo === null) add('X-Frame-Options', 'missing', -20);
    else if (['deny', 'sameorigin'].includes(xfo.trim().toLowerCase())) add('X-Frame-Options', xfo.trim().toUpperCase(), 0);
    else if (xfo.trim().toLowerCase().startsWith('allow-from')) add('X-Frame-Options', 'ALLOW-FROM', 0);
    else add('X-Frame-Options', 'invalid: ' + xfo, -20);

    const rp = referrerResult(all('referrer-policy'));
    add('Referrer-Policy', rp.finding, rp.modifier);

    const corp = first('cross-origin-resource-policy');
    const corpValue = corp === null ? null : corp.trim().toLowerCase();
    if (corpValue === null || corpValue === '') add('Cross-Origin-Resource-Policy', 'missing', 0);
    else if (corpValue === 'same-origin' || corpValue === 'same-site') add('Cross-Origin-Resource-Policy', corpValue, 10);
    else if (corpValue === 'cross-origin') add('Cross-Origin-Resource-Policy', corpValue, 0);
    else add('Cross-Origin-Resource-Policy', 'invalid: ' + corp, -5);

    const pp = first('permissions-policy');
    add('Permissions-Policy', pp === null ? 'missing' : pp, 0, false);

    // Bonuses count only when the score without them is 90 or more.
    const penalties = tests.reduce((s, t) => s + Math.min(t.modifier, 0), 0);
    const bonuses = tests.reduce((s, t) => s + Math.max(t.modifier, 0), 0);
    const uncurved = 100 + penalties;
    const score = Math.max(uncurved >= 90 ? uncurved + bonuses : uncurved, 0);
    return { score, grade: gradeOf(score), tests, bonusWithheld: uncurved < 90 && bonuses > 0 };
  }

  function gradeOf(score) {
    const chart = [[100, 'A+'], [90, 'A'], [85, 'A-'], [80, 'B+'], [70, 'B'], [65, 'B-'], [60, 'C+'], [50, 'C'], [45, 'C-'],
      [40, 'D+'], [30, 'D'], [25, 'D-']];
    for (const [min, g] of chart) if (score >= min) return g;
    return 'F';
  }

  // parsePolicies reads Content-Security-Policy values (one or more
  // headers, each a comma list of policies) into directive -> sources. A
  // directive several policies set keeps the sources all of them allow;
  // one that only a later policy sets allows nothing. An empty or very
  // short policy, or a directive repeated in one policy (report-uri and
  // report-to aside), makes the whole header invalid (null).
  function parsePolicies(values) {
    const policies = values.flatMap((v) => v.split(',')).map((p) => p.replace(/[\r\n]/g, '').trim());
    const out = new Map();
    for (const [i, policy] of policies.entries()) {
      if (policy.length < 6) return null;
      const seen = new Set();
      for (const entry of policy.split(';')) {
        const [name, ...sources] = entry.trim().split(/\s+/).filter(Boolean);
        if (!name) continue;
        const directive = name.toLowerCase();
        if (seen.has(directive) && directive !== 'report-uri' && directive !== 'report-to') return null;
        if (seen.has(directive)) continue;
        seen.add(directive);
        let list = sources.map((s) => s.toLowerCase());
        if (!list.length && directive.endsWith('-src')) list = ["'none'"];
        if (i === 0) out.set(directive, new Set(list));
        else if (!out.has(directive)) out.set(directive, new Set());
        else out.set(directive, new Set([...out.get(directive)].filter((s) => list.includes(s))));
      }
    }
    for (const [d, s] of out) if (!s.size) out.set(d, new Set(["'none'"]));
    return out;
  }

  function cspResult(values, reportOnly, https) {
    if (!values.length) {
      return reportOnly ? { finding: 'report-only, not enforced', modifier: -25 } : { finding: 'missing', modifier: -25 };
    }
    const d = parsePolicies(values);
    if (!d || !d.size) return { finding: 'cannot be parsed', modifier: -25 };
    const any = new Set(['*']);
    const script = new Set(d.get('script-src') || d.get('default-src') || any);
    const object = d.get('object-src') || d.get('default-src') || any;
    const style = new Set(d.get('style-src') || d.get('default-src') || any);
    for (const list of [script, style]) {
      if ([...list].some((s) => NONCE_OR_HASH.test(s))) list.delete("'unsafe-inline'");
    }
    let invalid = false;
    if ([...script].some((s) => NONCE_OR_HASH.test(s)) && script.has("'strict-dynamic'")) {
      for (const s of [...script]) {
        if (BROAD.some((b) => s.startsWith(b)) || s === "'self'" || s === "'unsafe-inline'") script.delete(s);
      }
    } else if (script.has("'strict-dynamic'")) {
      invalid = true; // 'strict-dynamic' without a nonce or a hash
    }
    const insecure = (s) => s.startsWith('http:') || s.startsWith('ftp:');
    const active = [...d].filter(([name]) => !['img-src', 'media-src', 'script-src'].includes(name)).flatMap(([, s]) => [...s]).concat([...script]);
    const passive = ['img-src', 'media-src'].flatMap((name) => [...(d.get(name) || d.get('default-src') || [])]);
    const defaultSrc = d.get('default-src');
    const checks = [
      [invalid, "'strict-dynamic' without a nonce or hash", -25],
      [[...script].some((s) => BROAD.includes(s) || UNSAFE_INLINE.includes(s)) || [...object].some((s) => BROAD.includes(s)),
        'scripts or objects not restricted, or inline scripts allowed', -20],
      [https && active.some(insecure), 'allows resources over http', -20],
      [script.has("'unsafe-eval'") || style.has("'unsafe-eval'"), "allows 'unsafe-eval'", -10],
      [https && passive.some(insecure), 'allows images or media over http', -10],
      [[...style].some((s) => BROAD.includes(s) || UNSAFE_INLINE.includes(s)), 'unsafe sources in styles only', 0],
      [defaultSrc && defaultSrc.size === 1 && defaultSrc.has("'none'"), "default-src 'none', nothing unsafe", 10],
      [true, 'nothing unsafe', 5],
    ];
    const [, finding, modifier] = checks.find(([hit]) => hit);
    return { finding, modifier, directives: d };
  }

  function hstsResult(value, https, certTrusted) {
    if (!https) return { finding: 'cannot be set without HTTPS', modifier: -20, pass: false };
    if (certTrusted === false) return { finding: 'cannot count: the certificate is not trusted', modifier: -20, pass: false };
    if (value === null) return { finding: 'missing', modifier: -20, pass: false };
    let maxAge = null;
    if (!value.includes(',')) {
      for (const p of value.split(';').map((s) => s.trim().toLowerCase())) {
        if (p.startsWith('max-age=')) maxAge = Number.parseInt(p.slice(8), 10);
      }
    }
    if (maxAge === null || Number.isNaN(maxAge)) return { finding: 'invalid: ' + value, modifier: -20, pass: false };
    if (maxAge < SIX_MONTHS) return { finding: 'max-age under six months (' + maxAge + ' s)', modifier: -10, pass: false };
    return { finding: 'max-age at least six months', modifier: 0, pass: true };
  }

  // cookieResult judges every cookie; the worst finding, in the
  // Observatory's order, is the test's.
  function cookieResult(lines, hsts) {
    const order = [
      ['a cookie without Secure, but HSTS protects it', -5],
      ['a cookie without Secure', -20],
      ['a session cookie without Secure, but HSTS protects it', -10],
      ['a SameSite value other than Strict, Lax or None, or None without Secure', -20],
      ['an anti-CSRF cookie without SameSite', -20],
      ['a session cookie without HttpOnly', -30],
      ['a session cookie without Secure', -40],
    ];
    let worst = -1;
    const worse = (i) => { worst = Math.max(worst, i); };
    const cookies = [];
    for (const line of lines) {
      const [pair, ...attrs] = line.split(';');
      const name = pair.split('=')[0].trim();
      const c = { name, secure: false, httpOnly: false, sameSite: null };
      for (const a of attrs) {
        const [k, v] = a.trim().split('=');
        const key = k.trim().toLowerCase();
        if (key === 'secure') c.secure = true;
        else if (key === 'httponly') c.httpOnly = true;
        else if (key === 'samesite') {
          const value = (v || '').trim().toLowerCase();
          if (!['lax', 'strict', 'none'].includes(value)) worse(3);
          else c.sameSite = value;
        }
      }
      if (name) cookies.push(c);
    }
    if (!cookies.length) return worst >= 0 ? { finding: order[worst][0], modifier: order[worst][1] } : { finding: 'none set', modifier: 0 };
    for (const c of cookies) {
      const session = /login|sess/i.test(c.name);
      if (!c.secure && c.sameSite === 'none') worse(3);
      if (!c.secure) worse(hsts ? 0 : 1);
      if (/csrf/i.test(c.name) && !c.sameSite) worse(4);
      if (session && !c.secure) worse(hsts ? 2 : 6);
      if (session && !c.httpOnly) worse(5);
    }
    if (worst >= 0) return { finding: order[worst][0], modifier: order[worst][1] };
    if (cookies.every((c) => c.sameSite)) return { finding: 'Secure, HttpOnly sessions, SameSite', modifier: 5 };
    return { finding: 'Secure, HttpOnly sessions, no SameSite', modifier: 0 };
  }

  function referrerResult(values) {
    if (!values.length) return { finding: 'missing', modifier: 0 };
    const privateValues = ['no-referrer', 'same-origin', 'strict-origin', 'strict-origin-when-cross-origin'];
    const leaking = ['origin', 'origin-when-cross-origin', 'unsafe-url', 'no-referrer-when-downgrade'];
    // The last value a browser knows is the one it applies.
    const known = values.join(', ').split(',').map((v) => v.trim().toLowerCase())
      .filter((v) => privateValues.includes(v) || leaking.includes(v));
    const last = known[known.length - 1];
    if (!last) return { finding: 'invalid: ' + values.join(', '), modifier: -5 };
    if (privateValues.includes(last)) return { finding: last, modifier: 5 };
    return { finding: last + ' (leaks the address)', modifier: -5 };
  }

  return { grade };
})();
