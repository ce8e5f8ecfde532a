// peers.mjs runs the peer tools of bench/content.sh on the corpus pages
// served at a base URL and prints one JSON object per page on stdout:
// metascraper's fields, open-graph-scraper's, and Readability's text,
// with the time metascraper and Readability each took (the fetch
// included).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
const metascraper = require('metascraper')([
  require('metascraper-author')(),
  require('metascraper-date')(),
  require('metascraper-description')(),
  require('metascraper-image')(),
  require('metascraper-lang')(),
  require('metascraper-logo')(),
  require('metascraper-publisher')(),
  require('metascraper-title')(),
  require('metascraper-url')()
])
const ogs = require('open-graph-scraper')
const { JSDOM, VirtualConsole } = require('jsdom')
const { Readability } = require('@mozilla/readability')
const iconv = require('iconv-lite')

const [base, ...pages] = process.argv.slice(2)
for (const page of pages) {
  const url = base + '/' + page
  const t0 = performance.now()
  const resp = await fetch(url)
  const buf = Buffer.from(await resp.arrayBuffer())
  const html = iconv.decode(buf, charsetOf(resp.headers.get('content-type'), buf))
  const fetchMs = performance.now() - t0
  const meta = await metascraper({ html, url })
  const metaMs = performance.now() - t0
  let og = {}
  try {
    const { result } = await ogs({ html })
    og = result
  } catch (e) { og = { error: String(e) } }
  let text = ''
  const t1 = performance.now()
  try {
    const dom = new JSDOM(html, { url, virtualConsole: new VirtualConsole() })
    const article = new Readability(dom.window.document).parse()
    text = article ? article.textContent : ''
  } catch (e) { text = '' }
  // Readability's time, with the one fetch the page took (as sitediag's includes its own).
  const readabilityMs = fetchMs + performance.now() - t1
  process.stdout.write(JSON.stringify({ page, metascraper: meta, metascraperMs: metaMs, ogs: og, readability: text, readabilityMs }) + '\n')
}

// charsetOf is the page's character set, from the header or a meta tag,
// as metascraper's usual fetcher (html-get) finds it.
function charsetOf (contentType, buf) {
  const m = /charset=([\w-]+)/i.exec(contentType || '') || /<meta[^>]+charset=["']?([\w-]+)/i.exec(buf.toString('latin1'))
  return m && iconv.encodingExists(m[1]) ? m[1] : 'utf-8'
}
