package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/sitediag/sitediag"
)

// This file turns each operation's result into the envelope's members:
// data, meta (the url, the settings the operation ran with, what it saw
// of the target, and meta.test) and the extra members some operations
// have. The options need nothing here: the request body decodes
// straight into them.

// followMeta is the meta of the HTTP-level operations.
type followMeta struct {
	URL           string `json:"url"`
	RedirectedURL string `json:"redirectedURL"`
	sitediag.RequestOptions
	Test testRecord `json:"test"`
}

func followMetaOf(info sitediag.RequestInfo, test testRecord) followMeta {
	return followMeta{URL: info.URL, RedirectedURL: info.RedirectedURL, RequestOptions: info.Settings, Test: test}
}

func (h *Handler) up(_ context.Context, res *sitediag.UpResult, test testRecord) (*response, error) {
	meta := followMetaOf(res.RequestInfo, test)
	meta.URL = res.Host // host form, as the spec has it for /up
	return &response{Message: upMessage(res.Reachable), Meta: meta, Data: res}, nil
}

type redirectCheckMeta struct {
	URL string `json:"url"`
	sitediag.RedirectCheckOptions
	Test testRecord `json:"test"`
}

func (h *Handler) redirectCheck(_ context.Context, res *sitediag.RedirectCheckResult, test testRecord) (*response, error) {
	return &response{Meta: redirectCheckMeta{URL: res.Host, RedirectCheckOptions: res.Settings, Test: test}, Data: res.Hops}, nil
}

func (h *Handler) ttfb(_ context.Context, res *sitediag.TTFBResult, test testRecord) (*response, error) {
	return &response{Meta: followMetaOf(res.RequestInfo, test), Data: res.TTFB}, nil
}

func (h *Handler) loadTime(_ context.Context, res *sitediag.LoadTimeResult, test testRecord) (*response, error) {
	return &response{Message: messageReachable, Meta: followMetaOf(res.RequestInfo, test), Data: res}, nil
}

func (h *Handler) httpHeader(_ context.Context, res *sitediag.HTTPHeaderResult, test testRecord) (*response, error) {
	return &response{Meta: followMetaOf(res.RequestInfo, test), Data: res.Headers}, nil
}

func (h *Handler) httpProtocol(_ context.Context, res *sitediag.HTTPProtocolResult, test testRecord) (*response, error) {
	return &response{Meta: followMetaOf(res.RequestInfo, test), Data: res.ProtocolSupport}, nil
}

type brokenLinkMeta struct {
	followMeta
	// LinksFound counts the distinct links on the page; data holds at
	// most sitediag.MaxLinks of them.
	LinksFound int `json:"linksFound"`
}

func (h *Handler) brokenLink(_ context.Context, res *sitediag.BrokenLinkResult, test testRecord) (*response, error) {
	meta := followMetaOf(res.RequestInfo, test)
	meta.URL = res.Host // host form, as the spec has it for /brokenlink
	return &response{
		Message: brokenLinkMessage(res.Summary),
		Meta:    brokenLinkMeta{followMeta: meta, LinksFound: res.LinksFound},
		Data:    res.Links,
		Summary: res.Summary,
	}, nil
}

type dnsRecordMeta struct {
	URL string `json:"url"`
	sitediag.DNSRecordsOptions
	Rcode string     `json:"rcode"`
	Test  testRecord `json:"test"`
}

func (h *Handler) dnsRecord(_ context.Context, res *sitediag.DNSRecordsResult, test testRecord) (*response, error) {
	return &response{Meta: dnsRecordMeta{URL: res.Host, DNSRecordsOptions: res.Settings, Rcode: res.Rcode, Test: test}, Data: res}, nil
}

// hostMeta is the meta of an operation that echoes only its target.
type hostMeta struct {
	URL  string     `json:"url"`
	Test testRecord `json:"test"`
}

func (h *Handler) dnssec(_ context.Context, res *sitediag.DNSSECResult, test testRecord) (*response, error) {
	return &response{Meta: hostMeta{URL: res.Host, Test: test}, Data: res}, nil
}

type tlsScanMeta struct {
	URL string `json:"url"`
	sitediag.TLSScanOptions
	Test testRecord `json:"test"`
}

func (h *Handler) tlsScan(_ context.Context, res *sitediag.TLSScanResult, test testRecord) (*response, error) {
	resp := &response{Meta: tlsScanMeta{URL: res.Host, TLSScanOptions: res.Settings, Test: test}, Data: res}
	if res.Partial {
		resp.Message = "Partial result: the scan did not finish within the operation limit; data.unfinished says what is missing."
	}
	return resp, nil
}

type openPortMeta struct {
	URL string `json:"url"`
	IP  string `json:"ip"`
	sitediag.OpenPortOptions
	Test testRecord `json:"test"`
}

func (h *Handler) openPort(_ context.Context, res *sitediag.OpenPortResult, test testRecord) (*response, error) {
	resp := &response{
		Meta: openPortMeta{URL: res.Host, IP: res.IP, OpenPortOptions: res.Settings, Test: test},
		Data: res.OpenPorts,
	}
	if res.Settings.DetectServices.Bool() {
		services := res.Services
		if services == nil {
			services = []sitediag.PortService{}
		}
		resp.Services = services
	}
	return resp, nil
}

type pingMeta struct {
	URL string `json:"url"`
	sitediag.PingOptions
	Test testRecord `json:"test"`
}

func (h *Handler) ping(_ context.Context, res *sitediag.PingResult, test testRecord) (*response, error) {
	return &response{Meta: pingMeta{URL: res.Host, PingOptions: res.Settings, Test: test}, Data: res}, nil
}

type mtrMeta struct {
	URL string `json:"url"`
	IP  string `json:"ip"`
	sitediag.MTROptions
	Test testRecord `json:"test"`
}

func (h *Handler) mtr(_ context.Context, res *sitediag.MTRResult, test testRecord) (*response, error) {
	return &response{Meta: mtrMeta{URL: res.Host, IP: res.IP, MTROptions: res.Settings, Test: test}, Data: res.Hops}, nil
}

type screenshotMeta struct {
	sitediag.PageVisit
	sitediag.ScreenshotOptions
	SelectorFound *bool      `json:"selectorFound,omitempty"`
	BlockedAds    int        `json:"blockedAds"`
	Test          testRecord `json:"test"`
}

// screenshotInline is /screenshot's inline member.
type screenshotInline struct {
	Base64  string `json:"base64"`
	DataURI string `json:"dataUri"`
}

func (h *Handler) screenshot(ctx context.Context, res *sitediag.ScreenshotResult, test testRecord) (*response, error) {
	set := res.Settings
	link, err := h.storeArtifact(ctx, string(set.Type), bytes.NewReader(res.Image))
	if err != nil {
		return nil, err
	}
	meta := screenshotMeta{PageVisit: res.PageVisit, ScreenshotOptions: set, SelectorFound: res.SelectorFound,
		BlockedAds: res.BlockedAds, Test: test}
	resp := &response{Message: pageMessage(res.PageVisit), Meta: meta, Data: link}
	if set.Inline.Bool() {
		b64 := base64.StdEncoding.EncodeToString(res.Image)
		resp.Inline = screenshotInline{Base64: b64, DataURI: "data:image/" + string(set.Type) + ";base64," + b64}
	}
	return resp, nil
}

type url2PDFMeta struct {
	sitediag.PageVisit
	sitediag.URL2PDFOptions
	Test testRecord `json:"test"`
}

func (h *Handler) url2PDF(ctx context.Context, res *sitediag.URL2PDFResult, test testRecord) (*response, error) {
	defer res.Body.Close()
	link, err := h.storeArtifact(ctx, "pdf", res.Body)
	if err != nil {
		return nil, err
	}
	meta := url2PDFMeta{PageVisit: res.PageVisit, URL2PDFOptions: res.Settings, Test: test}
	return &response{Message: pageMessage(res.PageVisit), Meta: meta, Data: link}, nil
}

type metaScrapeMeta struct {
	sitediag.PageVisit
	sitediag.MetaScrapeOptions
	Test testRecord `json:"test"`
}

func (h *Handler) metaScrape(ctx context.Context, res *sitediag.MetaScrapeResult, test testRecord) (*response, error) {
	meta := metaScrapeMeta{PageVisit: res.PageVisit, MetaScrapeOptions: res.Settings, Test: test}
	if res.Settings.Format == "markdown" {
		return h.pageData(ctx, res.PageVisit, meta, res.Settings.FileOutput.Bool(), "md", res.Markdown)
	}
	return h.pageData(ctx, res.PageVisit, meta, res.Settings.FileOutput.Bool(), "json", res.Metadata)
}

type webScrapeMeta struct {
	sitediag.PageVisit
	sitediag.WebScrapeOptions
	WaitForFound *bool      `json:"waitForFound,omitempty"`
	Test         testRecord `json:"test"`
}

func (h *Handler) webScrape(ctx context.Context, res *sitediag.WebScrapeResult, test testRecord) (*response, error) {
	formats := res.Settings.Format
	meta := webScrapeMeta{PageVisit: res.PageVisit, WebScrapeOptions: res.Settings, WaitForFound: res.WaitForFound, Test: test}
	if len(formats) == 1 {
		return h.pageData(ctx, res.PageVisit, meta, res.Settings.FileOutput.Bool(), formats[0].Ext(), res.Content[formats[0]])
	}
	return h.pageData(ctx, res.PageVisit, meta, res.Settings.FileOutput.Bool(), "json", res.Content)
}

// pageData is the response of a page operation whose data is v: v
// itself, or with fileOutput the link to v stored as an artifact with
// extension ext.
func (h *Handler) pageData(ctx context.Context, visit sitediag.PageVisit, meta any, fileOutput bool, ext string, v any) (*response, error) {
	if fileOutput {
		link, err := h.storeValue(ctx, ext, v)
		if err != nil {
			return nil, err
		}
		v = link
	}
	return &response{Message: pageMessage(visit), Meta: meta, Data: v}, nil
}

// storeValue stores v as an artifact with extension ext: a string as it
// is, anything else as JSON. It returns the artifact's URL.
func (h *Handler) storeValue(ctx context.Context, ext string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return "", err
		}
		s = string(b)
	}
	return h.storeArtifact(ctx, ext, bytes.NewReader([]byte(s)))
}

type mixedContentMeta struct {
	sitediag.PageVisit
	sitediag.MixedContentOptions
	Test testRecord `json:"test"`
}

func (h *Handler) mixedContent(_ context.Context, res *sitediag.MixedContentResult, test testRecord) (*response, error) {
	return &response{
		Message: mixedContentMessage(len(res.Items) > 0),
		Meta:    mixedContentMeta{PageVisit: res.PageVisit, MixedContentOptions: res.Settings, Test: test},
		Data:    res,
	}, nil
}

type brandMeta struct {
	Domain           string     `json:"domain"`
	Mode             string     `json:"mode"`
	Cached           bool       `json:"cached"`
	LastUpdated      string     `json:"lastUpdated"`
	DataAge          string     `json:"dataAge"`
	RefreshRequested bool       `json:"refreshRequested"`
	BlockedRequests  int        `json:"blockedRequests"`
	Test             testRecord `json:"test"`
}

func (h *Handler) brand(_ context.Context, res *sitediag.BrandResult, test testRecord) (*response, error) {
	meta := brandMeta{
		Domain: res.Domain, Mode: res.Mode, Cached: res.Cached, LastUpdated: res.LastUpdated.UTC().Format(time.RFC3339),
		DataAge: res.DataAge(h.now()), RefreshRequested: res.RefreshRequested, BlockedRequests: res.BlockedRequests, Test: test,
	}
	return &response{Meta: meta, Data: res.Record}, nil
}

type lighthouseMeta struct {
	sitediag.PageVisit
	sitediag.LighthouseOptions
	Scores     sitediag.LighthouseScores `json:"scores"`
	JSONReport string                    `json:"jsonReport"`
	Test       testRecord                `json:"test"`
}

func (h *Handler) lighthouse(ctx context.Context, res *sitediag.LighthouseResult, test testRecord) (*response, error) {
	html, err := h.storeArtifact(ctx, lighthouseReportExt, bytes.NewReader(res.HTMLReport))
	if err != nil {
		return nil, err
	}
	json, err := h.storeArtifact(ctx, "json", bytes.NewReader(res.JSONReport))
	if err != nil {
		return nil, err
	}
	meta := lighthouseMeta{PageVisit: res.PageVisit, LighthouseOptions: res.Settings, Scores: res.Scores, JSONReport: json, Test: test}
	return &response{Meta: meta, Data: html}, nil
}
