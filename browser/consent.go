package browser

import (
	"encoding/json"
	"strings"
)

// consentSelectors are the elements HideCookie hides: the banners,
// dialogs and overlays of OneTrust, Cookiebot, Didomi, Quantcast Choice,
// TrustArc, Usercentrics, CookieYes, Osano, Complianz and Termly.
var consentSelectors = []string{
	// OneTrust
	"#onetrust-consent-sdk", "#onetrust-banner-sdk", ".onetrust-pc-dark-filter",
	// Cookiebot
	"#CybotCookiebotDialog", "#CybotCookiebotDialogBodyUnderlay", "#CookiebotWidget",
	// Didomi
	"#didomi-host", "#didomi-notice", "#didomi-popup", ".didomi-popup-backdrop",
	// Quantcast Choice
	"#qc-cmp2-container", ".qc-cmp2-container", "#qc-cmp2-ui", ".qc-cmp-cleanslate",
	// TrustArc
	"#truste-consent-track", "#truste-consent-content", "#consent_blackbar",
	".truste_overlay", ".truste_box_overlay", "#trustarc-banner-overlay",
	// Usercentrics
	"#usercentrics-root", "#usercentrics-cmp-ui",
	// CookieYes (and its older GDPR Cookie Consent plugin)
	".cky-consent-container", ".cky-overlay", ".cky-modal", ".cky-btn-revisit-wrapper",
	"#cookie-law-info-bar", ".cli-modal-backdrop",
	// Osano
	".osano-cm-window", ".osano-cm-dialog",
	// Complianz
	"#cmplz-cookiebanner-container", ".cmplz-cookiebanner", "#cmplz-manage-consent",
	// Termly
	"#termly-code-snippet-support", "[class*=\"termly-styles-module-root\"]",
}

// consentCSS hides every consent element.
var consentCSS = strings.Join(consentSelectors, ",\n") +
	" { display: none !important; visibility: hidden !important; }"

// hideConsentJS adds the style that hides every consent element to the
// document (once), and gives scrolling back when a consent platform is on
// the page: they lock it while their dialog is up.
var hideConsentJS = `() => {
  const root = document.documentElement;
  if (!root) return false;
  if (!document.querySelector('style[data-sitediag="consent"]')) {
    const style = document.createElement('style');
    style.setAttribute('data-sitediag', 'consent');
    style.textContent = ` + jsString(consentCSS) + `;
    (document.head || root).appendChild(style);
  }
  if (!document.querySelector(` + jsString(strings.Join(consentSelectors, ",")) + `)) return false;
  for (const el of [root, document.body]) {
    if (!el) continue;
    el.style.setProperty('overflow', 'auto', 'important');
    el.style.setProperty('position', 'static', 'important');
  }
  return true;
}`

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
