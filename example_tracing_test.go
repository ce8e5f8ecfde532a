package sitediag_test

import (
	"context"
	"fmt"
	"log"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/dnstest"
)

func ExampleConfig_tracing() {
	// A local DNS server stands in for the operator's resolver.
	srv, err := dnstest.Listen()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	if err := srv.AddText("shop.test. 300 IN A 192.0.2.10"); err != nil {
		log.Fatal(err)
	}

	// The caller's provider, with its own exporter (OTLP, say); here one
	// that keeps the spans in memory.
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())

	c, err := sitediag.New(sitediag.Config{DNSServers: []string{srv.Addr}, TracerProvider: tp})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	// 192.0.2.0/24 is not a target: the SSRF policy refuses it.
	_, err = c.Up(context.Background(), "https://shop.test/", sitediag.UpOptions{})
	fmt.Println(sitediag.CodeOf(err))
	for _, s := range spans.GetSpans() {
		fmt.Println(s.Name, s.Status.Code)
		for _, kv := range s.Attributes {
			fmt.Printf("  %s=%s\n", kv.Key, kv.Value.String())
		}
	}
	// Output:
	// TARGET_NOT_ALLOWED
	// resolve Error
	//   dns.question.name=shop.test
	//   sitediag.resolve.answers=1
	//   sitediag.resolve.addresses=["192.0.2.10"]
	//   sitediag.refusal.class=special-purpose
	// sitediag.Up Error
	//   sitediag.target=https://shop.test/
	//   sitediag.error.code=TARGET_NOT_ALLOWED
}
