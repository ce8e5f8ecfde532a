package httpapi

import (
	"context"
	"net/http"

	"github.com/julienschmidt/httprouter"
)

// operations maps each POST path to its handler.
func (h *Handler) operations() map[string]httprouter.Handle {
	return map[string]httprouter.Handle{
		"/up":            operation(h, h.up),
		"/redirectcheck": operation(h, h.redirectCheck),
		"/ttfb":          operation(h, h.ttfb),
		"/loadtime":      operation(h, h.loadTime),
		"/httpheader":    operation(h, h.httpHeader),
		"/httpprotocol":  operation(h, h.httpProtocol),
		"/brokenlink":    operation(h, h.brokenLink),
		"/dnsrecord":     operation(h, h.dnsRecord),
		"/dnssec":        operation(h, h.dnssec),
		"/openport":      operation(h, h.openPort),
		"/ping":          operation(h, h.ping),
		"/mtr":           operation(h, h.mtr),
		"/tlsscan":       operation(h, h.tlsScan),
		"/screenshot":    operation(h, h.screenshot),
		"/url2pdf":       operation(h, h.url2PDF),
		"/metascraping":  operation(h, h.metaScrape),
		"/meta-scraping": operation(h, h.metaScrape),
		"/web-scraping":  operation(h, h.webScrape),
		"/webscraping":   operation(h, h.webScrape),
		"/mixedcontent":  operation(h, h.mixedContent),
		"/lighthouse":    operation(h, h.lighthouse),
		"/brand":         operation(h, h.brand),
	}
}

// operation decodes the request body into Req, runs the operation with
// the request's test record and writes the envelope or the error.
func operation[Req any](h *Handler, run func(ctx context.Context, req *Req, test testRecord) (*response, error)) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		var req Req
		if err := decode(w, r, &req); err != nil {
			h.writeError(w, r, err)
			return
		}
		resp, err := run(r.Context(), &req, testRecord{ID: requestID(r.Context())})
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		h.writeSuccess(w, r, resp)
	}
}
