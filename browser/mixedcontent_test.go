package browser

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sitediag/sitediag/content"
)

func TestClassifyMixedContent(t *testing.T) {
	page, _ := url.Parse("https://site.test/")
	requests := []Request{
		{URL: "https://site.test/", Type: "Document"},                                           // the page itself
		{URL: "https://cdn.test/app.js", Type: "Script"},                                        // secure
		{URL: "https://cdn.test/app.js", Type: "Script"},                                        // seen twice, listed once
		{URL: "wss://live.test/feed", Type: "WebSocket"},                                        // secure
		{URL: "http://cdn.test/old.js", Type: "Script", Blocked: true, Reason: "mixed-content"}, // blocked active
		{URL: "http://img.test/a.png", Type: "Image"},                                           // passive, loaded
		{URL: "http://frame.test/", Type: "Document"},                                           // a frame's document
		{URL: "http://api.test/x", Type: "XHR", Blocked: true, Reason: "net::ERR_FAILED"},       // failed, not as mixed content
		{URL: "ws://live.test/old", Type: "WebSocket"},
		{URL: "http://events.test/", Type: "EventSource"},
		{URL: "http://odd.test/", Type: "Ping"},
		{URL: "data:image/png;base64,AAAA", Type: "Image"}, // neither
	}
	issues := []MixedContentIssue{
		{URL: "http://img.test/a.png", ResourceType: "Image", Resolution: "MixedContentAutomaticallyUpgraded"},
		{URL: "http://form.test/post", ResourceType: "Form", Resolution: "MixedContentWarning"},
		{URL: "http://worker.test/w.js", ResourceType: "ServiceWorker", Resolution: "MixedContentBlocked"},
		{URL: "http://media.test/a.mp3", ResourceType: "Audio", Resolution: "MixedContentAutomaticallyUpgraded"},
		{URL: "http://plugin.test/x.swf", ResourceType: "PluginResource", Resolution: "MixedContentBlocked"},
		{URL: "http://beacon.test/b", ResourceType: "Beacon", Resolution: "MixedContentBlocked"},
		{URL: "http://xsl.test/t.xsl", ResourceType: "XSLT", Resolution: "MixedContentBlocked"},
		{URL: "http://strange.test/", ResourceType: "Unknown", Resolution: "MixedContentWarning"},
	}
	refs := []content.Reference{
		{URL: "http://img.test/a.png", Kind: "image"},     // also requested: the browser's item stays
		{URL: "http://lazy.test/b.png", Kind: "image"},    // only named
		{URL: "http://form.test/other", Kind: "form"},     // only named, active
		{URL: "https://secure.test/c.png", Kind: "image"}, // secure, not an item
		{URL: "HTTP://upper.test/i.ico", Kind: "icon"},    // scheme in capitals
	}
	got := ClassifyMixedContent(page, requests, issues, refs)
	want := MixedContent{
		Secure: []string{"https://cdn.test/app.js", "wss://live.test/feed"},
		Items: []MixedContentItem{
			{URL: "http://cdn.test/old.js", Type: "script", Active: true, Blocked: true, Source: "browser"},
			{URL: "http://img.test/a.png", Type: "image", Upgraded: true, Source: "browser"},
			{URL: "http://frame.test/", Type: "iframe", Active: true, Source: "browser"},
			{URL: "http://api.test/x", Type: "xhr", Active: true, Source: "browser"},
			{URL: "ws://live.test/old", Type: "websocket", Active: true, Source: "browser"},
			{URL: "http://events.test/", Type: "fetch", Active: true, Source: "browser"},
			{URL: "http://odd.test/", Type: "other", Source: "browser"},
			{URL: "http://form.test/post", Type: "form", Active: true, Source: "browser"},
			{URL: "http://worker.test/w.js", Type: "script", Active: true, Blocked: true, Source: "browser"},
			{URL: "http://media.test/a.mp3", Type: "media", Upgraded: true, Source: "browser"},
			{URL: "http://plugin.test/x.swf", Type: "object", Active: true, Blocked: true, Source: "browser"},
			{URL: "http://beacon.test/b", Type: "fetch", Active: true, Blocked: true, Source: "browser"},
			{URL: "http://xsl.test/t.xsl", Type: "stylesheet", Active: true, Blocked: true, Source: "browser"},
			{URL: "http://strange.test/", Type: "other", Source: "browser"},
			{URL: "http://lazy.test/b.png", Type: "image", Source: "html"},
			{URL: "http://form.test/other", Type: "form", Active: true, Source: "html"},
			{URL: "HTTP://upper.test/i.ico", Type: "icon", Source: "html"},
		},
	}
	for _, item := range want.Items {
		want.Insecure = append(want.Insecure, item.URL)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ClassifyMixedContent (-want +got):\n%s", diff)
	}
}

func TestClassifyMixedContentEmpty(t *testing.T) {
	page, _ := url.Parse("https://site.test/")
	got := ClassifyMixedContent(page, nil, nil, nil)
	if got.Insecure == nil || got.Secure == nil || got.Items == nil {
		t.Errorf("got %#v, want empty lists, not nil (the API sends [])", got)
	}
}
