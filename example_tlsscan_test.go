package sitediag_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http/httptest"

	"github.com/sitediag/sitediag"
)

// ExampleClient_TLSScan scans a local TLS 1.2–1.3 server. The fixture
// listens on loopback, so the example allows that one address, as an
// operator would for an internal host.
func ExampleClient_TLSScan() {
	srv := httptest.NewUnstartedServer(nil)
	srv.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the scan leaves handshakes unfinished
	srv.StartTLS()
	defer srv.Close()
	addr := srv.Listener.Addr().(*net.TCPAddr)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())

	c := newExampleClient(sitediag.Config{AllowNetworks: loopback, RootCAs: roots})
	defer c.Close()
	res, err := c.TLSScan(context.Background(), fmt.Sprintf("https://127.0.0.1:%d", addr.Port), sitediag.TLSScanOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", res.Protocols)
	fmt.Println(res.Certificate.Issuer.Organization, res.Certificate.HostnameMatches, res.Certificate.Trusted)
	fmt.Println(res.Vulnerabilities.RC4.Found(), res.Vulnerabilities.Sweet32.Found())
	// Output:
	// {SSL2:false SSL3:false TLS10:false TLS11:false TLS12:true TLS13:true}
	// Acme Co true true
	// false false
}
