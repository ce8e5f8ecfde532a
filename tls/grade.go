package tls

import (
	"slices"
	"strconv"
)

// Grades in order from best to worst: A+ to F, then M (the
// certificate does not name the host) and T (it is not trusted), which
// SSL Labs gives in place of a letter when trust fails.
var gradeOrder = []string{"A+", "A", "A-", "B", "C", "D", "E", "F", "M", "T"}

// worse returns the worse of two grades.
func worse(a, b string) string {
	if slices.Index(gradeOrder, b) > slices.Index(gradeOrder, a) {
		return b
	}
	return a
}

// grading accumulates the caps a result earns, each with its reason.
type grading struct {
	cap      string
	reasons  []string
	warnings []string
}

// capAt lowers the grade to at most g for reason.
func (gr *grading) capAt(g, reason string) {
	gr.cap = worse(gr.cap, g)
	gr.reasons = append(gr.reasons, g+": "+reason)
}

// rate grades r as SSL Labs' SSL Server Rating Guide (version 2009r)
// does: a score from protocol support (30%), key exchange (30%) and
// cipher strength (40%) gives A to F; then each rule caps it, named in
// the reasons. HSTS, which the guide's A+ needs, is an HTTP header a
// TLS scan does not read: the best grade given is A, with the reason.
func rate(r *Result) (grade string, reasons []string) {
	gr := &grading{cap: "A+"}
	p := r.Protocols
	c := r.Certificate
	v := r.Vulnerabilities

	// Trust: T and M replace the letter.
	switch {
	case c.AuthorizationError != nil && *c.AuthorizationError == CertificateNotRead:
		gr.capAt("T", "the certificate could not be read, so trust is not established")
	case !c.HostnameMatches && c.Chain.Length > 0 && c.AuthorizationError != nil && *c.AuthorizationError == "ERR_TLS_CERT_ALTNAME_INVALID":
		gr.capAt("M", "the certificate does not name the host")
	case !c.Trusted:
		gr.capAt("T", "the certificate is not trusted ("+deref(c.AuthorizationError)+")")
	}
	if c.Trusted && !c.HostnameMatches {
		gr.capAt("M", "the certificate does not name the host")
	}
	switch c.SignatureAlgorithm {
	case "MD2-RSA", "MD5-RSA":
		gr.capAt("F", "the certificate is signed with "+c.SignatureAlgorithm)
	case "SHA1-RSA", "DSA-SHA1", "ECDSA-SHA1":
		if !c.SelfSigned {
			gr.capAt("T", "the certificate is signed with SHA-1")
		}
	}

	// Score.
	best, worst := protocolScores(p)
	protocol := (best + worst) / 2
	kx := keyExchangeScore(r)
	bestBits, worstBits := cipherBits(r)
	cipher := (bitsScore(bestBits) + bitsScore(worstBits)) / 2
	score := protocol*30/100 + kx*30/100 + cipher*40/100
	if protocol == 0 || kx == 0 || cipher == 0 {
		score = 0
	}
	letter := "F"
	for _, t := range []struct {
		min    int
		letter string
	}{{80, "A"}, {65, "B"}, {50, "C"}, {35, "D"}, {20, "E"}} {
		if score >= t.min {
			letter = t.letter
			break
		}
	}
	if letter != "A" {
		gr.capAt(letter, "score "+itoa(score)+" (protocols "+itoa(protocol)+", key exchange "+itoa(kx)+", cipher strength "+itoa(cipher)+")")
	}

	// Protocol rules.
	switch {
	case p.SSL2:
		gr.capAt("F", "SSLv2 is offered (DROWN)")
	case best == 80:
		gr.capAt("F", "SSLv3 is the best protocol offered")
	}
	if p.SSL3 {
		gr.capAt("B", "SSLv3 is offered")
	}
	if p.TLS10 {
		gr.capAt("B", "TLS 1.0 is offered")
	}
	if p.TLS11 {
		gr.capAt("B", "TLS 1.1 is offered")
	}
	if !p.TLS12 && !p.TLS13 {
		gr.capAt("C", "neither TLS 1.2 nor TLS 1.3 is offered")
	}
	if !p.TLS13 {
		gr.warnings = append(gr.warnings, "TLS 1.3 is not offered")
	}

	// Key exchange.
	switch {
	case kx <= 40:
		gr.capAt("F", "an insecure key: "+keyWords(r))
	case kx <= 80:
		gr.capAt("B", "a weak key: "+keyWords(r))
	}

	// Suites.
	if worstBits < 112 {
		gr.capAt("F", "a suite weaker than 112 bits is offered")
	}
	suites := allSuites(r)
	if slices.ContainsFunc(suites, func(s suiteAt) bool { return s.suite.export() }) {
		gr.capAt("F", "an export suite is offered")
	}
	if slices.ContainsFunc(suites, func(s suiteAt) bool { return s.suite.anonymous() }) {
		gr.capAt("F", "an anonymous suite is offered")
	}
	if slices.ContainsFunc(suites, func(s suiteAt) bool { return s.suite.rc4() && s.version >= versionTLS11 }) {
		gr.capAt("C", "RC4 with TLS 1.1 or newer")
	} else if slices.ContainsFunc(suites, func(s suiteAt) bool { return s.suite.rc4() }) {
		gr.capAt("B", "RC4 is offered")
	}
	if slices.ContainsFunc(suites, func(s suiteAt) bool { return s.suite.block64() && s.version >= versionTLS11 }) {
		gr.capAt("C", "a 64-bit block cipher (3DES) with TLS 1.1 or newer (SWEET32)")
	}
	if !slices.ContainsFunc(suites, func(s suiteAt) bool { return s.suite.forwardSecret() }) {
		gr.capAt("B", "no forward secrecy")
	}
	if !slices.ContainsFunc(suites, func(s suiteAt) bool { return s.suite.aead() }) {
		gr.capAt("B", "no AEAD suite")
	}

	// Vulnerabilities.
	for _, f := range []struct {
		finding Finding
		grade   string
		name    string
	}{
		{v.Heartbleed.Finding, "F", "Heartbleed"}, {v.ROBOT.Finding, "F", "ROBOT"},
		{v.Poodle.Finding, "C", "POODLE (SSLv3 with CBC)"}, {v.CRIME, "C", "CRIME (TLS compression)"},
		{v.FREAK, "F", "FREAK"},
	} {
		if f.finding.Found() {
			gr.capAt(f.grade, "vulnerable to "+f.name)
		}
	}
	for _, g := range dhGroups(r) {
		switch {
		case g.Bits < 1024:
			gr.capAt("F", "DH group of "+itoa(g.Bits)+" bits (Logjam)")
		case g.Bits < 2048:
			gr.capAt("B", "DH group of "+itoa(g.Bits)+" bits")
		}
	}
	if !r.Advisory.SecureRenegotiation.Found() && (p.SSL3 || p.TLS10 || p.TLS11 || p.TLS12) {
		gr.warnings = append(gr.warnings, "no secure renegotiation (RFC 5746)")
	}
	if r.Vulnerabilities.Renegotiation.Found() && !r.Advisory.SecureRenegotiation.Found() {
		gr.capAt("F", "insecure client-initiated renegotiation")
	}

	grade = gr.cap
	if grade == "A+" { // no cap: A, A- with warnings; A+ needs HSTS, not read here
		grade = "A"
		if len(gr.warnings) > 0 {
			grade = "A-"
		}
	}
	reasons = gr.reasons
	for _, w := range gr.warnings {
		reasons = append(reasons, "A-: "+w)
	}
	if grade == "A" || grade == "A-" {
		reasons = append(reasons, "not A+: HSTS, which A+ needs, is an HTTP header a TLS scan does not read")
	}
	if reasons == nil {
		reasons = []string{}
	}
	return grade, reasons
}

// protocolScores are the guide's scores of the best and worst protocol
// offered.
func protocolScores(p Protocols) (best, worst int) {
	scores := []struct {
		on    bool
		score int
	}{{p.SSL2, 0}, {p.SSL3, 80}, {p.TLS10, 90}, {p.TLS11, 95}, {p.TLS12, 100}, {p.TLS13, 100}}
	best, worst = -1, -1
	for _, s := range scores {
		if !s.on {
			continue
		}
		if worst < 0 {
			worst = s.score
		}
		best = s.score
	}
	return max(best, 0), max(worst, 0)
}

// keyExchangeScore is the guide's key exchange score, from the
// certificate's key (RSA and DH by modulus, EC by curve).
func keyExchangeScore(r *Result) int {
	c := r.Certificate
	bits := c.KeyBits
	if bits == 0 {
		return 100 // not read: trust has already capped the grade
	}
	if c.KeyType == "ECDSA" || c.KeyType == "Ed25519" { // the guide's EC equivalents of 512 … 4096-bit RSA
		switch {
		case bits < 110:
			return 20
		case bits < 123:
			return 40
		case bits < 163:
			return 80
		case bits < 225:
			return 90
		}
		return 100
	}
	switch {
	case bits < 512:
		return 20
	case bits < 1024:
		return 40
	case bits < 2048:
		return 80
	case bits < 4096:
		return 90
	}
	return 100
}

// keyWords describes the certificate's key.
func keyWords(r *Result) string {
	return r.Certificate.KeyType + " " + itoa(r.Certificate.KeyBits) + " bits"
}

// bitsScore is the guide's cipher strength score of a key size.
func bitsScore(bits int) int {
	switch {
	case bits == 0:
		return 0
	case bits < 128:
		return 20
	case bits < 256:
		return 80
	}
	return 100
}

// suiteAt is a suite accepted with a version.
type suiteAt struct {
	version uint16
	suite   Suite
}

// allSuites lists every suite accepted, SSL 3.0 to TLS 1.3.
func allSuites(r *Result) []suiteAt {
	var out []suiteAt
	lists := []struct {
		v  uint16
		ps ProtocolSuites
	}{{versionSSL3, r.CipherSuites.SSL3}, {versionTLS10, r.CipherSuites.TLS10}, {versionTLS11, r.CipherSuites.TLS11},
		{versionTLS12, r.CipherSuites.TLS12}, {versionTLS13, r.CipherSuites.TLS13}}
	for _, l := range lists {
		for _, name := range l.ps.Suites {
			if s, ok := suiteByName(name); ok {
				out = append(out, suiteAt{l.v, s})
			}
		}
	}
	return out
}

// cipherBits are the strongest and weakest key sizes of the suites
// accepted (SSL 2.0's counted as weakest at 40 or more).
func cipherBits(r *Result) (best, worst int) {
	worst = 1 << 16
	for _, s := range allSuites(r) {
		b := s.suite.bits()
		best, worst = max(best, b), min(worst, b)
	}
	if len(r.CipherSuites.SSL2.Suites) > 0 {
		worst = min(worst, 40)
	}
	if worst == 1<<16 {
		worst = 0
	}
	return best, worst
}

// dhGroups are the finite-field groups of the DHE suites accepted.
func dhGroups(r *Result) []Group {
	var out []Group
	for _, ps := range []ProtocolSuites{r.CipherSuites.SSL3, r.CipherSuites.TLS10, r.CipherSuites.TLS11, r.CipherSuites.TLS12} {
		for _, g := range ps.KeyExchange {
			if g.Type == "DH" && !slices.ContainsFunc(out, func(h Group) bool { return h.Bits == g.Bits }) {
				out = append(out, g)
			}
		}
	}
	return out
}

// bits is the suite's effective key size for the guide's cipher
// strength: 0 without encryption, 40 or 56 for export and DES, 112 for
// 3DES, 128 for RC4, AES-128, CAMELLIA-128, ARIA-128, SEED, IDEA and
// SM4, 256 for AES-256, CAMELLIA-256, ARIA-256, ChaCha20 and GOST.
func (s Suite) bits() int {
	switch {
	case s.null():
		return 0
	case s.is("_40_"), s.is("EXPORT_WITH_RC4_40"), s.is("EXPORT40"):
		return 40
	case s.is("EXPORT1024_"), s.is("_DES_CBC_"), s.is("_DES40_"), s.is("_DES_"):
		if s.is("3DES") {
			return 112
		}
		return 56
	case s.is("3DES"):
		return 112
	case s.is("_256_"), s.is("CHACHA20"), s.is("_28147_"), s.is("KUZNYECHIK"), s.is("MAGMA"):
		return 256
	}
	return 128
}

// aead reports a suite with authenticated encryption: GCM, CCM,
// ChaCha20-Poly1305, and the TLS 1.3 suites.
func (s Suite) aead() bool {
	return s.is("_GCM_") || s.is("_CCM") || s.is("POLY1305") || (s.tls13() && !s.null())
}

// suiteByName finds a suite by its IANA name.
func suiteByName(name string) (Suite, bool) {
	i := slices.IndexFunc(ianaSuites, func(s Suite) bool { return s.Name == name })
	if i < 0 {
		return Suite{}, false
	}
	return ianaSuites[i], true
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func itoa(n int) string { return strconv.Itoa(n) }
