package browser

import (
	"context"
	"slices"

	"github.com/go-rod/rod/lib/proto"
)

// maxRecorded bounds the requests and issues a job records.
const maxRecorded = 5000

// Request is a request the page made, as Chromium reported it.
type Request struct {
	URL string
	// Type is Chromium's resource type: Document, Stylesheet, Image,
	// Media, Font, Script, XHR, Fetch, WebSocket, Manifest, Other, ….
	Type string
	// Blocked says Chromium refused to send it; Reason then is its
	// blocked reason ("mixed-content", …). A request that failed
	// otherwise has Chromium's error text as Reason.
	Blocked bool
	Reason  string
}

// MixedContentIssue is a mixed-content issue Chromium raised for the
// page (see EnableIssues).
type MixedContentIssue struct {
	// URL is the insecure URL.
	URL string
	// ResourceType is Chromium's mixed-content resource type (Image,
	// Script, Stylesheet, Form, …).
	ResourceType string
	// Resolution is MixedContentBlocked, MixedContentAutomaticallyUpgraded
	// or MixedContentWarning.
	Resolution string
}

// EnableIssues makes Chromium report the page's issues (the Audits
// domain), so that MixedContentIssues sees them. Call it before Load.
func (j *Job) EnableIssues(ctx context.Context) error {
	if err := (proto.AuditsEnable{}).Call(j.page.Context(ctx)); err != nil {
		return j.fail(ctx, "enabling issue reports", err)
	}
	return nil
}

// Requests returns the requests the page made so far, in order (at most
// 5000).
func (j *Job) Requests() []Request {
	var out []Request
	j.state.read(func(s *pageData) { out = slices.Clone(s.requests) })
	return out
}

// MixedContentIssues returns the mixed-content issues Chromium raised so
// far (at most 5000).
func (j *Job) MixedContentIssues() []MixedContentIssue {
	var out []MixedContentIssue
	j.state.read(func(s *pageData) { out = slices.Clone(s.issues) })
	return out
}

// record notes a request; a redirect keeps its id and updates its URL.
func (s *pageData) record(id proto.NetworkRequestID, url, typ string) {
	if i, ok := s.byID[id]; ok {
		s.requests[i].URL = url
		return
	}
	if len(s.requests) >= maxRecorded {
		return
	}
	s.byID[id] = len(s.requests)
	s.requests = append(s.requests, Request{URL: url, Type: typ})
}

// failed notes why a request failed.
func (s *pageData) failed(id proto.NetworkRequestID, blockedReason, errorText string) {
	i, ok := s.byID[id]
	if !ok {
		return
	}
	if blockedReason != "" {
		s.requests[i].Blocked, s.requests[i].Reason = true, blockedReason
		return
	}
	s.requests[i].Reason = errorText
}
