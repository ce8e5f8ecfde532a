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

// operationDoc is what the description says of an operation besides its
// request body, which is the handler's request type.
type operationDoc struct {
	summary string
	// meta is the type of meta; data the types data can have (one of
	// them, for an operation whose data depends on its options).
	meta reflect.Type
	data []reflect.Type
	// extra are the envelope's members besides meta and data, such as
	// /brokenlink's summary, with their types; they are optional.
	extra map[string]reflect.Type
	// codes are the operation's own error codes, besides those every
	// operation can answer.
	codes []sitediag.Code
}

// typeOf is T's reflect.Type.
func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// fieldOf is the type of T's field name, so that the description names
// a result's member rather than repeating its type.
func fieldOf[T any](name string) reflect.Type {
	f, ok := reflect.TypeFor[T]().FieldByName(name)
	if !ok {
		panic("httpapi: " + reflect.TypeFor[T]().String() + " has no field " + name)
	}
	return f.Type
}

// artifactURL is the type of data that is an artifact's URL.
var artifactURL = typeOf[string]()

// endpoints are the operations, in the spec's order.
func (h *Handler) endpoints() []endpoint {
	return []endpoint{
		{[]string{"/metascraping", "/meta-scraping"}, op(h, (*sitediag.Client).MetaScrape, h.metaScrape), operationDoc{
			summary: "A page's metadata: title, description, images, icons, feeds, Open Graph, Twitter and JSON-LD.",
			meta:    typeOf[metaScrapeMeta](),
			data:    []reflect.Type{typeOf[sitediag.Metadata](), typeOf[string]()},
			codes:   slices.Concat(pageCodes, []sitediag.Code{sitediag.CodeNoMetadata, sitediag.CodeCrawlFailed}),
		}},
		{[]string{"/url2pdf"}, op(h, (*sitediag.Client).URL2PDF, h.url2PDF), operationDoc{
			summary: "A page printed to PDF; data is the PDF's URL.",
			meta:    typeOf[url2PDFMeta](), data: []reflect.Type{artifactURL},
			codes: slices.Concat(pageCodes, []sitediag.Code{sitediag.CodePDFConversionFailed}),
		}},
		{[]string{"/brand"}, op(h, (*sitediag.Client).Brand, h.brand), operationDoc{
			summary: "A domain's brand: name, logos, colours, fonts, links and company facts.",
			meta:    typeOf[brandMeta](), data: []reflect.Type{fieldOf[sitediag.BrandResult]("Record")},
			codes: slices.Concat(pageCodes, []sitediag.Code{sitediag.CodeBrandFailed}),
		}},
		{[]string{"/lighthouse"}, op(h, (*sitediag.Client).Lighthouse, h.lighthouse), operationDoc{
			summary: "A Lighthouse audit; data is the HTML report's URL, meta the scores and the JSON report's URL.",
			meta:    typeOf[lighthouseMeta](), data: []reflect.Type{artifactURL},
			codes: []sitediag.Code{sitediag.CodeProxyCountryUnsupported, sitediag.CodeLighthouseUnavailable,
				sitediag.CodeBusy, sitediag.CodeLighthouseUnexpected},
		}},
		{[]string{"/brokenlink"}, op(h, (*sitediag.Client).BrokenLink, h.brokenLink), operationDoc{
			summary: "Every link of a page, checked.",
			meta:    typeOf[brokenLinkMeta](), data: []reflect.Type{fieldOf[sitediag.BrokenLinkResult]("Links")},
			extra: map[string]reflect.Type{"summary": fieldOf[sitediag.BrokenLinkResult]("Summary")},
			codes: slices.Concat(httpCodes, []sitediag.Code{sitediag.CodeBrokenLinkCheckFailed}),
		}},
		{[]string{"/tlsscan"}, op(h, (*sitediag.Client).TLSScan, h.tlsScan), operationDoc{
			summary: "A TLS server's protocols, cipher suites, groups, certificates and known weaknesses.",
			meta:    typeOf[tlsScanMeta](), data: []reflect.Type{typeOf[sitediag.TLSScanResult]()},
			codes: []sitediag.Code{sitediag.CodeTLSHandshakeFailed, sitediag.CodeTLSScanFailed},
		}},
		{[]string{"/up"}, op(h, (*sitediag.Client).Up, h.up), operationDoc{
			summary: "Whether a site answers, and with what status.",
			meta:    typeOf[followMeta](), data: []reflect.Type{typeOf[sitediag.UpResult]()},
			codes: slices.Concat(httpCodes, []sitediag.Code{sitediag.CodeSiteStatusFailed, sitediag.CodeRedirectCheckFailed}),
		}},
		{[]string{"/redirectcheck"}, op(h, (*sitediag.Client).RedirectCheck, h.redirectCheck), operationDoc{
			summary: "A URL's redirect chain, hop by hop.",
			meta:    typeOf[redirectCheckMeta](), data: []reflect.Type{fieldOf[sitediag.RedirectCheckResult]("Hops")},
			codes: slices.Concat(httpCodes, []sitediag.Code{sitediag.CodeRedirectCheckFailed}),
		}},
		{[]string{"/dnssec"}, op(h, (*sitediag.Client).DNSSEC, h.dnssec), operationDoc{
			summary: "Whether a domain's DNSSEC chain validates, delegation by delegation.",
			meta:    typeOf[hostMeta](), data: []reflect.Type{typeOf[sitediag.DNSSECResult]()},
			codes: []sitediag.Code{sitediag.CodeDNSSECCheckFailed, sitediag.CodeDNSSECQueryFailed, sitediag.CodeDNSSECTimeout},
		}},
		{[]string{"/dnsrecord"}, op(h, (*sitediag.Client).DNSRecords, h.dnsRecord), operationDoc{
			summary: "A name's DNS records by type.",
			meta:    typeOf[dnsRecordMeta](), data: []reflect.Type{typeOf[sitediag.DNSRecordsResult]()},
			codes: []sitediag.Code{sitediag.CodeDNSLookupFailed},
		}},
		{[]string{"/ttfb"}, op(h, (*sitediag.Client).TTFB, h.ttfb), operationDoc{
			summary: "Time to first byte, in milliseconds.",
			meta:    typeOf[followMeta](), data: []reflect.Type{fieldOf[sitediag.TTFBResult]("TTFB")},
			codes: slices.Concat(httpCodes, []sitediag.Code{sitediag.CodeTTFBFailed}),
		}},
		{[]string{"/loadtime"}, op(h, (*sitediag.Client).LoadTime, h.loadTime), operationDoc{
			summary: "A page load's phases, in milliseconds.",
			meta:    typeOf[followMeta](), data: []reflect.Type{typeOf[sitediag.LoadTimeResult]()},
			codes: slices.Concat(httpCodes, []sitediag.Code{sitediag.CodeLoadTimeFailed}),
		}},
		{[]string{"/httpheader"}, op(h, (*sitediag.Client).HTTPHeader, h.httpHeader), operationDoc{
			summary: "A response's header lines, in order.",
			meta:    typeOf[followMeta](), data: []reflect.Type{fieldOf[sitediag.HTTPHeaderResult]("Headers")},
			codes: slices.Concat(httpCodes, []sitediag.Code{sitediag.CodeHTTPHeaderFailed}),
		}},
		{[]string{"/httpprotocol"}, op(h, (*sitediag.Client).HTTPProtocol, h.httpProtocol), operationDoc{
			summary: "Which HTTP versions a site speaks.",
			meta:    typeOf[followMeta](), data: []reflect.Type{typeOf[sitediag.ProtocolSupport]()},
			codes: slices.Concat(httpCodes, []sitediag.Code{sitediag.CodeHTTPProtocolFailed}),
		}},
		{[]string{"/openport"}, op(h, (*sitediag.Client).OpenPort, h.openPort), operationDoc{
			summary: "A host's open TCP ports, and optionally their services.",
			meta:    typeOf[openPortMeta](), data: []reflect.Type{fieldOf[sitediag.OpenPortResult]("OpenPorts")},
			extra: map[string]reflect.Type{"services": fieldOf[sitediag.OpenPortResult]("Services")},
			codes: []sitediag.Code{sitediag.CodeProxyCountryUnsupported, sitediag.CodePortScanFailed},
		}},
		{[]string{"/ping"}, op(h, (*sitediag.Client).Ping, h.ping), operationDoc{
			summary: "ICMP echo round trips to a host.",
			meta:    typeOf[pingMeta](), data: []reflect.Type{typeOf[sitediag.PingResult]()},
			codes: []sitediag.Code{sitediag.CodeProxyCountryUnsupported, sitediag.CodePingFailed},
		}},
		{[]string{"/mtr"}, op(h, (*sitediag.Client).MTR, h.mtr), operationDoc{
			summary: "The route to a host, with each hop's loss and latency.",
			meta:    typeOf[mtrMeta](), data: []reflect.Type{fieldOf[sitediag.MTRResult]("Hops")},
			codes: []sitediag.Code{sitediag.CodeProxyCountryUnsupported, sitediag.CodeMTRFailed},
		}},
		{[]string{"/screenshot"}, op(h, (*sitediag.Client).Screenshot, h.screenshot), operationDoc{
			summary: "A page's screenshot; data is the image's URL.",
			meta:    typeOf[screenshotMeta](), data: []reflect.Type{artifactURL},
			extra: map[string]reflect.Type{"inline": typeOf[screenshotInline]()},
			codes: slices.Concat(pageCodes, []sitediag.Code{sitediag.CodeScreenshotFailed}),
		}},
		{[]string{"/web-scraping", "/webscraping"}, op(h, (*sitediag.Client).WebScrape, h.webScrape), operationDoc{
			summary: "A page's content in up to three formats (HTML, Markdown, text, JSON and their -llm forms).",
			meta:    typeOf[webScrapeMeta](),
			// data is the formats by name; with one format, that format's
			// content (a string, or json's object or array); with
			// fileOutput, the file's URL.
			data:  []reflect.Type{fieldOf[sitediag.WebScrapeResult]("Content"), typeOf[string](), typeOf[[]any]()},
			codes: slices.Concat(pageCodes, []sitediag.Code{sitediag.CodeCrawlFailed}),
		}},
		{[]string{"/mixedcontent"}, op(h, (*sitediag.Client).MixedContent, h.mixedContent), operationDoc{
			summary: "The insecure (http:) resources a secure page loads or links.",
			meta:    typeOf[mixedContentMeta](), data: []reflect.Type{typeOf[sitediag.MixedContentResult]()},
			codes: slices.Concat(pageCodes, []sitediag.Code{sitediag.CodeMixedContentCheckFailed}),
		}},
	}
}

// op decodes the request body into the url and the operation's options
// O, runs the operation with them and writes the envelope respond makes
// of its result, or the error.
func op[O, R any](h *Handler, run func(*sitediag.Client, context.Context, string, O) (*R, error),
	respond func(ctx context.Context, res *R, test testRecord) (*response, error)) operationFunc {
	handle := func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		var req request[O]
		if err := decode(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
		res, err := run(h.client, r.Context(), req.URL, req.Options)
		if err != nil {
			writeError(w, r, err)
			return
		}
		resp, err := respond(r.Context(), res, testRecord{ID: requestID(r.Context())})
		if err != nil {
			writeError(w, r, err)
			return
		}
		h.writeSuccess(w, r, resp)
	}
	return operationFunc{handle: handle, request: bodyType(reflect.TypeFor[O]())}
}

// bodyType is the type of a request body with the options opts: url,
// then the options' members, as request reads it.
func bodyType(opts reflect.Type) reflect.Type {
	return reflect.StructOf([]reflect.StructField{
		{Name: "URL", Type: reflect.TypeFor[string](), Tag: `json:"url"`},
		{Name: opts.Name(), Type: opts, Anonymous: true},
	})
}
