package tls

import (
	"bytes"
	//lint:ignore SA1019 only keyInfo's type switch uses it, to report the DSA keys servers still present.
	"crypto/dsa"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
	"math"
	"net"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// CertificateNotRead is Certificate.AuthorizationError when the scan
// could not read the certificate: it says nothing of the server's.
const CertificateNotRead = "CERTIFICATE_NOT_READ"

// expiryLayout is OpenSSL's text form of a certificate time.
const expiryLayout = "Jan _2 15:04:05 2006 GMT"

// Certificate describes the server's leaf certificate and the chain it
// presented, judged at the scan's clock against its root pool.
type Certificate struct {
	// CommonName is the subject's CN.
	CommonName string `json:"commonName"`
	// SubjectAltName lists the SAN entries in certificate order, joined
	// with ", ": "DNS:example.com, IP Address:192.0.2.1, email:…, URI:…".
	SubjectAltName string `json:"subjectAltName"`
	// Issuer names the issuer.
	Issuer Issuer `json:"issuer"`
	// Expiry is NotAfter in OpenSSL's form, "Sep 30 23:59:59 2026 GMT".
	Expiry string `json:"expiry"`
	// ValidFrom is NotBefore in the same form.
	ValidFrom string `json:"validFrom"`
	// IsExpired is true when the clock is past NotAfter.
	IsExpired bool `json:"isExpired"`
	// IsNotYetValid is true when the clock is before NotBefore.
	IsNotYetValid bool `json:"isNotYetValid"`
	// DaysRemaining is the number of whole days until NotAfter; negative
	// once expired.
	DaysRemaining int `json:"daysRemaining"`
	// HostnameMatches is true when the scanned host matches the SAN (or
	// an IP SAN for an IP target).
	HostnameMatches bool `json:"hostnameMatches"`
	// SelfSigned is true when the leaf is signed by its own key.
	SelfSigned bool `json:"selfSigned"`
	// KeyType is RSA, RSA-PSS (an RSA key bound to PSS signatures), ECDSA,
	// Ed25519 or DSA; "unknown" for any other.
	KeyType string `json:"keyType"`
	// KeyBits is the public key's size: the modulus for RSA, RSA-PSS and DSA, the
	// curve for ECDSA.
	KeyBits int `json:"keyBits"`
	// WeakKey is true for RSA or DSA under 2048 bits and ECDSA under 224.
	WeakKey bool `json:"weakKey"`
	// SignatureAlgorithm is the leaf's signature algorithm, e.g.
	// SHA256-RSA.
	SignatureAlgorithm string `json:"signatureAlgorithm"`
	// WeakSignatureAlgorithm is true for MD2, MD5 and SHA-1 signatures.
	WeakSignatureAlgorithm bool `json:"weakSignatureAlgorithm"`
	// SerialNumber is the serial in upper-case hex.
	SerialNumber string `json:"serialNumber"`
	// FingerprintSHA256 is the SHA-256 of the leaf's DER, as colon-
	// separated upper-case hex.
	FingerprintSHA256 string `json:"fingerprintSha256"`
	// Trusted is true when the chain verifies against the root pool at
	// the scan's clock and the host name matches.
	Trusted bool `json:"trusted"`
	// AuthorizationError is the OpenSSL-style reason Trusted is false
	// (CERT_HAS_EXPIRED, CERT_NOT_YET_VALID, DEPTH_ZERO_SELF_SIGNED_CERT,
	// SELF_SIGNED_CERT_IN_CHAIN, UNABLE_TO_VERIFY_LEAF_SIGNATURE,
	// UNABLE_TO_GET_ISSUER_CERT_LOCALLY, ERR_TLS_CERT_ALTNAME_INVALID,
	// CERT_UNTRUSTED, NO_PEER_CERTIFICATE when only anonymous suites are
	// accepted, CertificateNotRead when it could not be read); null when
	// trusted.
	AuthorizationError *string `json:"authorizationError"`
	// NotRead says why the certificate could not be read (crypto/tls
	// could not complete a handshake, and no version sent it in a form
	// the scan reads); AuthorizationError is then CERTIFICATE_NOT_READ.
	// Empty when it was read.
	NotRead string `json:"notRead,omitempty"`
	// Chain is the chain as the server presented it.
	Chain Chain `json:"chain"`
	// ForwardSecrecy describes the key exchange of the full handshake.
	ForwardSecrecy ForwardSecrecy `json:"forwardSecrecy"`
}

// Issuer names a certificate's issuer; a missing attribute is "".
type Issuer struct {
	Country      string `json:"country"`
	Organization string `json:"organization"`
	CommonName   string `json:"commonName"`
}

// Chain is the certificate chain as presented, leaf first.
type Chain struct {
	// Length is the number of certificates presented.
	Length int `json:"length"`
	// Complete is true when the presented certificates, in whatever
	// order, link the leaf to a root (self-signed) or to a certificate
	// issued by one of the trust anchors: nothing is missing. A property
	// of what was sent, independent of dates; trust and expiry are
	// judged apart (Certificate.Trusted, IsExpired).
	Complete bool `json:"complete"`
	// Ordered is true when each presented certificate is issued by the
	// next, as TLS requires before 1.3 and strict clients expect; false
	// for a chain in the wrong order or with a certificate that belongs
	// to no path (testssl: "ordering problem"), which may still be
	// complete.
	Ordered bool `json:"ordered"`
	// Certificates are the presented certificates in order.
	Certificates []ChainEntry `json:"certificates"`
}

// ChainEntry is one certificate of a chain.
type ChainEntry struct {
	CommonName       string `json:"commonName"`
	IssuerCommonName string `json:"issuerCommonName"`
	// Fingerprint is the SHA-1 of the DER, colon-separated hex.
	Fingerprint string `json:"fingerprint"`
	// FingerprintSHA256 is the SHA-256 of the DER, colon-separated hex.
	FingerprintSHA256 string `json:"fingerprintSha256"`
}

// ForwardSecrecy describes the key exchange of the full handshake; its
// fields are null when no full handshake completed.
type ForwardSecrecy struct {
	// Protocol is the negotiated version, e.g. TLSv1.3.
	Protocol *string `json:"protocol"`
	// NegotiatedCipher is the IANA name of the negotiated suite.
	NegotiatedCipher *string `json:"negotiatedCipher"`
	// EphemeralKeyType is the ephemeral key exchange: ECDH, DH, or KEM
	// for hybrid post-quantum groups; null without forward secrecy.
	EphemeralKeyType *string `json:"ephemeralKeyType"`
	// EphemeralKeyName is the group's IANA/OpenSSL name: X25519, P-256,
	// X25519MLKEM768, ffdhe2048, or DH for a server's own DH prime.
	EphemeralKeyName *string `json:"ephemeralKeyName"`
	// EphemeralKeySize is the group's size in bits, null when unknown.
	EphemeralKeySize *int `json:"ephemeralKeySize"`
}

// describeCertificate reports on chain (leaf first) for host at now.
// roots nil means the system pool.
func describeCertificate(chain []*x509.Certificate, host string, roots *x509.CertPool, now time.Time) Certificate {
	if len(chain) == 0 {
		return Certificate{
			AuthorizationError: ptr("NO_PEER_CERTIFICATE"),
			Chain:              Chain{Certificates: []ChainEntry{}},
		}
	}
	leaf := chain[0]
	c := Certificate{
		CommonName:     leaf.Subject.CommonName,
		SubjectAltName: subjectAltName(leaf),
		Issuer: Issuer{
			Country:      first(leaf.Issuer.Country),
			Organization: first(leaf.Issuer.Organization),
			CommonName:   leaf.Issuer.CommonName,
		},
		Expiry:                 leaf.NotAfter.UTC().Format(expiryLayout),
		ValidFrom:              leaf.NotBefore.UTC().Format(expiryLayout),
		IsExpired:              now.After(leaf.NotAfter),
		IsNotYetValid:          now.Before(leaf.NotBefore),
		DaysRemaining:          int(math.Floor(leaf.NotAfter.Sub(now).Hours() / 24)),
		HostnameMatches:        leaf.VerifyHostname(host) == nil,
		SelfSigned:             selfSigned(leaf),
		SignatureAlgorithm:     leaf.SignatureAlgorithm.String(),
		WeakSignatureAlgorithm: weakSignature(leaf.SignatureAlgorithm),
		SerialNumber:           fmt.Sprintf("%X", leaf.SerialNumber.Bytes()),
		FingerprintSHA256:      fingerprint(sha256.New, leaf.Raw),
	}
	c.KeyType, c.KeyBits, c.WeakKey = keyInfo(leaf)

	intermediates := x509.NewCertPool()
	for _, ic := range chain[1:] {
		intermediates.AddCert(ic)
	}
	verify := func(at time.Time) error {
		_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, Intermediates: intermediates, CurrentTime: at})
		return err
	}
	err := verify(now)
	linked := linkedPrefix(chain)
	c.Chain = Chain{
		Length:       len(chain),
		Complete:     complete(chain, roots),
		Ordered:      linked == len(chain),
		Certificates: make([]ChainEntry, len(chain)),
	}
	for i, cert := range chain {
		c.Chain.Certificates[i] = ChainEntry{
			CommonName:        cert.Subject.CommonName,
			IssuerCommonName:  cert.Issuer.CommonName,
			Fingerprint:       fingerprint(sha1.New, cert.Raw),
			FingerprintSHA256: fingerprint(sha256.New, cert.Raw),
		}
	}
	switch {
	case err != nil:
		c.AuthorizationError = ptr(authorizationError(err, chain[:linked], now))
	case !c.HostnameMatches:
		c.AuthorizationError = ptr("ERR_TLS_CERT_ALTNAME_INVALID")
	default:
		c.Trusted = true
	}
	return c
}

// linkedPrefix returns how many certificates of chain, from the leaf
// on, are each signed by the next one: the path a verifier builds from
// what was sent. Dates play no part.
func linkedPrefix(chain []*x509.Certificate) int {
	n := 1
	for n < len(chain) && issuedBy(chain[n-1], chain[n]) {
		n++
	}
	return n
}

// complete reports whether the certificates of chain, taken in any
// order, lead from the leaf to a root or to a certificate a trust
// anchor of roots issued.
func complete(chain []*x509.Certificate, roots *x509.CertPool) bool {
	cur, left := chain[0], slices.Clone(chain[1:])
	for {
		if anchored(cur, roots) {
			return true
		}
		i := slices.IndexFunc(left, func(c *x509.Certificate) bool { return issuedBy(cur, c) })
		if i < 0 {
			return false
		}
		cur = left[i]
		left = slices.Delete(left, i, i+1)
	}
}

// issuedBy reports whether parent's key signed c under parent's name.
func issuedBy(c, parent *x509.Certificate) bool {
	return bytes.Equal(c.RawIssuer, parent.RawSubject) &&
		parent.CheckSignature(c.SignatureAlgorithm, c.RawTBSCertificate, c.Signature) == nil
}

// anchored reports whether c is a root (self-signed) or is issued by a
// trust anchor of roots (nil: the system's). Dates play no part: c is
// checked at its own midpoint and, should the anchor not cover that, at
// its edges.
func anchored(c *x509.Certificate, roots *x509.CertPool) bool {
	if selfSigned(c) {
		return true
	}
	pool := x509.NewCertPool() // c alone: it must chain to an anchor directly
	mid := c.NotBefore.Add(c.NotAfter.Sub(c.NotBefore) / 2)
	for _, at := range []time.Time{mid, c.NotBefore.Add(time.Second), c.NotAfter.Add(-time.Second)} {
		_, err := c.Verify(x509.VerifyOptions{Roots: roots, Intermediates: pool, CurrentTime: at,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
		if err == nil {
			return true
		}
	}
	return false
}

// authorizationError names a verification failure the way OpenSSL and
// Node do. chain is the linked prefix of what was sent: a certificate
// that does not sign the one before it plays no part in a verifier's
// path, so a root sent in place of the intermediate leaves the leaf
// alone (UNABLE_TO_VERIFY_LEAF_SIGNATURE).
func authorizationError(err error, chain []*x509.Certificate, now time.Time) string {
	var invalid x509.CertificateInvalidError
	var unknown x509.UnknownAuthorityError
	switch {
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		if now.Before(invalid.Cert.NotBefore) {
			return "CERT_NOT_YET_VALID"
		}
		return "CERT_HAS_EXPIRED"
	case errors.As(err, &unknown):
		switch {
		case selfSigned(chain[0]):
			return "DEPTH_ZERO_SELF_SIGNED_CERT"
		case selfSigned(chain[len(chain)-1]):
			return "SELF_SIGNED_CERT_IN_CHAIN"
		case len(chain) == 1:
			return "UNABLE_TO_VERIFY_LEAF_SIGNATURE"
		}
		return "UNABLE_TO_GET_ISSUER_CERT_LOCALLY"
	}
	return "CERT_UNTRUSTED"
}

// selfSigned reports whether c names itself as issuer and its signature
// verifies with its own key.
func selfSigned(c *x509.Certificate) bool {
	return bytes.Equal(c.RawIssuer, c.RawSubject) && c.CheckSignature(c.SignatureAlgorithm, c.RawTBSCertificate, c.Signature) == nil
}

// oidRSAPSS is RSASSA-PSS (RFC 4055) as a key's algorithm: an RSA key
// bound to PSS signatures, which crypto/x509 leaves unparsed.
var oidRSAPSS = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 10}

// keyInfo describes c's public key: its type, size, and whether it is
// too weak.
func keyInfo(c *x509.Certificate) (typ string, bits int, weak bool) {
	if c.PublicKeyAlgorithm == x509.UnknownPublicKeyAlgorithm {
		if n := rsaPSSBits(c.RawSubjectPublicKeyInfo); n > 0 {
			return "RSA-PSS", n, n < 2048
		}
	}
	switch k := c.PublicKey.(type) {
	case *rsa.PublicKey:
		return "RSA", k.N.BitLen(), k.N.BitLen() < 2048
	case *ecdsa.PublicKey:
		bits := k.Curve.Params().BitSize
		return "ECDSA", bits, bits < 224
	case ed25519.PublicKey:
		return "Ed25519", 256, false
	case *dsa.PublicKey:
		return "DSA", k.P.BitLen(), k.P.BitLen() < 2048
	}
	return "unknown", 0, false
}

// rsaPSSBits returns the modulus size of an RSASSA-PSS key in spki, 0
// when spki holds another kind of key.
func rsaPSSBits(spki []byte) int {
	var info struct {
		Algorithm struct {
			Algorithm  asn1.ObjectIdentifier
			Parameters asn1.RawValue `asn1:"optional"`
		}
		PublicKey asn1.BitString
	}
	if rest, err := asn1.Unmarshal(spki, &info); err != nil || len(rest) > 0 || !info.Algorithm.Algorithm.Equal(oidRSAPSS) {
		return 0
	}
	k, err := x509.ParsePKCS1PublicKey(info.PublicKey.RightAlign())
	if err != nil {
		return 0
	}
	return k.N.BitLen()
}

func weakSignature(a x509.SignatureAlgorithm) bool {
	switch a {
	case x509.MD2WithRSA, x509.MD5WithRSA, x509.SHA1WithRSA, x509.DSAWithSHA1, x509.ECDSAWithSHA1:
		return true
	}
	return false
}

// subjectAltName renders the SAN extension in certificate order, in
// OpenSSL's words. Entry kinds other than DNS, IP, email and URI are
// left out.
func subjectAltName(c *x509.Certificate) string {
	var raw []byte
	for _, e := range c.Extensions {
		if e.Id.Equal(asn1.ObjectIdentifier{2, 5, 29, 17}) {
			raw = e.Value
		}
	}
	s := cryptobyte.String(raw)
	var names cryptobyte.String
	if !s.ReadASN1(&names, cbasn1.SEQUENCE) {
		return ""
	}
	var out []string
	for !names.Empty() {
		var v cryptobyte.String
		var tag cbasn1.Tag
		if !names.ReadAnyASN1(&v, &tag) {
			break
		}
		switch tag {
		case cbasn1.Tag(1).ContextSpecific():
			out = append(out, "email:"+string(v))
		case cbasn1.Tag(2).ContextSpecific():
			out = append(out, "DNS:"+string(v))
		case cbasn1.Tag(6).ContextSpecific():
			out = append(out, "URI:"+string(v))
		case cbasn1.Tag(7).ContextSpecific():
			if len(v) == net.IPv4len || len(v) == net.IPv6len {
				out = append(out, "IP Address:"+net.IP(v).String())
			}
		}
	}
	return strings.Join(out, ", ")
}

// fingerprint hashes der with newHash and returns colon-separated
// upper-case hex, as OpenSSL prints fingerprints.
func fingerprint(newHash func() hash.Hash, der []byte) string {
	h := newHash()
	h.Write(der)
	var b strings.Builder
	for i, x := range h.Sum(nil) {
		if i > 0 {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%02X", x)
	}
	return b.String()
}

func first(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}

func ptr[T any](v T) *T { return &v }
