// extract.js runs in the rendered page and returns what brand.Extract
// needs of its computed styles, as one JSON-able object. Colours are
// "#rrggbb"; areas are in CSS pixels of the first 3000 px of the page.
() => {
  const maxY = 3000
  // A page whose parsing stopped in its head (a script that never came)
  // has no body yet: its root element stands in.
  const pageBody = document.body || document.documentElement
  const hex = (c) => {
    const m = /rgba?\(\s*(\d+)[,\s]+(\d+)[,\s]+(\d+)(?:[,\s/]+([\d.]+))?/.exec(c || '')
    if (!m) return ''
    if (m[4] !== undefined && parseFloat(m[4]) < 0.5) return ''
    return '#' + [m[1], m[2], m[3]].map((v) => (+v).toString(16).padStart(2, '0')).join('')
  }
  const visible = (el) => {
    const r = el.getBoundingClientRect()
    const s = getComputedStyle(el)
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none' && parseFloat(s.opacity) > 0.1
  }
  const area = (el) => {
    const r = el.getBoundingClientRect()
    const top = Math.max(0, r.top + scrollY), bottom = Math.min(maxY, r.bottom + scrollY)
    return Math.max(0, bottom - top) * Math.max(0, Math.min(innerWidth, r.right) - Math.max(0, r.left))
  }
  // The colour a box sits on: its own background, or its nearest ancestor's.
  const backdrop = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = hex(getComputedStyle(e).backgroundColor)
      if (c) return c
    }
    return hex(getComputedStyle(document.documentElement).backgroundColor) || '#ffffff'
  }
  // The user agent's own style for an element like el: the same tag
  // (type, link and colour scheme kept) in a closed shadow root under a
  // host reset with all: initial, where no author style reaches and
  // nothing is inherited from the page. A value equal to it is the
  // browser's default, not the site's brand.
  const uaHost = document.createElement('div')
  uaHost.style.setProperty('all', 'initial', 'important')
  uaHost.style.setProperty('position', 'absolute', 'important')
  uaHost.style.setProperty('visibility', 'hidden', 'important')
  const uaRoot = uaHost.attachShadow({ mode: 'closed' })
  document.documentElement.appendChild(uaHost)
  const uaCache = {}
  const uaStyle = (el) => {
    const tag = el.tagName.toLowerCase(), type = el.getAttribute('type') || '', link = el.hasAttribute('href')
    const scheme = getComputedStyle(el).colorScheme
    const key = [tag, type, link, scheme].join(' ')
    if (!uaCache[key]) {
      const twin = uaRoot.appendChild(document.createElement(tag))
      if (type) twin.setAttribute('type', type)
      if (link) twin.setAttribute('href', 'about:blank#sitediag')
      twin.style.colorScheme = scheme
      twin.textContent = 'x'
      const s = getComputedStyle(twin)
      uaCache[key] = {
        background: hex(s.backgroundColor), textColor: hex(s.color), borderColor: parseFloat(s.borderTopWidth) > 0 ? hex(s.borderTopColor) : '',
        borderRadius: s.borderTopLeftRadius === '0px' ? '' : s.borderTopLeftRadius, shadow: s.boxShadow === 'none' ? '' : s.boxShadow,
        fontFamily: s.fontFamily
      }
    }
    return uaCache[key]
  }
  const all = [...document.querySelectorAll('body, body *')].filter((el) => !['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD'].includes(el.tagName))

  // Painted area by colour: backgrounds by the area they cover beyond
  // their children's own backgrounds (approximated by subtracting
  // children with a background), text colours by the text's box area.
  const paint = {}
  const add = (c, a) => { if (c && a > 0) paint[c] = (paint[c] || 0) + a }
  const pageBg = hex(getComputedStyle(pageBody).backgroundColor) || hex(getComputedStyle(document.documentElement).backgroundColor) || '#ffffff'
  add(pageBg, innerWidth * Math.min(maxY, document.documentElement.scrollHeight))
  for (const el of all) {
    if (!visible(el) || el === pageBody) continue
    const s = getComputedStyle(el)
    const bg = hex(s.backgroundColor)
    if (bg) {
      let a = area(el)
      for (const child of el.children) if (hex(getComputedStyle(child).backgroundColor)) a -= area(child)
      add(bg, a)
      const parentBg = backdrop(el.parentElement || pageBody)
      add(parentBg, -area(el))
    }
    const hasText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())
    if (hasText) add(hex(s.color), area(el) * 0.25)
  }

  const style = (sel) => {
    const el = [...document.querySelectorAll(sel)].find(visible)
    if (!el) return null
    const s = getComputedStyle(el)
    return {
      background: hex(s.backgroundColor), textColor: hex(s.color), borderColor: parseFloat(s.borderTopWidth) > 0 ? hex(s.borderTopColor) : '',
      borderRadius: s.borderTopLeftRadius === '0px' ? '' : s.borderTopLeftRadius, shadow: s.boxShadow === 'none' ? '' : s.boxShadow,
      fontFamily: s.fontFamily, fontSize: s.fontSize, fontWeight: s.fontWeight, tag: el.tagName.toLowerCase(), text: (el.textContent || '').trim().slice(0, 80),
      ua: uaStyle(el)
    }
  }
  const buttons = [...document.querySelectorAll('button, a[class*="btn" i], a[class*="button" i], a[class*="cta" i], input[type=submit], [role=button]')].filter(visible)
  // A filled button has a background of its own: not its backdrop's, and
  // not the browser's default for its tag (an unstyled button's grey).
  const filled = buttons.filter((b) => {
    const bg = hex(getComputedStyle(b).backgroundColor)
    return bg && bg !== backdrop(b.parentElement || pageBody) && bg !== uaStyle(b).background
  })
  const primaryEl = filled.find((b) => /primary|cta|signup|start|get/i.test(b.className + ' ' + b.textContent)) || filled[0]
  const secondaryEl = buttons.find((b) => b !== primaryEl && (!filled.includes(b) || /secondary|outline|ghost/i.test(b.className)))
  const styleOf = (el) => { if (!el) return null; el.setAttribute('data-sitediag-probe', '1'); const s = style('[data-sitediag-probe]'); el.removeAttribute('data-sitediag-probe'); return s }

  // Logo candidates in the header or navigation, or linking home.
  const logos = []
  const isLogo = (el) => /logo|brand/i.test([el.id, el.className && el.className.baseVal !== undefined ? el.className.baseVal : el.className, el.getAttribute('alt') || '', el.getAttribute('aria-label') || ''].join(' '))
  const header = document.querySelector('header, [role=banner], nav, .header, #header') || pageBody
  for (const el of header.querySelectorAll('img, svg, a, div, span')) {
    if (!visible(el)) continue
    const home = el.closest('a') && /^(\/|\.\/|#?)$|^https?:\/\/[^/]+\/?$/.test(el.closest('a').getAttribute('href') || '')
    if (!isLogo(el) && !(home && (el.tagName === 'IMG' || el.tagName.toLowerCase() === 'svg'))) continue
    const r = el.getBoundingClientRect()
    const bgImage = getComputedStyle(el).backgroundImage
    if (el.tagName === 'IMG') logos.push({ kind: 'img', src: el.currentSrc || el.src, width: r.width, height: r.height, backdrop: backdrop(el) })
    else if (el.tagName.toLowerCase() === 'svg') logos.push({ kind: 'svg', svg: el.outerHTML, width: r.width, height: r.height, backdrop: backdrop(el.parentElement), fill: hex(getComputedStyle(el).fill) || hex(getComputedStyle(el).color) })
    else if (bgImage && bgImage.startsWith('url(')) logos.push({ kind: 'css', src: bgImage.slice(4, -1).replace(/^["']|["']$/g, ''), width: r.width, height: r.height, backdrop: backdrop(el.parentElement || el) })
    if (logos.length >= 4) break
  }

  // Fonts the page declared, and where they came from.
  const faces = []
  for (const sheet of document.styleSheets) {
    let rules
    try { rules = sheet.cssRules } catch (e) { continue }
    for (const rule of rules) {
      if (rule.type === CSSRule.FONT_FACE_RULE) faces.push({ family: rule.style.getPropertyValue('font-family').replace(/["']/g, '').trim(), src: rule.style.getPropertyValue('src'), sheet: sheet.href || '' })
    }
  }
  const fontLinks = [...document.querySelectorAll('link[href]')].map((l) => l.href).filter((h) => /fonts\.googleapis\.com|fonts\.bunny\.net|use\.typekit\.net|p\.typekit\.net|fonts\.adobe/i.test(h))

  // Spacing samples: paddings and margins of visible boxes.
  const spacing = []
  const radii = []
  for (const el of all.slice(0, 1500)) {
    if (!visible(el)) continue
    const s = getComputedStyle(el)
    for (const p of ['paddingTop', 'paddingLeft', 'marginTop', 'marginBottom', 'gap']) {
      const v = parseFloat(s[p])
      if (v > 0 && v <= 128) spacing.push(v)
    }
    if (s.borderTopLeftRadius && s.borderTopLeftRadius !== '0px' && /BUTTON|INPUT|A|DIV|SECTION|ARTICLE/.test(el.tagName)) radii.push(s.borderTopLeftRadius)
  }

  const hero = [...document.querySelectorAll('main img, section img, .hero img, header img, img')].filter(visible).find((img) => img.getBoundingClientRect().width >= 400)
  const body = getComputedStyle(pageBody)
  const plainLink = (a) => visible(a) && !a.querySelector('img, svg') && !/btn|button|cta/i.test(String(a.className))
  const link = ['p a[href]', 'main a[href]', 'article a[href]', 'nav a[href]', 'a[href]']
    .map((sel) => [...document.querySelectorAll(sel)].find(plainLink)).find(Boolean)
  const browserLink = uaStyle(link || Object.assign(document.createElement('a'), { href: 'about:blank#sitediag' })).textColor

  // The body font is the one that sets most of the visible text (by
  // characters), wherever it is set: body's own font may cover only the
  // navigation while the article is in another. Each family keeps the
  // browser's default family for the elements that carry most of its
  // text, and its most used size.
  const byFamily = {}
  const shown = new Map()
  const isShown = (el) => { if (!shown.has(el)) shown.set(el, visible(el)); return shown.get(el) }
  const walker = document.createTreeWalker(pageBody, NodeFilter.SHOW_TEXT)
  for (let n = walker.nextNode(), seen = 0; n && seen < 20000; n = walker.nextNode()) {
    const el = n.parentElement
    const chars = n.textContent.replace(/\s+/g, '').length
    if (!chars || !el || ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(el.tagName)) continue
    seen++
    if (!isShown(el)) continue
    const s = getComputedStyle(el)
    const f = byFamily[s.fontFamily] || (byFamily[s.fontFamily] = { chars: 0, sizes: {}, ua: {} })
    const ua = uaStyle(el).fontFamily
    f.chars += chars
    f.sizes[s.fontSize] = (f.sizes[s.fontSize] || 0) + chars
    f.ua[ua] = (f.ua[ua] || 0) + chars
  }
  const most = (counts) => Object.keys(counts).reduce((a, b) => (counts[b] > counts[a] ? b : a), Object.keys(counts)[0] || '')
  const bodyFamily = Object.keys(byFamily).reduce((a, b) => (!a || byFamily[b].chars > byFamily[a].chars ? b : a), '')
  const bodyFont = bodyFamily
    ? { family: bodyFamily, size: most(byFamily[bodyFamily].sizes), uaFamily: most(byFamily[bodyFamily].ua) }
    : { family: body.fontFamily, size: body.fontSize, uaFamily: uaStyle(pageBody).fontFamily }
  const result = {
    pageBackground: pageBg,
    browserLink,
    text: hex(body.color),
    link: link ? hex(getComputedStyle(link).color) : '',
    headingColor: (style('h1') || {}).textColor || '',
    h1: style('h1'), h2: style('h2'), bodyFont,
    buttonPrimary: styleOf(primaryEl), buttonSecondary: styleOf(secondaryEl), input: style('input[type=text], input[type=email], input[type=search], input:not([type]), textarea'),
    paint, logos, faces, fontLinks, spacing, radii,
    hero: hero ? hero.currentSrc || hero.src : '',
    heroText: ((document.querySelector('main h1, .hero h1, h1') || {}).textContent || '').trim().slice(0, 200),
    heroSub: ((document.querySelector('.hero p, main h1 + p, h1 + p') || {}).textContent || '').trim().slice(0, 300),
    scheme: matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'
  }
  uaHost.remove()
  return result
}
