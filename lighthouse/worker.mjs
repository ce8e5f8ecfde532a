// worker.mjs is sitediag's warm Lighthouse worker. It loads Lighthouse
// (from the directory given as its first argument) once, connects to the
// Chromium whose DevTools HTTP endpoint is its second argument, and then
// runs one audit per line of JSON on stdin:
//
//   {"id": 1, "url": "...", "proxy": "http://127.0.0.1:port", "preset": "desktop", "flags": {...}}
//
// Each audit runs in a new browser context whose requests all go through
// the given proxy (sitediag's filtering proxy), and answers one line on
// stdout: {"id", "lhr": <JSON report>, "html": <HTML report>} or
// {"id", "error"}. Logs go to stderr.
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createInterface } from 'node:readline'

const [dir, browserURL] = process.argv.slice(2)
const req = createRequire(join(dir, 'package.json'))
const load = async (path) => import(pathToFileURL(path).href)
const { default: lighthouse } = await load(join(dir, 'node_modules', 'lighthouse', 'core', 'index.js'))
const presets = {}
for (const name of ['desktop', 'perf', 'experimental']) {
  presets[name] = (await load(join(dir, 'node_modules', 'lighthouse', 'core', 'config', name + '-config.js'))).default
}
const puppeteer = (await load(req.resolve('puppeteer-core'))).default
const browser = await puppeteer.connect({ browserURL, defaultViewport: null })
browser.on('disconnected', () => process.exit(3))

const write = (obj) => new Promise((resolve) => process.stdout.write(JSON.stringify(obj) + '\n', resolve))
await write({ ready: true })

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })
for await (const line of lines) {
  if (!line.trim()) continue
  let job
  try {
    job = JSON.parse(line)
  } catch (e) {
    await write({ error: 'bad request: ' + e.message })
    continue
  }
  let context
  try {
    context = await browser.createBrowserContext({ proxyServer: job.proxy, proxyBypassList: ['<-loopback>'] })
    const page = await context.newPage()
    const flags = { ...job.flags, output: ['html', 'json'], logLevel: 'error' }
    const result = await lighthouse(job.url, flags, presets[job.preset], page)
    if (!result) throw new Error('Lighthouse returned no result')
    await write({ id: job.id, html: result.report[0], lhr: result.report[1] })
  } catch (e) {
    await write({ id: job.id, error: String(e && e.message ? e.message : e) })
  } finally {
    if (context) await context.close().catch(() => {})
  }
}
process.exit(0)
