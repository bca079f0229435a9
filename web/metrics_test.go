package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// TestMetricsAccess: without a metrics token GET /metrics answers only a direct request from
// a loopback address (not one another host sent, not one a proxy forwarded); with a token it
// asks for that token, from anywhere.
func TestMetricsAccess(t *testing.T) {
	st, err := ledger.Open(context.Background(), t.TempDir(), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	const token = "a-metrics-token-of-some-length"
	open, guarded := New(Config{Ledger: st}), New(Config{Ledger: st, MetricsToken: token})
	for _, c := range []struct {
		desc   string
		h      http.Handler
		remote string
		header []string
		status int
	}{
		{"loopback", open, "127.0.0.1:5000", nil, 200},
		{"loopback over IPv6", open, "[::1]:5000", nil, 200},
		{"another host", open, "203.0.113.7:5000", nil, 403},
		{"forwarded by a proxy on loopback", open, "127.0.0.1:5000", []string{"X-Forwarded-For", "203.0.113.7"}, 403},
		{"Forwarded by a proxy on loopback", open, "127.0.0.1:5000", []string{"Forwarded", "for=203.0.113.7"}, 403},
		{"token: none sent", guarded, "127.0.0.1:5000", nil, 401},
		{"token: a wrong one", guarded, "203.0.113.7:5000", []string{"Authorization", "Bearer wrong-token-of-some-length"}, 401},
		{"token: the right one, from another host", guarded, "203.0.113.7:5000", []string{"Authorization", "Bearer " + token}, 200},
	} {
		t.Run(c.desc, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/metrics", nil)
			r.RemoteAddr = c.remote
			for i := 0; i < len(c.header); i += 2 {
				r.Header.Set(c.header[i], c.header[i+1])
			}
			w := httptest.NewRecorder()
			c.h.ServeHTTP(w, r)
			if w.Code != c.status {
				t.Fatalf("%d %s; want %d", w.Code, w.Body, c.status)
			}
			if c.status == 200 && !strings.Contains(w.Body.String(), "ledger_events ") {
				t.Fatalf("no ledger gauges in %s", w.Body)
			}
			if c.status != 200 && strings.Contains(w.Body.String(), "ledger_") {
				t.Fatal("a refused scrape got metrics")
			}
		})
	}
}

// TestCountingStoreKeepsLocksAndRuns: the store the server's check jobs record through
// counts checks and is still the ledger's check locker and run keeper, so a server job
// holds its batch's lock (a `ledger check` of the batch is refused meanwhile) and keeps its
// run to be resumed.
func TestCountingStoreKeepsLocksAndRuns(t *testing.T) {
	st, err := ledger.Open(context.Background(), t.TempDir(), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cs := NewMetrics().CheckStore(st, nil)
	if _, ok := cs.(verify.CheckLocker); !ok {
		t.Error("the counting store of a *ledger.Store is not a verify.CheckLocker: server jobs would take no check lock")
	}
	if _, ok := cs.(verify.RunKeeper); !ok {
		t.Error("the counting store of a *ledger.Store is not a verify.RunKeeper: stopped runs would not resume")
	}
}
