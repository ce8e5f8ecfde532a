package content

import (
	"net/url"
	"regexp"
	"strings"
)

// repeatedSlashes are the runs of slashes a path may hold by mistake
// ("/uploads//2024/a.jpg").
var repeatedSlashes = regexp.MustCompile(`/{2,}`)

// trackingParam is a query parameter that only tracks a visit
// (utm_source, utm_medium, …).
var trackingParam = regexp.MustCompile(`(?i)^utm_\w`)

// normalURL is an absolute http(s) URL in the form metascraper gives
// the URLs it returns (normalize-url's rules as it applies them): the
// host in lower case without a trailing dot or the scheme's default
// port, runs of slashes in the path made one, and utm_ tracking
// parameters dropped. The rest of the query, its order included, and
// the fragment are kept as written. Any other value is returned as it
// is.
func normalURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return raw
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // an IPv6 literal
	}
	if port := u.Port(); port != "" && !isDefaultPort(u.Scheme, port) {
		host += ":" + port
	}
	u.Host = host
	if p := u.EscapedPath(); strings.Contains(p, "//") {
		p = repeatedSlashes.ReplaceAllString(p, "/")
		if path, err := url.PathUnescape(p); err == nil {
			u.Path, u.RawPath = path, p
		}
	}
	if u.RawQuery != "" {
		var kept []string
		for _, pair := range strings.Split(u.RawQuery, "&") {
			key, _, _ := strings.Cut(pair, "=")
			if k, err := url.QueryUnescape(key); err != nil || !trackingParam.MatchString(k) {
				kept = append(kept, pair)
			}
		}
		u.RawQuery = strings.Join(kept, "&")
	}
	return u.String()
}

// isDefaultPort reports whether port is the scheme's, which a URL
// leaves out.
func isDefaultPort(scheme, port string) bool {
	return scheme == "http" && port == "80" || scheme == "https" && port == "443"
}
