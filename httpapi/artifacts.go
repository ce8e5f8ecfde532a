package httpapi

import (
	"context"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/sitediag/sitediag"
)

// urlSigner is an artifact store that can hand out a URL of its own for
// an artifact, valid without credentials for a while (a pre-signed
// bucket URL).
type urlSigner interface {
	SignedURL(ctx context.Context, name string) (string, error)
}

// signer returns the store's urlSigner when PresignArtifacts asks for
// one.
func (h *Handler) signer() (urlSigner, bool) {
	if !h.opts.PresignArtifacts {
		return nil, false
	}
	s, ok := h.opts.Artifacts.(urlSigner)
	return s, ok
}

// artifact serves GET /artifacts/:name without a key: the 128-bit name is
// the capability. The artifact is streamed from the store, or with
// PresignArtifacts the answer is a redirect to a fresh signed URL.
func (h *Handler) artifact(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	name := ps.ByName("name")
	notFound := sitediag.NewError(CodeNotFound, nil, "no such artifact")
	if h.opts.Artifacts == nil {
		writeError(w, r, notFound)
		return
	}
	if s, ok := h.signer(); ok {
		// Open checks that the artifact exists and has not expired.
		f, _, err := h.opts.Artifacts.Open(r.Context(), name)
		if err != nil {
			writeError(w, r, notFound)
			return
		}
		f.Close()
		u, err := s.SignedURL(r.Context(), name)
		if err != nil {
			writeError(w, r, sitediag.NewError(sitediag.CodeInternal, err, "the artifact link could not be signed"))
			return
		}
		http.Redirect(w, r, u, http.StatusFound)
		return
	}
	f, modTime, err := h.opts.Artifacts.Open(r.Context(), name)
	if err != nil {
		writeError(w, r, notFound)
		return
	}
	defer f.Close()
	policy := contentPolicy
	ct := mime.TypeByExtension(filepath.Ext(name))
	if filepath.Ext(name) == "."+lighthouseReportExt {
		ct = "text/html; charset=utf-8"
		if policy, err = lighthouseReportPolicy(f); err == nil {
			_, err = f.Seek(0, io.SeekStart)
		}
		if err != nil {
			writeError(w, r, sitediag.NewError(sitediag.CodeInternal, err, "the artifact could not be read"))
			return
		}
	}
	if ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", policy)
	http.ServeContent(w, r, name, modTime, f)
}

// storeArtifact puts body in the store and returns its absolute URL,
// built on the public base of the request ctx belongs to (or signed by
// the store, with PresignArtifacts). An error that
// body's reads return as a *sitediag.Error comes back wrapped, so the
// operation's own code reaches the caller.
func (h *Handler) storeArtifact(ctx context.Context, ext string, body io.Reader) (string, error) {
	if h.opts.Artifacts == nil {
		return "", sitediag.NewError(sitediag.CodeInternal, nil, "no artifact store is configured (httpapi.Options.Artifacts)")
	}
	c := &counted{Reader: body}
	name, err := h.opts.Artifacts.Put(ctx, ext, c)
	if err != nil {
		return "", err
	}
	h.metrics.artifacts.Inc()
	h.metrics.artifactBytes.Add(float64(c.n.Load()))
	if s, ok := h.signer(); ok {
		return s.SignedURL(ctx, name)
	}
	return requestInfoOf(ctx).base + "/artifacts/" + name, nil
}

// publicBase is Options.PublicURL, or the scheme and Host the request came
// in on with the prefix the handler is mounted under.
func (h *Handler) publicBase(r *http.Request) string {
	if h.baseURL != "" {
		return h.baseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + mountPrefix(r)
}

// mountPrefix is the path the handler is mounted under ("/diag" behind
// http.StripPrefix("/diag", …)): what the path the request was sent to
// has before the path the handler routes. "" when it is mounted at the
// root, or the original path is not known.
func mountPrefix(r *http.Request) string {
	if path, _, _ := strings.Cut(r.RequestURI, "?"); path == r.URL.EscapedPath() {
		return "" // routed as sent, as when mounted at the root
	}
	sent, err := url.ParseRequestURI(r.RequestURI)
	if err != nil {
		return ""
	}
	prefix, ok := strings.CutSuffix(sent.EscapedPath(), r.URL.EscapedPath())
	if !ok {
		return ""
	}
	return prefix
}
