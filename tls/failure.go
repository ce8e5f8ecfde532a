package tls

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"syscall"
	"time"
)

// NoProtocolError is Scan's error when no protocol version at all could
// be negotiated. It matches ErrNoProtocol, and the connection's error
// when there was one.
type NoProtocolError struct {
	// Reason says what the server did, in words for a person:
	// "connection refused", "no answer in 5 s", "not TLS: it answered
	// HTTP", "alert handshake_failure".
	Reason string
	// Err is the failure the reason was drawn from.
	Err error
}

func (e *NoProtocolError) Error() string { return ErrNoProtocol.Error() + ": " + e.Reason }

// Unwrap returns ErrNoProtocol and Err.
func (e *NoProtocolError) Unwrap() []error { return []error{ErrNoProtocol, e.Err} }

// failure is how a probe failed, ranked by what it tells about the
// server: an alert says most, a timeout least.
type failure struct {
	rank   int
	reason string
	err    error
}

// classify ranks a probe's error; timeout is the probe's limit.
func classify(err error, timeout time.Duration) failure {
	var alert *alertError
	var ne net.Error
	switch {
	case errors.As(err, &alert):
		return failure{5, "alert " + alertName(alert.Description), err}
	case errors.Is(err, errHTTP):
		return failure{4, "not TLS: it answered HTTP", err}
	case errors.Is(err, errMalformed):
		return failure{3, "not TLS: it answered with bytes that are neither TLS nor SSL", err}
	case isReset(err):
		return failure{2, "the server reset the connection (TCP RST) without answering", err}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return failure{2, "the server closed the connection without answering", err}
	case errors.As(err, &ne) && ne.Timeout():
		return failure{1, "no answer in " + seconds(timeout), err}
	case errors.Is(err, errTLSRecord): // says less than any TLS probe's failure
		return failure{0, "it answered SSL 2.0 in TLS only", err}
	}
	return failure{0, err.Error(), err}
}

// isReset reports whether err is the peer's reset: ECONNRESET, or EPIPE
// for a write after the reset had already arrived.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// connectFailure words a failed connection.
func connectFailure(err error, timeout time.Duration) failure {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return failure{0, "connection refused", err}
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return failure{0, "host unreachable", err}
	case errors.As(err, &ne) && ne.Timeout():
		return failure{0, "no answer to the connection in " + seconds(timeout), err}
	}
	return failure{0, "connection failed: " + err.Error(), err}
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// alertNames are the TLS alert descriptions (RFC 8446 §6 and earlier).
var alertNames = map[uint8]string{
	0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac", 21: "decryption_failed",
	22: "record_overflow", 30: "decompression_failure", 40: "handshake_failure", 41: "no_certificate",
	42: "bad_certificate", 43: "unsupported_certificate", 44: "certificate_revoked",
	45: "certificate_expired", 46: "certificate_unknown", 47: "illegal_parameter", 48: "unknown_ca",
	49: "access_denied", 50: "decode_error", 51: "decrypt_error", 60: "export_restriction",
	70: "protocol_version", 71: "insufficient_security", 80: "internal_error",
	86: "inappropriate_fallback", 90: "user_canceled", 100: "no_renegotiation",
	109: "missing_extension", 110: "unsupported_extension", 112: "unrecognized_name",
	113: "bad_certificate_status_response", 115: "unknown_psk_identity", 116: "certificate_required",
	120: "no_application_protocol",
}

func alertName(d uint8) string {
	if n, ok := alertNames[d]; ok {
		return n
	}
	return fmt.Sprintf("%d", d)
}
