package browser

import (
	"context"
	"net/url"
	"strings"

	"github.com/go-rod/rod/lib/proto"
	"github.com/sitediag/sitediag/net/netx"
)

// pausedDocuments are the requests a job behind a netx.AuthProxy pauses, so
// that its proxy's challenge to them reaches the job: those of
// documents. Chromium then keeps the credentials for the job's browser
// context and sends them with every later request to the proxy (frames
// in other processes, workers and tunnels included) without a
// challenge.
var pausedDocuments = []*proto.FetchRequestPattern{{
	URLPattern:   "*",
	ResourceType: proto.NetworkResourceTypeDocument,
	RequestStage: proto.FetchRequestStageRequest,
}}

// proxyAuth answers a job's netx.AuthProxy's challenges. Only the job's
// event loop uses it.
type proxyAuth struct {
	origin             string // the proxy's, as Chromium names a challenger
	username, password string
	// answered are the requests given the credentials once: a second
	// challenge to one means they were refused, and is not answered
	// again.
	answered map[proto.FetchRequestID]bool
}

// newProxyAuth returns the answerer for p's challenges; nil when p
// demands no credentials.
func newProxyAuth(p netx.Proxy) *proxyAuth {
	ap, ok := p.(netx.AuthProxy)
	if !ok {
		return nil
	}
	a := &proxyAuth{origin: origin(p.URL()), answered: map[proto.FetchRequestID]bool{}}
	a.username, a.password = ap.Credentials()
	return a
}

// origin is rawURL's scheme://host:port in lower case, the form of a
// challenge's origin.
func origin(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// enable has the page pause its documents' requests and report the
// challenges to them.
func (a *proxyAuth) enable(ctx context.Context, j *Job) error {
	return proto.FetchEnable{Patterns: pausedDocuments, HandleAuthRequests: true}.Call(j.page.Context(ctx))
}

// answer is the response to a challenge: the credentials for the job's
// proxy's first challenge to a request. A target's own login (401) is
// cancelled, which shows its response as a browser with no one to ask
// does, and is never given the credentials; a proxy that refuses them
// (or any other proxy) is not answered, which fails the request.
func (a *proxyAuth) answer(e *proto.FetchAuthRequired) *proto.FetchAuthChallengeResponse {
	c := e.AuthChallenge
	switch {
	case c == nil || c.Source != proto.FetchAuthChallengeSourceProxy:
		return &proto.FetchAuthChallengeResponse{Response: proto.FetchAuthChallengeResponseResponseCancelAuth}
	case a == nil || strings.ToLower(c.Origin) != a.origin || a.answered[e.RequestID]:
		return &proto.FetchAuthChallengeResponse{Response: proto.FetchAuthChallengeResponseResponseDefault}
	}
	a.answered[e.RequestID] = true
	return &proto.FetchAuthChallengeResponse{
		Response: proto.FetchAuthChallengeResponseResponseProvideCredentials,
		Username: a.username,
		Password: a.password,
	}
}
