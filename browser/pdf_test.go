package browser

import (
	"bytes"
	"context"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mediaBoxes returns the width and height in points of every page's
// MediaBox.
func mediaBoxes(t *testing.T, pdf []byte) [][2]float64 {
	t.Helper()
	re := regexp.MustCompile(`/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\]`)
	var out [][2]float64
	for _, m := range re.FindAllSubmatch(pdf, -1) {
		var v [4]float64
		for i := range v {
			v[i], _ = strconv.ParseFloat(string(m[i+1]), 64)
		}
		out = append(out, [2]float64{v[2] - v[0], v[3] - v[1]})
	}
	if len(out) == 0 {
		t.Fatalf("no MediaBox in the PDF (%d bytes)", len(pdf))
	}
	return out
}

// print loads target and prints it with o.
func (e *env) print(t *testing.T, target string, o PDFOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	e.do(t, JobOptions{}, func(ctx context.Context, j *Job) error {
		if _, err := j.Load(ctx, target, LoadOptions{}); err != nil {
			return err
		}
		n, err := j.PDF(ctx, o, &buf)
		if err == nil && n != int64(buf.Len()) {
			t.Errorf("PDF returned %d bytes written, the writer got %d", n, buf.Len())
		}
		return err
	})
	if !bytes.HasPrefix(buf.Bytes(), []byte("%PDF-")) {
		t.Fatalf("output is not a PDF: %.20q", buf.Bytes())
	}
	return buf.Bytes()
}

func TestPDF(t *testing.T) {
	e := newEnv(t, Config{})
	long := e.site.page("/doc", `<!doctype html><body><h1>Report</h1>`+
		`<div style="height:4000px;background:linear-gradient(#fff,#00f)"></div></body>`)
	const mm = 72 / 25.4
	for _, tc := range []struct {
		name string
		opts PDFOptions
		w, h float64
	}{
		{"a4 portrait by default", PDFOptions{}, 210 * mm, 297 * mm},
		{"a4 landscape", PDFOptions{Paper: A4, Landscape: true}, 297 * mm, 210 * mm},
		{"letter", PDFOptions{Paper: Letter}, 612, 792},
		{"legal landscape", PDFOptions{Paper: Legal, Landscape: true}, 1008, 612},
		{"a6 with margins, scale and timestamp", PDFOptions{
			Paper: A6, Margins: Margins{Top: 20, Bottom: 20, Left: 5, Right: 5}, Scale: 0.5,
			Timestamp: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		}, 105 * mm, 148 * mm},
	} {
		t.Run(tc.name, func(t *testing.T) {
			boxes := mediaBoxes(t, e.print(t, long, tc.opts))
			for i, b := range boxes {
				if math.Abs(b[0]-tc.w) > 1 || math.Abs(b[1]-tc.h) > 1 {
					t.Errorf("page %d is %.1f×%.1f pt, want %.1f×%.1f", i+1, b[0], b[1], tc.w, tc.h)
				}
			}
			if len(boxes) < 2 {
				t.Errorf("%d pages for a 4000 px page, want several", len(boxes))
			}
		})
	}
	t.Run("scale changes the page count", func(t *testing.T) {
		small := len(mediaBoxes(t, e.print(t, long, PDFOptions{Scale: MinPDFScale})))
		large := len(mediaBoxes(t, e.print(t, long, PDFOptions{Scale: MaxPDFScale})))
		if small >= large {
			t.Errorf("scale %.1f gave %d pages, scale %.0f gave %d; want fewer at the smaller scale", MinPDFScale, small, MaxPDFScale, large)
		}
	})
}

// The paper asked for wins over the page's own CSS @page size and
// orientation.
func TestPDFPaperOverCSSPageSize(t *testing.T) {
	e := newEnv(t, Config{})
	const mm = 72 / 25.4
	for _, tc := range []struct {
		name, css string
		opts      PDFOptions
		w, h      float64
	}{
		{"@page a3, letter landscape asked", "size:A3", PDFOptions{Paper: Letter, Landscape: true}, 792, 612},
		{"@page landscape, a5 portrait asked", "size:landscape", PDFOptions{Paper: A5}, 148 * mm, 210 * mm},
		{"@page a3 landscape, a4 asked", "size:A3 landscape", PDFOptions{Paper: A4}, 210 * mm, 297 * mm},
		{"@page 100mm, legal landscape asked", "size:100mm 50mm;margin:0", PDFOptions{Paper: Legal, Landscape: true}, 1008, 612},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A strict Content-Security-Policy does not keep the paper's
			// size off the page.
			page := e.site.page("/css-"+strings.ReplaceAll(tc.name, " ", "-"), `<!doctype html>`+
				`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-n'">`+
				`<style nonce="n">@page{`+tc.css+`}</style><h1>Paper</h1>`)
			for i, b := range mediaBoxes(t, e.print(t, page, tc.opts)) {
				if math.Abs(b[0]-tc.w) > 1 || math.Abs(b[1]-tc.h) > 1 {
					t.Errorf("page %d is %.1f×%.1f pt, want %.1f×%.1f", i+1, b[0], b[1], tc.w, tc.h)
				}
			}
		})
	}
}
