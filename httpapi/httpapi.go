// Package httpapi serves the Website Diagnostics HTTP API on top of a
// sitediag.Client: it decodes the documented JSON, calls the client and
// writes the envelope. It holds no diagnosis logic.
//
// The handler is mountable anywhere:
//
//	mux.Handle("/diag/", http.StripPrefix("/diag", httpapi.New(client, opts)))
//
// What surrounds the operations is middleware, func(http.Handler)
// http.Handler, to compose as the standard library's http.StripPrefix:
// RequestID, Logging, Handler.Instrument (Prometheus metrics), and
// package middleware's CORS, APIKeys, RateLimit and Chain, with
// http.MaxBytesHandler. New's Handler is the
// default stack; Handler.Routes is the operations alone, for a service
// that brings its own (Options.Authorize puts its authentication in
// front of the keyed routes).
//
// In the default stack, checks run in this order: a CORS preflight from
// an allowed origin (Options.CORSOrigins) is answered first; then route
// (404, 405), key (401), the key's rate limit (429), Content-Type (415),
// size (413), JSON and parameters (400), then the operation, whose own
// errors (503 for an unavailable or busy browser among them) come from
// the sitediag client.
package httpapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/artifact"
	"github.com/sitediag/sitediag/blobstore"
	"github.com/sitediag/sitediag/httpapi/middleware"
)

// maxBodyBytes caps a request body.
const maxBodyBytes = 64 << 10

// Options configure the handler. Only APIKeys is required, unless
// Authorize is set.
type Options struct {
	// Authorize wraps the keyed routes (the operations and /health…;
	// not /livez, /artifacts/ or /openapi.json): the embedding service's
	// own authentication, and rate limit if it wants one. If nil,
	// middleware.APIKeys(APIKeys) then middleware.RateLimit with
	// RateLimit and RateLimiter, refusing in the API's envelope.
	Authorize func(http.Handler) http.Handler
	// APIKeys are the accepted x-api-key values when Authorize is nil.
	// They are hashed when the handler is built and never logged. With
	// no key every keyed request is refused.
	APIKeys []string
	// RateLimit is the number of requests per second each key may make,
	// with a burst of twice that. If zero, middleware.DefaultRateLimit;
	// negative means no limit.
	RateLimit float64
	// PublicURL is the absolute base URL the handler is reached at,
	// mount prefix included (https://diag.example.com/diag); artifact
	// URLs are built on it. If empty, they are built from the request's
	// scheme, Host and the prefix the handler is mounted under (the
	// request's path before the path the handler routes, as
	// http.StripPrefix leaves it).
	PublicURL string
	// RateLimiter, if set, enforces RateLimit instead of the in-process
	// limiter, such as one shared by every replica
	// (redislimit.Limiter, built with the same rate and
	// middleware.RateBurst).
	// When it fails, the in-process limiter decides that request: the
	// handler fails open to per-replica limits, and logs it.
	RateLimiter middleware.RateLimiter
	// Artifacts stores generated files (screenshots, PDFs, reports):
	// blobstore.OpenDir for a directory, blobstore.Open for a bucket. If
	// nil, the handler opens a directory store of its own in
	// <os.TempDir()>/sitediag/artifacts, keeping them artifact.DefaultTTL;
	// when that directory cannot be made, an operation that would hand
	// out an artifact link fails with INTERNAL_ERROR.
	Artifacts artifact.Store
	// PresignArtifacts, when Artifacts can sign URLs (it has a
	// SignedURL method, as blobstore.Store does), makes artifact links
	// pre-signed URLs of the bucket, fetched from it directly; GET
	// /artifacts/<name> then redirects to a fresh one. If false,
	// artifacts are streamed through /artifacts/.
	PresignArtifacts bool
	// Backends are shared engines that /health/service reports on
	// besides the client's dependencies and the artifact store (a Redis
	// behind RateLimiter and the brand cache, say).
	Backends []Backend
	// Logger receives one line per request. If nil, slog.Default().
	Logger *slog.Logger
	// Now returns the current time; if nil, time.Now. Tests inject it.
	Now func() time.Time
	// CORSOrigins are the browser origins (https://app.example) allowed
	// to call the API across origins, "*" for any. If empty, no CORS
	// headers are sent, so browsers keep other origins out.
	CORSOrigins []string
}

// Handler serves the API. Build it with New.
type Handler struct {
	client  *sitediag.Client
	opts    Options
	router  *httprouter.Router
	stack   http.Handler // the default middleware around routes
	metrics *metrics
	// served are the routes' paths, for the metrics' operation label.
	served map[string]bool
	// description is what /openapi.json serves, its servers aside,
	// read on the first request for it.
	description func() map[string]json.RawMessage
	log         *slog.Logger
	now         func() time.Time
	baseURL     string
}

// New returns the API handler for client.
func New(client *sitediag.Client, opts Options) *Handler {
	h := &Handler{
		client:  client,
		opts:    opts,
		log:     opts.Logger,
		now:     opts.Now,
		baseURL: strings.TrimSuffix(opts.PublicURL, "/"),
		metrics: newMetrics(client),
		served:  map[string]bool{},
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.opts.Artifacts == nil {
		store, err := blobstore.OpenDir(filepath.Join(os.TempDir(), "sitediag", "artifacts"), blobstore.Options{})
		if err != nil {
			h.log.Error("no artifact store", "error", err)
		} else {
			h.opts.Artifacts = store
		}
	}
	authorize := opts.Authorize
	if authorize == nil {
		keys := middleware.APIKeys(opts.APIKeys, refuse)
		limit := middleware.RateLimit(middleware.RateLimitOptions{PerSecond: opts.RateLimit, Limiter: opts.RateLimiter,
			Logger: h.log, Now: h.now, Refuse: refuse})
		authorize = func(next http.Handler) http.Handler { return keys(limit(next)) }
	}
	h.router = h.routes(authorize)
	h.description = sync.OnceValue(openAPIMembers)
	h.stack = middleware.Chain(h.Routes(), RequestID(h.now), Logging(h.log), h.Instrument, middleware.CORS(opts.CORSOrigins))
	return h
}

// routes builds the router, with authorize around the keyed routes.
func (h *Handler) routes(authorize func(http.Handler) http.Handler) *httprouter.Router {
	r := httprouter.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = true
	r.NotFound = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		writeError(w, req, sitediag.NewError(CodeNotFound, nil, "no operation at %s", req.URL.Path))
	})
	r.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		writeError(w, req, sitediag.NewError(CodeMethodNotAllowed, nil,
			"%s is not allowed here; allowed: %s", req.Method, w.Header().Get("Allow")))
	})
	r.PanicHandler = func(w http.ResponseWriter, req *http.Request, v any) {
		h.log.Error("panic", "id", requestID(req.Context()), "panic", v)
		writeError(w, req, sitediag.NewError(sitediag.CodeInternal, nil, "internal error"))
	}

	// Every GET answers HEAD too: load balancers and download tools use it.
	get := func(path string, handle httprouter.Handle) {
		r.GET(path, handle)
		r.HEAD(path, handle)
		h.served[path] = true
	}
	get("/livez", h.livez)
	get("/artifacts/:name", h.artifact)
	// keyed puts authorize in front of a route; the route's parameters
	// travel in the request's context.
	keyed := func(handle httprouter.Handle) http.Handler {
		return authorize(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			handle(w, req, httprouter.ParamsFromContext(req.Context()))
		}))
	}
	keyedGet := func(path string, handle httprouter.Handle) {
		route := keyed(handle)
		r.Handler(http.MethodGet, path, route)
		r.Handler(http.MethodHead, path, route)
		h.served[path] = true
	}
	keyedGet("/health", h.health)
	keyedGet("/health/service", h.serviceHealth)
	get("/openapi.json", h.openAPI)
	for _, ep := range h.endpoints() {
		op := http.MaxBytesHandler(keyed(ep.handle), maxBodyBytes)
		for _, path := range ep.paths {
			r.Handler(http.MethodPost, path, op)
			h.served[path] = true
		}
	}
	return r
}

// Metrics returns the handler's Prometheus collector: requests by
// operation, status and API code, their durations, requests in flight,
// artifacts stored and their bytes, and from the client the browser
// pool's slots, jobs, queue, starts, crashes and busy rejections and the
// SSRF policy's refusals by address class. Register it in the
// embedding service's registry; examples/server serves it at /metrics
// on SITEDIAG_METRICS_ADDR.
func (h *Handler) Metrics() prometheus.Collector { return h.metrics }

// ServeHTTP serves r through the default stack: RequestID, Logging,
// Instrument and CORS around Routes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.stack.ServeHTTP(w, r) }

// Routes returns the API's routes without the default stack: the
// operations and /health behind Options.Authorize (by default the API
// keys and the rate limit), /livez, /artifacts/ and /openapi.json. A
// request that has no id yet (RequestID) gets one for meta.test.id.
func (h *Handler) Routes() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, ri := withRequestInfo(r, h.now)
		ri.base = h.publicBase(r)
		if ri.log == nil {
			ri.log = h.log
		}
		h.router.ServeHTTP(w, r)
	})
}

type requestKey struct{}

// requestInfo is what the middleware and the routes know of a request.
type requestInfo struct {
	id    string
	start time.Time
	// log receives the warnings of failed requests.
	log *slog.Logger
	// base is the absolute URL the handler is reached at, for artifact
	// links.
	base string
	// code is the API code of an error answer, for the metrics.
	code string
}

func requestInfoOf(ctx context.Context) *requestInfo {
	if ri, ok := ctx.Value(requestKey{}).(*requestInfo); ok {
		return ri
	}
	return &requestInfo{}
}

func requestID(ctx context.Context) string { return requestInfoOf(ctx).id }

func (h *Handler) livez(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok\n"))
}
