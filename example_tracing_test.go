package sitediag_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/sitediag/sitediag"
)

func ExampleConfig_tracing() {
	// A local DNS server stands in for the operator's resolver.
	srv := exampleDNS("shop.test. 300 IN A 192.0.2.10")
	defer srv.Close()

	// The caller's provider, with its own exporter (OTLP, say); here one
	// that keeps the spans in memory.
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())

	c := newExampleClient(sitediag.Config{DNSServers: []string{srv.Addr}, TracerProvider: tp})
	defer c.Close()
	// 192.0.2.0/24 is not a target: the SSRF policy refuses it.
	_, err := c.Up(context.Background(), "https://shop.test/", sitediag.UpOptions{})
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
