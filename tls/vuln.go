package tls

import (
	"strconv"
	"strings"
)

// Finding is a vulnerability verdict and what it rests on. It has
// three outcomes: vulnerable (true), not vulnerable (false), and not
// tested (null, with NotTestedReason saying why); a check that did not
// run never reads false.
type Finding struct {
	// Vulnerable is the verdict; null when the check was not tested.
	Vulnerable *bool `json:"vulnerable"`
	// Evidence lists what the verdict rests on, such as
	// "TLSv1.2 TLS_RSA_WITH_3DES_EDE_CBC_SHA"; empty when not vulnerable.
	Evidence []string `json:"evidence"`
	// NotTestedReason says why the check was not tested ("no version
	// from TLS 1.0 to TLS 1.2", "no answer: the probe timed out twice");
	// empty when it was.
	NotTestedReason string `json:"notTestedReason,omitempty"`
}

// Found reports whether the check found the vulnerability.
func (f Finding) Found() bool { return f.Vulnerable != nil && *f.Vulnerable }

// tested records the verdict of a check that ran.
func (f *Finding) tested(vulnerable bool) { f.Vulnerable, f.NotTestedReason = ptr(vulnerable), "" }

// notTested records that the check did not run, and why.
func (f *Finding) notTested(reason string) { f.Vulnerable, f.NotTestedReason = nil, reason }

// Poodle is the POODLE verdict (SSL 3.0 with a CBC suite) and the
// downgrade protection that limits it.
type Poodle struct {
	Finding
	// FallbackSCSV is true when the server refuses a downgraded hello
	// that carries TLS_FALLBACK_SCSV, false when it accepts it, null when
	// it could not be tested (fewer than two versions from SSL 3.0 up).
	FallbackSCSV *bool `json:"fallbackScsv"`
}

// Vulnerabilities are verdicts derived from the enumerated protocols
// and suites.
type Vulnerabilities struct {
	// Poodle: SSL 3.0 with a CBC suite.
	Poodle Poodle `json:"poodle"`
	// DROWN: SSL 2.0 is enabled (without the cross-server key reuse
	// analysis a full check needs).
	DROWN Finding `json:"drown"`
	// FREAK: an RSA_EXPORT suite is accepted.
	FREAK Finding `json:"freak"`
	// Logjam, as testssl.sh judges it: a DHE_EXPORT suite is accepted,
	// or a DHE suite uses a group under 1024 bits, or a 1024-bit group
	// with a widely shared prime (Group.CommonPrime).
	Logjam Finding `json:"logjam"`
	// Sweet32: a suite with a 64-bit block cipher (3DES, DES, IDEA, RC2)
	// is accepted.
	Sweet32 Finding `json:"sweet32"`
	// RC4: an RC4 suite is accepted.
	RC4 Finding `json:"rc4"`
	// NullCipher: a suite without encryption is accepted.
	NullCipher Finding `json:"nullCipher"`
	// AnonymousCipher: a suite without server authentication is
	// accepted.
	AnonymousCipher Finding `json:"anonymousCipher"`
	// CRIME: the server picks TLS-level DEFLATE compression.
	CRIME Finding `json:"crime"`
	// BEAST: a CBC suite is accepted with SSL 3.0 or TLS 1.0, whose
	// records use a predictable IV. Browsers mitigate it by record
	// splitting; testssl.sh still reports it.
	BEAST Finding `json:"beast"`
	// Heartbleed: the server answers a heartbeat request with bytes from
	// beyond it (CVE-2014-0160).
	Heartbleed Heartbleed `json:"heartbleed"`
	// ROBOT: the server reacts differently to differently malformed RSA
	// premaster secrets, a Bleichenbacher padding oracle.
	ROBOT Robot `json:"robot"`
	// Renegotiation: the server renegotiates when a client asks.
	Renegotiation Renegotiation `json:"renegotiation"`
}

// Advisory are signals, not verdicts.
type Advisory struct {
	// SecureRenegotiation: a ServerHello carried renegotiation_info
	// (RFC 5746). Its absence does not by itself make a server
	// vulnerable.
	SecureRenegotiation Signal `json:"secureRenegotiation"`
	// OCSPStapling: the server stapled an OCSP response to the full
	// handshake.
	OCSPStapling Signal `json:"ocspStapling"`
	// PostQuantum: TLS 1.3 accepts a post-quantum or hybrid key exchange
	// (X25519MLKEM768, SecP256r1MLKEM768, …); Details names them.
	PostQuantum Signal `json:"postQuantum"`
	// SessionIDResumption: a TLS 1.0–1.2 session is resumed by its
	// session ID.
	SessionIDResumption Signal `json:"sessionIdResumption"`
	// SessionTicketResumption: a TLS 1.0–1.2 session is resumed by a
	// session ticket (RFC 5077).
	SessionTicketResumption Signal `json:"sessionTicketResumption"`
}

// Signal is an advisory signal: supported (true), not supported
// (false), or not tested (null, Details saying why).
type Signal struct {
	Supported *bool  `json:"supported"`
	Details   string `json:"details"`
}

// Found reports whether the signal was found supported.
func (s Signal) Found() bool { return s.Supported != nil && *s.Supported }

// signal is a tested Signal.
func signal(supported bool, details string) Signal {
	return Signal{Supported: ptr(supported), Details: details}
}

// untested is a Signal that was not tested, and why.
func untested(reason string) Signal { return Signal{Details: "not tested: " + reason} }

// evidence collects the findings' evidence and turns it into verdicts.
type evidence map[*Finding][]string

func (ev evidence) add(f *Finding, item string) { ev[f] = append(ev[f], item) }

// vulnerabilities derives the verdicts from the enumerations.
func vulnerabilities(enums []*enumeration, f *findings) Vulnerabilities {
	v := Vulnerabilities{Heartbleed: f.heartbleed, ROBOT: f.robot, Renegotiation: f.renegotiation}
	ev := evidence{}
	for _, e := range enums {
		if e.version == versionSSL2 && e.supported() {
			ev.add(&v.DROWN, "SSLv2 enabled")
			for _, c := range e.ssl2Ciphers {
				ev.add(&v.DROWN, "SSLv2 "+c)
			}
		}
		if e.compression {
			ev.add(&v.CRIME, e.name+" DEFLATE compression")
		}
		for _, id := range e.suites {
			s, _ := SuiteByID(id)
			item := e.name + " " + s.Name
			if e.version == versionSSL3 && s.cbc() {
				ev.add(&v.Poodle.Finding, item)
			}
			if (e.version == versionSSL3 || e.version == versionTLS10) && s.cbc() {
				ev.add(&v.BEAST, item)
			}
			checks := []struct {
				f  *Finding
				is bool
			}{
				{&v.FREAK, s.rsaExport()},
				{&v.Logjam, s.dheExport()},
				{&v.Sweet32, s.block64()},
				{&v.RC4, s.rc4()},
				{&v.NullCipher, s.null()},
				{&v.AnonymousCipher, s.anonymous()},
			}
			for _, c := range checks {
				if c.is {
					ev.add(c.f, item)
				}
			}
			if g, ok := e.groups[id]; ok && g.Type == "DH" && !s.dheExport() {
				switch {
				case g.Bits < 1024:
					ev.add(&v.Logjam, item+" "+strconv.Itoa(g.Bits)+"-bit DH group")
				case g.Bits == 1024 && g.CommonPrime != nil:
					ev.add(&v.Logjam, item+" 1024-bit DH group, common prime "+*g.CommonPrime)
				}
			}
		}
	}
	var unfinished []string // versions whose suites are not all known
	for _, e := range enums {
		if !e.finished {
			unfinished = append(unfinished, e.key)
		}
	}
	for _, finding := range []*Finding{&v.Poodle.Finding, &v.DROWN, &v.FREAK, &v.Logjam, &v.Sweet32, &v.RC4,
		&v.NullCipher, &v.AnonymousCipher, &v.CRIME, &v.BEAST} {
		finding.Evidence = append([]string{}, ev[finding]...)
		switch {
		case len(finding.Evidence) > 0:
			finding.tested(true)
		case len(unfinished) > 0:
			finding.notTested("the suites of " + strings.Join(unfinished, ", ") + " are not all known (see unfinished)")
		default:
			finding.tested(false)
		}
	}
	v.Poodle.FallbackSCSV = f.fallback
	return v
}

// advisory derives the advisory signals.
func advisory(enums []*enumeration, hs *handshake, f *findings) Advisory {
	a := Advisory{SessionIDResumption: f.resumption.ids, SessionTicketResumption: f.resumption.tickets}
	legacy, secure := false, false
	for _, e := range enums {
		if e.version >= versionSSL3 && e.version <= versionTLS12 && e.supported() {
			legacy = true
			secure = secure || e.renegotiationInfo
		}
	}
	switch {
	case secure:
		a.SecureRenegotiation = signal(true, "renegotiation_info in the ServerHello (RFC 5746)")
	case legacy:
		a.SecureRenegotiation = signal(false, "no renegotiation_info in the ServerHello")
	default:
		a.SecureRenegotiation = untested("no version below TLS 1.3, which has no renegotiation")
	}
	tls13 := enums[len(enums)-1]
	var kems []string
	for _, g := range tls13.groups13 {
		if g.Type == "KEM" {
			kems = append(kems, g.Name)
		}
	}
	switch {
	case len(kems) > 0:
		a.PostQuantum = signal(true, "TLSv1.3 accepts "+strings.Join(kems, ", "))
	case tls13.supported() && f.groups13 == nil:
		a.PostQuantum = untested("the TLSv1.3 groups were not enumerated (see unfinished)")
	case tls13.supported():
		a.PostQuantum = signal(false, "TLSv1.3 accepts no post-quantum group")
	default:
		a.PostQuantum = untested("no TLSv1.3")
	}
	switch {
	case hs.state == nil:
		a.OCSPStapling = untested("no full handshake completed")
	case len(hs.state.OCSPResponse) > 0:
		a.OCSPStapling = signal(true, "an OCSP response was stapled")
	default:
		a.OCSPStapling = signal(false, "no OCSP response was stapled")
	}
	return a
}
