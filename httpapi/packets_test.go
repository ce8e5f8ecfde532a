package httpapi_test

import (
	"encoding/json"
	"testing"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/netnstest"
	"github.com/sitediag/sitediag/internal/testenv"
)

// packetCall is one request the child in the client namespace sends
// through the real handler.
type packetCall struct {
	Path string
	Body map[string]any
	// Refused runs the handler with the default allow list (loopback
	// only), so the topology's ranges are denied.
	Refused bool
}

type packetReply struct {
	Status   int
	Envelope map[string]any
}

// TestPacketsAcrossNamespaces drives /ping and /mtr through the real
// handler from the client namespace of the topology: the handler's
// client exempts exactly the topology's documentation ranges, and its
// DNS server knows PTR names and origin AS records for them.
func TestPacketsAcrossNamespaces(t *testing.T) {
	if netnstest.Child() {
		var calls []packetCall
		netnstest.Arg(t, &calls)
		replies := make([]packetReply, len(calls))
		for i, call := range calls {
			opts := apitest.Options{Allow: netnstest.Networks, Config: sitediag.Config{ASNOriginZone: "origin.test", ASNOrigin6Zone: "origin6.test"}}
			if call.Refused {
				opts = apitest.Options{}
			}
			api := apitest.New(t, opts)
			api.DNS.Add(t,
				"target.test. 60 IN A 203.0.113.2",
				"1.2.0.192.in-addr.arpa. 60 IN PTR r1.site.test.",
				"2.113.0.203.in-addr.arpa. 60 IN PTR target.site.test.",
				`2.113.0.203.origin.test. 60 IN TXT "64500 | 203.0.113.0/24 | ZZ | test | 2024-01-01"`,
				`2.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.3.0.0.0.8.b.d.0.1.0.0.2.origin6.test. 60 IN TXT "64501 | 2001:db8:3::/48 | ZZ | test | 2024-01-01"`,
			)
			resp := api.Post(t, call.Path, call.Body)
			replies[i] = packetReply{Status: resp.Status, Envelope: resp.Envelope}
		}
		netnstest.Output(t, replies)
		return
	}
	tp := netnstest.New(t)
	arrivals := tp.CountArrivals(t)
	run := func(t *testing.T, calls ...packetCall) []packetReply {
		t.Helper()
		var replies []packetReply
		tp.Run(t, "^TestPacketsAcrossNamespaces$", calls, &replies)
		return replies
	}

	t.Run("ping", func(t *testing.T) {
		replies := run(t,
			packetCall{Path: "/ping", Body: map[string]any{"url": "target.test", "count": 3}},
			packetCall{Path: "/ping", Body: map[string]any{"url": "2001:db8:3::2"}},
		)
		for i, want := range []struct {
			url, ip string
			count   int
		}{{"target.test", "203.0.113.2", 3}, {"[2001:db8:3::2]", "2001:db8:3::2", 4}} {
			env := successEnvelope(t, replies[i])
			meta, data := env["meta"].(map[string]any), env["data"].(map[string]any)
			if meta["url"] != want.url || meta["count"] != float64(want.count) {
				t.Errorf("meta = %v, want url %s count %d", meta, want.url, want.count)
			}
			for _, k := range []string{"requests", "loss", "latency", "min", "max", "avg", "stdDev", "ip", "method", "replies"} {
				if _, ok := data[k]; !ok {
					t.Errorf("data has no %q: %v", k, data)
				}
			}
			if data["ip"] != want.ip || data["method"] != "icmp" || data["loss"] != float64(0) ||
				data["requests"] != float64(want.count) || len(data["replies"].([]any)) != want.count {
				t.Errorf("data = %v, want %d ICMP replies from %s, no loss", data, want.count, want.ip)
			}
		}
	})

	t.Run("mtr", func(t *testing.T) {
		replies := run(t,
			packetCall{Path: "/mtr", Body: map[string]any{"url": "http://target.test/", "count": 2}},
			packetCall{Path: "/mtr", Body: map[string]any{"url": "2001:db8:3::2", "count": 1, "maxHops": 5, "noLookup": true}},
		)
		wants := [][][3]string{
			{{"r1.site.test", "192.0.2.1", "AS???"}, {"198.51.100.2", "198.51.100.2", "AS???"}, {"target.site.test", "203.0.113.2", "AS64500"}},
			{{"2001:db8:1::1", "2001:db8:1::1", "AS???"}, {"2001:db8:2::2", "2001:db8:2::2", "AS???"}, {"2001:db8:3::2", "2001:db8:3::2", "AS64501"}},
		}
		for i, want := range wants {
			env := successEnvelope(t, replies[i])
			meta := env["meta"].(map[string]any)
			hops, _ := env["data"].([]any)
			if len(hops) != 3 {
				t.Fatalf("call %d: %d hops %v, want the two routers and the target", i, len(hops), hops)
			}
			for j, h := range hops {
				hop := h.(map[string]any)
				for _, k := range []string{"hop", "host", "ip", "asn", "loss", "sent", "last", "avg", "best", "worst", "stdDev"} {
					if _, ok := hop[k]; !ok {
						t.Errorf("hop has no %q: %v", k, hop)
					}
				}
				if hop["hop"] != float64(j+1) || hop["host"] != want[j][0] || hop["ip"] != want[j][1] || hop["asn"] != want[j][2] || hop["loss"] != float64(0) {
					t.Errorf("call %d hop %d = %v, want host %s ip %s asn %s", i, j+1, hop, want[j][0], want[j][1], want[j][2])
				}
			}
			if i == 0 && (meta["url"] != "target.test" || meta["ip"] != "203.0.113.2" || meta["count"] != float64(2) || meta["maxHops"] != float64(30)) {
				t.Errorf("meta = %v", meta)
			}
		}
	})

	t.Run("refused target", func(t *testing.T) {
		before := arrivals(t)
		replies := run(t,
			packetCall{Path: "/ping", Body: map[string]any{"url": "203.0.113.2"}, Refused: true},
			packetCall{Path: "/mtr", Body: map[string]any{"url": "target.test"}, Refused: true},
			packetCall{Path: "/openport", Body: map[string]any{"url": "2001:db8:3::2", "portRanges": "22,80,443"}, Refused: true},
		)
		for i, r := range replies {
			if r.Status != 403 || r.Envelope["message"] != string(sitediag.CodeTargetNotAllowed) {
				t.Errorf("call %d: got %d %v, want 403 TARGET_NOT_ALLOWED", i, r.Status, r.Envelope)
			}
		}
		if n := arrivals(t) - before; n != 0 {
			t.Fatalf("%d packets reached the refused target", n)
		}
	})
}

func successEnvelope(t *testing.T, r packetReply) map[string]any {
	t.Helper()
	if r.Status != 200 || r.Envelope["apiStatus"] != "success" {
		body, _ := json.Marshal(r.Envelope)
		t.Fatalf("got %d %s, want success", r.Status, body)
	}
	return r.Envelope
}

func TestPingLoopback(t *testing.T) {
	testenv.NeedRoot(t)
	api := apitest.New(t, apitest.Options{})
	meta, data := api.Post(t, "/ping", map[string]any{"url": "http://127.0.0.1:8080/", "count": 2}).WantSuccess(t)
	d := data.(map[string]any)
	if meta["url"] != "127.0.0.1:8080" || d["method"] != "icmp" || d["requests"] != float64(2) || d["loss"] != float64(0) || d["ip"] != "127.0.0.1" {
		t.Fatalf("meta %v data %v, want 2 ICMP replies from 127.0.0.1", meta, d)
	}
}

func TestMTRLoopback(t *testing.T) {
	testenv.NeedRoot(t)
	api := apitest.New(t, apitest.Options{})
	_, data := api.Post(t, "/mtr", map[string]any{"url": "127.0.0.1", "count": 1}).WantSuccess(t)
	hops := data.([]any)
	if len(hops) != 1 || hops[0].(map[string]any)["ip"] != "127.0.0.1" || hops[0].(map[string]any)["host"] != "127.0.0.1" {
		t.Fatalf("hops = %v, want one, 127.0.0.1 (no PTR name)", hops)
	}
}

// TestZeroMeansTheDefault: an explicit 0 reads as the default, as for
// every numeric option of the API and the library's zero-value options.
func TestZeroMeansTheDefault(t *testing.T) {
	testenv.NeedRoot(t)
	api := apitest.New(t, apitest.Options{})
	for _, tc := range []struct {
		path string
		body map[string]any
		want map[string]any
	}{
		{"/ping", map[string]any{"url": "127.0.0.1", "count": 0}, map[string]any{"count": 4.0}},
		{"/mtr", map[string]any{"url": "127.0.0.1", "count": 0, "maxHops": 0, "noLookup": true}, map[string]any{"count": 5.0, "maxHops": 30.0}},
		{"/openport", map[string]any{"url": "127.0.0.1", "topPorts": 0}, map[string]any{"topPorts": 100.0}},
	} {
		meta, _ := api.Post(t, tc.path, tc.body).WantSuccess(t)
		for k, v := range tc.want {
			if meta[k] != v {
				t.Errorf("%s %v: meta.%s = %v, want %v", tc.path, tc.body, k, meta[k], v)
			}
		}
	}
}

func TestPingAndMTRErrors(t *testing.T) {
	wantErrors(t, apitest.New(t, apitest.Options{}), []errorCase{
		{"", "/ping", map[string]any{"url": ""}, 400, sitediag.CodeInvalidURL, ""},
		{"", "/ping", map[string]any{"url": "0x7f.1"}, 400, sitediag.CodeInvalidURL, ""},
		{"", "/ping", map[string]any{"url": "127.0.0.1", "count": 17}, 400, sitediag.CodeInvalidParameters, "count"},
		{"", "/ping", map[string]any{"url": "127.0.0.1", "count": -1}, 400, sitediag.CodeInvalidParameters, "count"},
		{"", "/ping", map[string]any{"url": "127.0.0.1", "count": "4"}, 400, sitediag.CodeInvalidParameters, "count"},
		{"", "/ping", map[string]any{"url": "127.0.0.1", "proxyCountry": "de"}, 400, sitediag.CodeInvalidParameters, "HTTP proxy"},
		{"", "/ping", map[string]any{"url": "10.1.2.3"}, 403, sitediag.CodeTargetNotAllowed, ""},
		{"", "/ping", map[string]any{"url": "missing.test"}, 422, sitediag.CodeUnableToConnect, "name not resolved"},
		{"", "/mtr", map[string]any{"url": "ftp://x.test"}, 400, sitediag.CodeInvalidURL, ""},
		{"", "/mtr", map[string]any{"url": "127.0.0.1", "count": 21}, 400, sitediag.CodeInvalidParameters, "count"},
		{"", "/mtr", map[string]any{"url": "127.0.0.1", "maxHops": 65}, 400, sitediag.CodeInvalidParameters, "maxHops"},
		{"", "/mtr", map[string]any{"url": "127.0.0.1", "proxyCountry": "us"}, 400, sitediag.CodeInvalidParameters, "HTTP proxy"},
		{"", "/mtr", map[string]any{"url": "127.0.0.1", "followRedirect": true}, 400, sitediag.CodeInvalidParameters, "followRedirect"},
		{"", "/mtr", map[string]any{"url": "169.254.169.254"}, 403, sitediag.CodeTargetNotAllowed, ""},
		{"", "/mtr", map[string]any{"url": "missing.test"}, 422, sitediag.CodeUnableToConnect, "name not resolved"},
	})
}
