package httpapi

import "github.com/sitediag/sitediag"

// requestBody is the body of the HTTP-level operations (/up, /ttfb,
// /loadtime, /httpheader, /httpprotocol, /brokenlink): the url and the
// options they share.
type requestBody struct {
	URL string `json:"url"`
	sitediag.RequestOptions
}

// followMeta is the meta of the HTTP-level operations: the target, the
// proxy country, whether redirects were followed and the URL they led to.
type followMeta struct {
	URL            string     `json:"url"`
	ProxyCountry   string     `json:"proxyCountry"`
	FollowRedirect bool       `json:"followRedirect"`
	RedirectedURL  string     `json:"redirectedURL"`
	Test           testRecord `json:"test"`
}

// followMetaOf is the meta of an HTTP-level result.
func followMetaOf(info sitediag.RequestInfo, test testRecord) followMeta {
	return followMeta{URL: info.URL, ProxyCountry: info.ProxyCountry, FollowRedirect: info.FollowRedirect,
		RedirectedURL: info.RedirectedURL, Test: test}
}
