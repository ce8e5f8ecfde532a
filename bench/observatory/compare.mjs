// Grades each case of cases.json (one response's headers) with sitediag's
// report page grader (httpapi/ui/observatory.js) and with the MDN HTTP
// Observatory's own analyzer and score table (the pinned npm package),
// for the tests headers decide, and prints where they differ.
//
//   node bench/observatory/compare.mjs [cases.json]
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import { AxiosHeaders } from 'axios';
import { CookieJar } from 'tough-cookie';
import { contentSecurityPolicyTest } from '@mdn/mdn-http-observatory/src/analyzer/tests/csp.js';
import { cookiesTest } from '@mdn/mdn-http-observatory/src/analyzer/tests/cookies.js';
import { referrerPolicyTest } from '@mdn/mdn-http-observatory/src/analyzer/tests/referrer-policy.js';
import { strictTransportSecurityTest } from '@mdn/mdn-http-observatory/src/analyzer/tests/strict-transport-security.js';
import { xContentTypeOptionsTest } from '@mdn/mdn-http-observatory/src/analyzer/tests/x-content-type-options.js';
import { xFrameOptionsTest } from '@mdn/mdn-http-observatory/src/analyzer/tests/x-frame-options.js';
import { crossOriginResourcePolicyTest } from '@mdn/mdn-http-observatory/src/analyzer/tests/cross-origin-resource-policy.js';
import { getScoreModifier, getGradeForScore } from '@mdn/mdn-http-observatory/src/grader/grader.js';
import { MINIMUM_SCORE_FOR_EXTRA_CREDIT } from '@mdn/mdn-http-observatory/src/grader/charts.js';

const here = path.dirname(fileURLToPath(import.meta.url));
vm.runInThisContext(fs.readFileSync(path.join(here, '../../httpapi/ui/observatory.js'), 'utf8'));
const ours = globalThis.sitediagObservatory;

// Our test names and the Observatory's.
const tests = [
  ['Content-Security-Policy', contentSecurityPolicyTest],
  ['Cookies', cookiesTest],
  ['Referrer-Policy', referrerPolicyTest],
  ['Strict-Transport-Security', strictTransportSecurityTest],
  ['X-Content-Type-Options', xContentTypeOptionsTest],
  ['X-Frame-Options', xFrameOptionsTest],
  ['Cross-Origin-Resource-Policy', crossOriginResourcePolicyTest],
];

// theirs runs the Observatory's tests on the case as its retriever would
// have fetched it: the headers as an HTTP client delivers them (repeated
// ones joined, Set-Cookie as a list), the cookies in a jar.
function theirs(c) {
  const url = new URL(c.https ? 'https://site.test/' : 'http://site.test/');
  const raw = {};
  for (const { name, value } of c.headers) {
    if (name === 'set-cookie') (raw[name] ||= []).push(value);
    else raw[name] = raw[name] === undefined ? value : raw[name] + ', ' + value;
  }
  const response = { headers: new AxiosHeaders(raw), status: 200, verified: c.certTrusted !== false, httpEquiv: new Map() };
  const jar = new CookieJar();
  for (const line of raw['set-cookie'] || []) jar.setCookieSync(line, url.href, { ignoreError: true });
  const requests = { hostname: 'site.test', site: 'site.test', responses: { auto: response, https: c.https ? response : null, http: null },
    session: { url, jar }, resources: { path: '' } };
  const results = {};
  let withExtra = 100;
  let uncurved = 100;
  for (const [name, test] of tests) {
    const modifier = getScoreModifier(test(requests).result);
    results[name] = modifier;
    withExtra += modifier;
    if (modifier < 0) uncurved += modifier;
  }
  const score = uncurved >= MINIMUM_SCORE_FOR_EXTRA_CREDIT ? withExtra : uncurved;
  return { ...getGradeForScore(score), results };
}

const file = process.argv[2] || path.join(here, 'cases.json');
const cases = JSON.parse(fs.readFileSync(file, 'utf8'));
let agree = 0;
for (const c of cases) {
  const a = ours.grade(c.headers, c.https, c.certTrusted);
  const b = theirs(c);
  const diffs = a.tests.filter((t) => t.scored && b.results[t.name] !== t.modifier)
    .map((t) => `${t.name} ours ${t.modifier} (${t.finding}) theirs ${b.results[t.name]}`);
  const same = a.score === b.score && a.grade === b.grade && !diffs.length;
  if (same) agree++;
  console.log(`${same ? 'same' : 'DIFF'}  ${c.name.padEnd(44)} ours ${String(a.score).padStart(3)} ${a.grade.padEnd(2)}  observatory ${String(b.score).padStart(3)} ${b.grade}`);
  for (const d of diffs) console.log('      ' + d);
}
console.log(`\n${agree} of ${cases.length} cases graded the same (score, grade and every test's modifier)`);
process.exitCode = agree === cases.length ? 0 : 1;
