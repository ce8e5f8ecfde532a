package browser

import (
	"context"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// Paper is a paper format.
type Paper string

// The paper formats; the empty Paper is A4.
const (
	Letter Paper = "letter"
	Legal  Paper = "legal"
	A0     Paper = "a0"
	A1     Paper = "a1"
	A2     Paper = "a2"
	A3     Paper = "a3"
	A4     Paper = "a4"
	A5     Paper = "a5"
	A6     Paper = "a6"
)

// paperMM are the portrait sizes in millimetres.
var paperMM = map[Paper][2]float64{
	Letter: {215.9, 279.4},
	Legal:  {215.9, 355.6},
	A0:     {841, 1189},
	A1:     {594, 841},
	A2:     {420, 594},
	A3:     {297, 420},
	A4:     {210, 297},
	A5:     {148, 210},
	A6:     {105, 148},
}

// Size returns the portrait width and height in millimetres, and whether
// p is a known format (the empty Paper is A4).
func (p Paper) Size() (width, height float64, ok bool) {
	if p == "" {
		p = A4
	}
	s, ok := paperMM[p]
	return s[0], s[1], ok
}

// PDF scale bounds (Chromium's).
const (
	MinPDFScale = 0.1
	MaxPDFScale = 2.0
)

// Margins are page margins in millimetres.
type Margins struct {
	Top, Bottom, Left, Right float64
}

// PDFOptions shape a PDF. The zero value is A4 portrait at scale 1
// without margins.
type PDFOptions struct {
	// Paper is the paper format. If empty, A4.
	Paper Paper
	// Landscape turns the paper.
	Landscape bool
	// Margins are the page margins; zero is none.
	Margins Margins
	// Scale is the rendering scale, MinPDFScale to MaxPDFScale. If
	// zero, 1.
	Scale float64
	// Timestamp, if set, is printed in the footer of every page
	// (TimestampLayout, UTC), in the bottom margin.
	Timestamp time.Time
}

// pdfChunk is how much of the PDF is read from Chromium at a time.
const pdfChunk = 256 << 10

// PDF prints the page (with backgrounds) and streams the PDF to w as
// Chromium produces it. It returns the number of bytes written. Errors:
// ErrCrashed, a *StepError, or w's error.
func (j *Job) PDF(ctx context.Context, o PDFOptions, w io.Writer) (int64, error) {
	page := j.page.Context(ctx)
	width, height, ok := o.Paper.Size()
	if !ok {
		return 0, &StepError{Step: "printing", Err: errUnknownPaper(o.Paper)}
	}
	scale := o.Scale
	if scale == 0 {
		scale = 1
	}
	if err := j.forcePageSize(ctx, width, height, o.Landscape); err != nil {
		return 0, err
	}
	inch := func(mm float64) *float64 { v := mm / 25.4; return &v }
	req := proto.PagePrintToPDF{
		Landscape:       o.Landscape,
		PrintBackground: true,
		Scale:           &scale,
		PaperWidth:      inch(width),
		PaperHeight:     inch(height),
		MarginTop:       inch(o.Margins.Top),
		MarginBottom:    inch(o.Margins.Bottom),
		MarginLeft:      inch(o.Margins.Left),
		MarginRight:     inch(o.Margins.Right),
		TransferMode:    proto.PagePrintToPDFTransferModeReturnAsStream,
	}
	if !o.Timestamp.IsZero() {
		req.DisplayHeaderFooter = true
		req.HeaderTemplate = "<span></span>"
		req.FooterTemplate = `<div style="width:100%;font:8px monospace;text-align:right;padding:0 8px;">` +
			html.EscapeString(o.Timestamp.UTC().Format(TimestampLayout)) + `</div>`
	}
	res, err := req.Call(page)
	if err != nil {
		return 0, j.fail(ctx, "printing", err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		defer cancel()
		proto.IOClose{Handle: res.Stream}.Call(j.page.Context(ctx))
	}()
	var n int64
	for {
		chunk, err := proto.IORead{Handle: res.Stream, Size: intPtr(pdfChunk)}.Call(page)
		if err != nil {
			return n, j.fail(ctx, "reading the PDF", err)
		}
		data := []byte(chunk.Data)
		if chunk.Base64Encoded {
			if data, err = base64.StdEncoding.DecodeString(chunk.Data); err != nil {
				return n, j.fail(ctx, "reading the PDF", err)
			}
		}
		m, err := w.Write(data)
		n += int64(m)
		if err != nil {
			return n, err
		}
		if chunk.EOF {
			return n, nil
		}
	}
}

// forcePageSize makes the paper (width by height millimetres, portrait,
// turned when landscape) the page's CSS page size, in a stylesheet of
// DevTools' own that the page's Content-Security-Policy does not apply
// to: Chromium lets the page's @page size (A3, landscape, …) turn the
// paper it is given otherwise.
func (j *Job) forcePageSize(ctx context.Context, width, height float64, landscape bool) error {
	if landscape {
		width, height = height, width
	}
	page := j.page.Context(ctx)
	if err := (proto.DOMEnable{}).Call(page); err != nil {
		return j.fail(ctx, "setting the page size", err)
	}
	if err := (proto.CSSEnable{}).Call(page); err != nil {
		return j.fail(ctx, "setting the page size", err)
	}
	sheet, err := proto.CSSCreateStyleSheet{FrameID: proto.PageFrameID(j.targetID)}.Call(page)
	if err != nil {
		return j.fail(ctx, "setting the page size", err)
	}
	_, err = proto.CSSSetStyleSheetText{
		StyleSheetID: sheet.StyleSheetID,
		Text:         fmt.Sprintf("@page { size: %.2fmm %.2fmm !important; }", width, height),
	}.Call(page)
	if err != nil {
		return j.fail(ctx, "setting the page size", err)
	}
	return nil
}

type errUnknownPaper Paper

func (e errUnknownPaper) Error() string { return "unknown paper format " + string(e) }
