package tls

import (
	cryptotls "crypto/tls"
	"encoding/json"
	"testing"
)

func TestScanDebug(t *testing.T) {
	ca := newCA(t)
	cert := ca.issue(t, certSpec{cn: "site.test", dnsNames: []string{"site.test"}, rsa: true})
	addr := serveTLS(t, &cryptotls.Config{Certificates: []cryptotls.Certificate{cert}, MinVersion: cryptotls.VersionTLS10, MaxVersion: cryptotls.VersionTLS13,
		CipherSuites: []uint16{cryptotls.TLS_RSA_WITH_RC4_128_SHA, cryptotls.TLS_RSA_WITH_3DES_EDE_CBC_SHA, cryptotls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, cryptotls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA}})
	res, err := scanAt(t, addr, "site.test", ca.pool)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(res, "", " ")
	t.Logf("%s", b)
}
