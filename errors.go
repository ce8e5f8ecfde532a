package sitediag

import (
	"errors"
	"fmt"
	"time"
)

// Code is a machine-readable error code, the `message` of the API's
// error envelope.
type Code string

// The error codes of the operations: what failed, whatever the transport.
// They are the spec's table and the codes of DESIGN §2 for the cases the
// spec leaves open, but for the ones only a server answers with (a
// missing key, an unknown route, a body too large…), which belong to the
// server (see httpapi), as do the HTTP statuses.
const (
	CodeInvalidURL              Code = "INVALID_URL"
	CodeInvalidParameters       Code = "INVALID_PARAMETERS"
	CodeProxyCountryUnsupported Code = "PROXY_COUNTRY_UNSUPPORTED"
	CodeTargetNotAllowed        Code = "TARGET_NOT_ALLOWED"
	CodeUnableToConnect         Code = "UNABLE_TO_CONNECT"
	CodeNoMetadata              Code = "NO_METADATA"
	CodeTLSHandshakeFailed      Code = "TLS_HANDSHAKE_FAILED"
	CodeTooManyRedirects        Code = "TOO_MANY_REDIRECTS"
	CodeCrawlFailed             Code = "CRAWL_FAILED"
	CodePDFConversionFailed     Code = "PDF_CONVERSION_FAILED"
	CodeLighthouseUnexpected    Code = "LIGHTHOUSE_UNEXPECTED"
	CodeTLSScanFailed           Code = "TLS_SCAN_FAILED"
	CodeSiteStatusFailed        Code = "SITE_STATUS_FAILED"
	CodeRedirectCheckFailed     Code = "REDIRECT_CHECK_FAILED"
	CodeDNSSECCheckFailed       Code = "DNSSEC_CHECK_FAILED"
	CodeDNSSECQueryFailed       Code = "DNSSEC_QUERY_FAILED"
	CodeDNSSECTimeout           Code = "DNSSEC_TIMEOUT"
	CodeDNSLookupFailed         Code = "DNS_LOOKUP_FAILED"
	CodeTTFBFailed              Code = "TTFB_FAILED"
	CodeLoadTimeFailed          Code = "LOAD_TIME_FAILED"
	CodeHTTPHeaderFailed        Code = "HTTP_HEADER_FAILED"
	CodeHTTPProtocolFailed      Code = "HTTP_PROTOCOL_FAILED"
	CodeBrokenLinkCheckFailed   Code = "BROKEN_LINK_CHECK_FAILED"
	CodeScreenshotFailed        Code = "SCREENSHOT_FAILED"
	CodeMixedContentCheckFailed Code = "MIXED_CONTENT_CHECK_FAILED"
	CodeBrandFailed             Code = "BRAND_FAILED"
	CodePortScanFailed          Code = "PORT_SCAN_FAILED"
	CodePingFailed              Code = "PING_FAILED"
	CodeMTRFailed               Code = "MTR_FAILED"
	CodeBrowserUnavailable      Code = "BROWSER_UNAVAILABLE"
	CodeLighthouseUnavailable   Code = "LIGHTHOUSE_UNAVAILABLE"
	CodeBusy                    Code = "BUSY"
	CodeInternal                Code = "INTERNAL_ERROR"
)

// Error is the error every operation returns. Code says what failed
// (the API's message; httpapi maps it to an HTTP status); Details is a human-readable
// explanation that is safe to show the caller (it never describes what
// the SSRF policy protects); Err is the underlying cause, for logs and
// errors.Is, never shown. Build one with NewError.
//
// Branch on it with errors.As, or compare with the sentinels below
// through errors.Is, which matches on Code:
//
//	if errors.Is(err, sitediag.ErrTargetNotAllowed) { … }
//	var e *sitediag.Error
//	if errors.As(err, &e) && e.Code == sitediag.CodeUnableToConnect { … }
type Error struct {
	Code    Code
	Details string
	Err     error
	// RetryAfter, when set (on CodeBusy, or a server's rate limit),
	// says when to try again.
	RetryAfter time.Duration
}

// Sentinels for errors.Is; any *Error with the same Code matches.
var (
	ErrInvalidURL         = &Error{Code: CodeInvalidURL}
	ErrInvalidParameters  = &Error{Code: CodeInvalidParameters}
	ErrTargetNotAllowed   = &Error{Code: CodeTargetNotAllowed}
	ErrTooManyRedirects   = &Error{Code: CodeTooManyRedirects}
	ErrUnableToConnect    = &Error{Code: CodeUnableToConnect}
	ErrBrowserUnavailable = &Error{Code: CodeBrowserUnavailable}
	ErrBusy               = &Error{Code: CodeBusy}
)

func (e *Error) Error() string {
	msg := "sitediag: " + string(e.Code)
	if e.Details != "" {
		msg += ": " + e.Details
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same Code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// CodeOf returns the Code of the first *Error in err's chain, or "" when
// there is none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// NewError returns an *Error with code, details formatted from format and
// args, and cause (which may be nil).
func NewError(code Code, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Details: fmt.Sprintf(format, args...), Err: cause}
}

// RetryLater returns the *Error of a refusal that passes with time
// (CodeBusy, CodeRateLimited): RetryAfter says when to try again; cause
// may be nil.
func RetryLater(code Code, cause error, after time.Duration, details string) *Error {
	return &Error{Code: code, Details: details, Err: cause, RetryAfter: after}
}

// InvalidParameter returns the INVALID_PARAMETERS error for one field.
// The httpapi package uses it for decoding errors, so library and API
// callers see the same text.
func InvalidParameter(field, problem string) *Error {
	return NewError(CodeInvalidParameters, nil, "%s: %s", field, problem)
}
