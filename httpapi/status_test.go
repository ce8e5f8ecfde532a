package httpapi_test

import (
	"testing"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/httpapi"
)

// TestStatus pins the statuses the API answers each code with (the
// spec's table).
func TestStatus(t *testing.T) {
	for code, status := range map[sitediag.Code]int{
		sitediag.CodeInvalidURL: 400, sitediag.CodeInvalidParameters: 400, sitediag.CodeProxyCountryUnsupported: 400,
		httpapi.CodeUnauthorized: 401, sitediag.CodeTargetNotAllowed: 403, httpapi.CodeNotFound: 404,
		httpapi.CodeMethodNotAllowed: 405, httpapi.CodePayloadTooLarge: 413, httpapi.CodeUnsupportedMediaType: 415,
		sitediag.CodeUnableToConnect: 422, sitediag.CodeNoMetadata: 422, sitediag.CodeTLSHandshakeFailed: 422,
		sitediag.CodeTooManyRedirects: 429, httpapi.CodeRateLimited: 429, sitediag.CodeDNSSECQueryFailed: 502,
		sitediag.CodeDNSSECTimeout: 504, sitediag.CodeBrowserUnavailable: 503, sitediag.CodeLighthouseUnavailable: 503,
		sitediag.CodeBusy: 503, sitediag.CodeScreenshotFailed: 500, sitediag.CodeInternal: 500, sitediag.CodeTTFBFailed: 500,
		sitediag.CodeDNSSECCheckFailed: 500, sitediag.Code("SOMETHING_NEW"): 500,
	} {
		if got := httpapi.Status(code); got != status {
			t.Errorf("%s: status %d, want %d", code, got, status)
		}
	}
}
