package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"strings"

	"golang.org/x/net/html"
)

// lighthouseReportExt is the extension of Lighthouse's HTML reports, and
// of nothing else: only the /lighthouse adapter stores it, so an
// artifact of that extension is Lighthouse's own output, whose inline
// scripts (the report renderer, the report's JSON) may run. Every other
// artifact is the target's content or ours and runs none.
const lighthouseReportExt = "lhhtml"

// contentPolicy is the Content-Security-Policy of every artifact but a
// Lighthouse report: what a target put in its page (images, styles,
// fonts, frames, prefetches, forms) cannot make whoever opens the
// artifact contact anything, their own network included. Inline styles
// render; images only as data: URLs; sandbox stops scripts, forms,
// automatic navigation (meta refresh) and plugins.
const contentPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'; sandbox"

// lighthouseReportPolicy is the Content-Security-Policy of a Lighthouse
// report: as contentPolicy, and the report's own inline scripts, each
// allowed by its SHA-256 and nothing else (no script source, no eval, no
// connection). The sandbox lets scripts run in an opaque origin: the
// report cannot read the API's cookies or storage.
func lighthouseReportPolicy(r io.Reader) (string, error) {
	hashes, err := inlineScriptHashes(r)
	if err != nil {
		return "", err
	}
	scripts := "'none'"
	if len(hashes) > 0 {
		scripts = strings.Join(hashes, " ")
	}
	return "default-src 'none'; script-src " + scripts + "; style-src 'unsafe-inline'; img-src data:; " +
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'; sandbox allow-scripts allow-popups allow-downloads", nil
}

// inlineScriptHashes returns the CSP source ('sha256-…') of each inline
// script of the HTML document r, hashing the element's text as the
// browser does: newlines normalised to LF, entities not decoded.
func inlineScriptHashes(r io.Reader) ([]string, error) {
	z := html.NewTokenizer(r)
	var hashes []string
	inScript := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() == io.EOF {
				return hashes, nil
			}
			return nil, z.Err()
		case html.StartTagToken:
			name, _ := z.TagName()
			inScript = string(name) == "script"
			if inScript {
				hashes = append(hashes, scriptHash(nil)) // an empty script, until its text comes
			}
		case html.TextToken:
			if inScript {
				hashes[len(hashes)-1] = scriptHash(z.Raw())
			}
		default:
			inScript = false
		}
	}
}

func scriptHash(text []byte) string {
	text = bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n"))
	text = bytes.ReplaceAll(text, []byte("\r"), []byte("\n"))
	sum := sha256.Sum256(text)
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
