package httpapi

import (
	"context"
	"net/http"
	"reflect"
	"slices"

	"github.com/julienschmidt/httprouter"

	"github.com/sitediag/sitediag"
)

// endpoint is one operation of the API: the paths it answers at (the
// first is the spec's spelling), its handler and request type, and what
// the description (/openapi.json) says of its responses.
type endpoint struct {
	paths []string
	operationFunc
	doc operationDoc
}

// operationFunc is an operation's handler and the type it decodes the
// request body into.
type operationFunc struct {
	handle  httprouter.Handle
	request reflect.Type
}

// The error codes of the operations' families, besides commonCodes.
var (
	httpCodes = []sitediag.Code{sitediag.CodeProxyCountryUnsupported, sitediag.CodeTooManyRedirects}
	pageCodes = []sitediag.Code{sitediag.CodeProxyCountryUnsupported, sitediag.CodeBrowserUnavailable, sitediag.CodeBusy}
)

// artifactURL is the type of data that is an artifact's URL.
var artifactURL = typeOf[string]()

// endpoints are the operations, in the spec's order.
func (h *Handler) endpoints() []endpoint {
	return []endpoint{
		{[]string{"/metascraping", "/meta-scraping"}, operation(h, h.metaScrape), operationDoc{
			summary: "A page's metadata: title, description, images, icons, feeds, Open Graph, Twitter and JSON-LD.",
			meta:    typeOf[metaScrapeMeta](),
			data:    []reflect.Type{typeOf[sitediag.Metadata](), typeOf[string]()},
			codes:   slices.Concat(pageCodes, []sitediag.Code{sitediag.CodeNoMetadata, sitediag.CodeCrawlFailed}),
		}},
		{[]string{"/url2pdf"}, operation(h, h.url2PDF), operationDoc{
			summary: "A page printed to PDF; data is the PDF's URL.",
			meta:    typeOf[url2PDFMeta](), data: []reflect.Type{artifactURL},
			codes: slices.Concat(pageCodes, []sitediag.Code{sitediag.CodePDFConversionFailed}),
		}},
		{[]string{"/brand"}, operation(h, h.brand), operationDoc{
			summary: "A domain's brand: name, logos, colours, fonts, links and company facts.",
			meta:    typeOf[brandMeta](), data: []reflect.Type{fieldOf[sitediag.BrandResult]("Record")},
			codes: slices.Concat(pageCodes, []sitediag.Code{sitediag.CodeBrandFailed}),
		}},
		{[]string{"/lighthouse"}, operation(h, h.lighthouse), operationDoc{
			summary: "A Lighthouse audit; data is the HTML report's URL, meta the scores and the JSON report's URL.",
			meta:    typeOf[lighthouseMeta](), data: []reflect.Type{artifactURL},
			codes: []sitediag.Code{sitediag.CodeProxyCountryUnsupported, sitediag.CodeLighthouseUnavailable,
				sitediag.CodeBusy, sitediag.CodeLighthouseUnexpected},
		}},
		{[]string{"/brokenlink"}, operation(h, h.brokenLink), operationDoc{
			summary: "Every link of a page, checked.",
			meta:    typeOf[brokenLinkMeta](), data: []reflect.Type{fieldOf[sitediag.BrokenLinkResult]("Links")},
			extra: map[string]reflect.Type{"summary": fieldOf[sitediag.BrokenLinkResult]("Summary")},
			codes: slices.Concat(httpCodes, []sitediag.Code{sitediag.CodeBrokenLinkCheckFailed}),
		}},
		{[]string{"/tlsscan"}, operation(h, h.tlsScan), operationDoc{
			summary: "A TLS server's protocols, cipher suites, groups, certificates and known weaknesses.",
			meta:    typeOf[tlsScanMeta](), data: []reflect.Type{typeOf[sitediag.TLSScanResult]()},
			codes: []sitediag.Code{sitediag.CodeTLSHandshakeFailed, sitediag.CodeTLSScanFailed},
		}},
		{[]string{"/up"}, operation(h, h.up), operationDoc{
			summary: "Whether a site answers, and with what status.",
			meta:    typeOf[followMeta](), data: []reflect.Type{typeOf[sitediag.UpResult]()},
			codes: slices.Concat(httpCodes, []sitediag.Code{sitediag.CodeSiteStatusFailed, sitediag.CodeRedirectCheckFailed}),
		}},
		{[]string{"/redirectcheck"}, operation(h, h.redirectCheck), operationDoc{
			summary: "A URL's redirect chain, hop by hop.",
			meta:    typeOf[redirectCheckMeta](), data: []reflect.Type{fieldOf[sitediag.RedirectCheckResult]("Hops")},
			codes: slices.Concat(httpCodes, []sitediag.Code{sitediag.CodeRedirectCheckFailed}),
		}},
		{[]string{"/dnssec"}, operation(h, h.dnssec), operationDoc{
			summary: "Whether a domain's DNSSEC chain validates, delegation by delegation.",
			meta:    typeOf[dnssecMeta](), data: []reflect.Type{typeOf[sitediag.DNSSECResult]()},
			codes: []sitediag.Code{sitediag.CodeDNSSECCheckFailed, sitediag.CodeDNSSECQueryFailed, sitediag.CodeDNSSECTimeout},
		}},
		{[]string{"/dnsrecord"}, operation(h, h.dnsRecord), operationDoc{
			summary: "A name's DNS records by type.",
			meta:    typeOf[dnsRecordMeta](), data: []reflect.Type{typeOf[sitediag.DNSRecordsResult]()},
			codes: []sitediag.Code{sitediag.CodeDNSLookupFailed},
		}},
		{[]string{"/ttfb"}, operation(h, h.ttfb), operationDoc{
			summary: "Time to first byte, in milliseconds.",
			meta:    typeOf[followMeta](), data: []reflect.Type{fieldOf[sitediag.TTFBResult]("TTFB")},
			codes: slices.Concat(httpCodes, []sitediag.Code{sitediag.CodeTTFBFailed}),
		}},
		{[]string{"/loadtime"}, operation(h, h.loadTime), operationDoc{
			summary: "A page load's phases, in milliseconds.",
			meta:    typeOf[followMeta](), data: []reflect.Type{typeOf[sitediag.LoadTimeResult]()},
			codes: slices.Concat(httpCodes, []sitediag.Code{sitediag.CodeLoadTimeFailed}),
		}},
		{[]string{"/httpheader"}, operation(h, h.httpHeader), operationDoc{
			summary: "A response's header lines, in order.",
			meta:    typeOf[followMeta](), data: []reflect.Type{fieldOf[sitediag.HTTPHeaderResult]("Headers")},
			codes: slices.Concat(httpCodes, []sitediag.Code{sitediag.CodeHTTPHeaderFailed}),
		}},
		{[]string{"/httpprotocol"}, operation(h, h.httpProtocol), operationDoc{
			summary: "Which HTTP versions a site speaks.",
			meta:    typeOf[followMeta](), data: []reflect.Type{typeOf[sitediag.ProtocolSupport]()},
			codes: slices.Concat(httpCodes, []sitediag.Code{sitediag.CodeHTTPProtocolFailed}),
		}},
		{[]string{"/openport"}, operation(h, h.openPort), operationDoc{
			summary: "A host's open TCP ports, and optionally their services.",
			meta:    typeOf[openPortMeta](), data: []reflect.Type{fieldOf[sitediag.OpenPortResult]("OpenPorts")},
			extra: map[string]reflect.Type{"services": fieldOf[sitediag.OpenPortResult]("Services")},
			codes: []sitediag.Code{sitediag.CodeProxyCountryUnsupported, sitediag.CodePortScanFailed},
		}},
		{[]string{"/ping"}, operation(h, h.ping), operationDoc{
			summary: "ICMP echo round trips to a host.",
			meta:    typeOf[pingMeta](), data: []reflect.Type{typeOf[sitediag.PingResult]()},
			codes: []sitediag.Code{sitediag.CodeProxyCountryUnsupported, sitediag.CodePingFailed},
		}},
		{[]string{"/mtr"}, operation(h, h.mtr), operationDoc{
			summary: "The route to a host, with each hop's loss and latency.",
			meta:    typeOf[mtrMeta](), data: []reflect.Type{fieldOf[sitediag.MTRResult]("Hops")},
			codes: []sitediag.Code{sitediag.CodeProxyCountryUnsupported, sitediag.CodeMTRFailed},
		}},
		{[]string{"/screenshot"}, operation(h, h.screenshot), operationDoc{
			summary: "A page's screenshot; data is the image's URL.",
			meta:    typeOf[screenshotMeta](), data: []reflect.Type{artifactURL},
			extra: map[string]reflect.Type{"inline": typeOf[screenshotInline]()},
			codes: slices.Concat(pageCodes, []sitediag.Code{sitediag.CodeScreenshotFailed}),
		}},
		{[]string{"/web-scraping", "/webscraping"}, operation(h, h.webScrape), operationDoc{
			summary: "A page's content in up to three formats (HTML, Markdown, text, JSON and their -llm forms).",
			meta:    typeOf[webScrapeMeta](),
			// data is the formats by name; with one format, that format's
			// content (a string, or json's object or array); with
			// fileOutput, the file's URL.
			data:  []reflect.Type{fieldOf[sitediag.WebScrapeResult]("Content"), typeOf[string](), typeOf[[]any]()},
			codes: slices.Concat(pageCodes, []sitediag.Code{sitediag.CodeCrawlFailed}),
		}},
		{[]string{"/mixedcontent"}, operation(h, h.mixedContent), operationDoc{
			summary: "The insecure (http:) resources a secure page loads or links.",
			meta:    typeOf[mixedContentMeta](), data: []reflect.Type{typeOf[sitediag.MixedContentResult]()},
			codes: slices.Concat(pageCodes, []sitediag.Code{sitediag.CodeMixedContentCheckFailed}),
		}},
	}
}

// operation decodes the request body into Req, runs the operation with
// the request's test record and writes the envelope or the error.
func operation[Req any](h *Handler, run func(ctx context.Context, req *Req, test testRecord) (*response, error)) operationFunc {
	handle := func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		var req Req
		if err := decode(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
		resp, err := run(r.Context(), &req, testRecord{ID: requestID(r.Context())})
		if err != nil {
			writeError(w, r, err)
			return
		}
		h.writeSuccess(w, r, resp)
	}
	return operationFunc{handle: handle, request: reflect.TypeFor[Req]()}
}
