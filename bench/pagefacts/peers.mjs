// peers.mjs runs metascraper (5.x: its date, author, logo and
// logo-favicon rules, Google's favicon service off) on pages served at
// the URLs given and prints one JSON object per page on stdout. Run it
// with TZ=UTC: metascraper reads written dates in the local zone.
import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
const metascraper = require('metascraper')([
  require('metascraper-author')(),
  require('metascraper-date')({ datePublished: true, dateModified: true }),
  require('metascraper-logo')(),
  require('metascraper-logo-favicon')({ google: false })
])
const iconv = require('iconv-lite')

for (const url of process.argv.slice(2)) {
  const t0 = performance.now()
  const resp = await fetch(url)
  const buf = Buffer.from(await resp.arrayBuffer())
  const html = iconv.decode(buf, charsetOf(resp.headers.get('content-type'), buf))
  const meta = await metascraper({ html, url })
  process.stdout.write(JSON.stringify({ url, ...meta, ms: performance.now() - t0 }) + '\n')
}

// charsetOf is the page's character set, from the header or a meta tag,
// as metascraper's usual fetcher (html-get) finds it.
function charsetOf (contentType, buf) {
  const m = /charset=([\w-]+)/i.exec(contentType || '') || /<meta[^>]+charset=["']?([\w-]+)/i.exec(buf.toString('latin1'))
  return m && iconv.encodingExists(m[1]) ? m[1] : 'utf-8'
}
