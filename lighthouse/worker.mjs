// worker.mjs is sitediag's warm Lighthouse worker. It loads Lighthouse
// (from the directory given as its first argument) once, and then runs
// one audit per line of JSON on stdin:
//
//   {"id": 1, "browser": "http://127.0.0.1:port", "url": "...", "proxy": "http://127.0.0.1:port", "preset": "desktop", "flags": {...}}
//
// Each audit connects to the Chromium whose DevTools HTTP endpoint is
// "browser" (a fresh one per audit, started by sitediag), runs in a new
// browser context whose requests all go through the given proxy
// (sitediag's filtering proxy), and answers one line on stdout: {"id",
// "lhr": <JSON report>, "html": <HTML report>} or {"id", "error"}. Logs
// go to stderr.
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createInterface } from 'node:readline'

const [dir] = process.argv.slice(2)
const req = createRequire(join(dir, 'package.json'))
const load = async (path) => import(pathToFileURL(path).href)
const { default: lighthouse } = await load(join(dir, 'node_modules', 'lighthouse', 'core', 'index.js'))
const presets = {}
for (const name of ['desktop', 'perf', 'experimental']) {
  presets[name] = (await load(join(dir, 'node_modules', 'lighthouse', 'core', 'config', name + '-config.js'))).default
}
const puppeteer = (await load(req.resolve('puppeteer-core'))).default

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
  let browser
  try {
    browser = await puppeteer.connect({ browserURL: job.browser, defaultViewport: null })
    const context = await browser.createBrowserContext({ proxyServer: job.proxy, proxyBypassList: ['<-loopback>'] })
    const page = await context.newPage()
    const flags = { ...job.flags, output: ['html', 'json'], logLevel: 'error' }
    const result = await lighthouse(job.url, flags, presets[job.preset], page)
    if (!result) throw new Error('Lighthouse returned no result')
    await write({ id: job.id, html: result.report[0], lhr: result.report[1] })
  } catch (e) {
    await write({ id: job.id, error: String(e && e.message ? e.message : e) })
  } finally {
    // The browser is sitediag's to close; this only lets go of it.
    if (browser) await Promise.resolve().then(() => browser.disconnect()).catch(() => {})
  }
}
process.exit(0)
