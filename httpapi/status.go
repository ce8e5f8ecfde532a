package httpapi

import (
	"net/http"

	"github.com/sitediag/sitediag"
)

// The codes only the server answers with: they are about the request,
// not about a diagnosis, so the library never returns them.
const (
	CodeUnauthorized         sitediag.Code = "UNAUTHORIZED"
	CodeNotFound             sitediag.Code = "NOT_FOUND"
	CodeMethodNotAllowed     sitediag.Code = "METHOD_NOT_ALLOWED"
	CodePayloadTooLarge      sitediag.Code = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedMediaType sitediag.Code = "UNSUPPORTED_MEDIA_TYPE"
	CodeRateLimited          sitediag.Code = "RATE_LIMITED"
)

// Status returns the HTTP status the API answers code with; 500 for a
// code it does not know.
func Status(code sitediag.Code) int {
	switch code {
	case sitediag.CodeInvalidURL, sitediag.CodeInvalidParameters, sitediag.CodeProxyCountryUnsupported:
		return http.StatusBadRequest
	case CodeUnauthorized:
		return http.StatusUnauthorized
	case sitediag.CodeTargetNotAllowed:
		return http.StatusForbidden
	case CodeNotFound:
		return http.StatusNotFound
	case CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case CodePayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case CodeUnsupportedMediaType:
		return http.StatusUnsupportedMediaType
	case sitediag.CodeUnableToConnect, sitediag.CodeNoMetadata, sitediag.CodeTLSHandshakeFailed:
		return http.StatusUnprocessableEntity
	case sitediag.CodeTooManyRedirects, CodeRateLimited:
		return http.StatusTooManyRequests
	case sitediag.CodeDNSSECQueryFailed:
		return http.StatusBadGateway
	case sitediag.CodeDNSSECTimeout:
		return http.StatusGatewayTimeout
	case sitediag.CodeBrowserUnavailable, sitediag.CodeLighthouseUnavailable, sitediag.CodeBusy:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
