package browser

import "strings"

// adHosts are the ad and tracker hosts a job with BlockAds refuses: a
// host is refused when it is one of these or a subdomain of one. It is
// our own short list of the major networks (ad exchanges and servers,
// tag managers, analytics and session-recording beacons, social
// pixels), not a filter list.
var adHosts = []string{
	// Google ads, analytics and tag manager
	"doubleclick.net", "googlesyndication.com", "googleadservices.com", "google-analytics.com",
	"googletagmanager.com", "googletagservices.com", "adservice.google.com", "imasdk.googleapis.com",
	// Exchanges, SSPs and DSPs
	"adnxs.com", "adsrvr.org", "amazon-adsystem.com", "criteo.com", "criteo.net", "rubiconproject.com",
	"pubmatic.com", "openx.net", "casalemedia.com", "indexww.com", "adform.net", "smartadserver.com",
	"bidswitch.net", "33across.com", "sharethrough.com", "triplelift.com", "3lift.com", "sonobi.com",
	"gumgum.com", "yieldmo.com", "media.net", "contextweb.com", "lijit.com", "sovrn.com",
	"advertising.com", "adsymptotic.com", "spotxchange.com", "springserve.com", "teads.tv",
	"serving-sys.com", "flashtalking.com", "innovid.com", "adcolony.com", "applovin.com",
	"ads.yahoo.com", "analytics.yahoo.com", "adroll.com",
	// Native ads and recommendation widgets
	"taboola.com", "outbrain.com", "zemanta.com", "mgid.com", "revcontent.com",
	// Pop-under and adult networks
	"popads.net", "propellerads.com", "exoclick.com",
	// Verification and measurement
	"moatads.com", "adsafeprotected.com", "doubleverify.com", "scorecardresearch.com",
	"quantserve.com", "quantcount.com", "chartbeat.com", "chartbeat.net",
	// Data brokers and identity
	"demdex.net", "everesttech.net", "omtrdc.net", "2o7.net", "bluekai.com", "exelator.com",
	"krxd.net", "tapad.com", "liadm.com", "rlcdn.com", "agkn.com",
	// Session recording and product analytics beacons
	"hotjar.com", "hotjar.io", "clarity.ms", "mouseflow.com", "fullstory.com", "nr-data.net",
	"mc.yandex.ru",
	// Social pixels
	"connect.facebook.net", "ads-twitter.com", "analytics.twitter.com", "bat.bing.com",
	"ads.linkedin.com", "px.ads.linkedin.com", "analytics.tiktok.com", "ct.pinterest.com",
}

// IsAdHost reports whether host is one of our list of the major ad and
// tracker hosts (see adhosts.go), or below one of them.
func IsAdHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, suffix := range adHosts {
		if host == suffix || strings.HasSuffix(host, "."+suffix) {
			return true
		}
	}
	return false
}
