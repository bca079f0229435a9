package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestServeCountsPDFEngineFailures: a PDF that no engine can read, checked through the
// server, adds one to ledger_pdf_engine_failures_total for each verifier that fetched it
// (scraped before and after, parsed with the Prometheus text parser), and the check comes
// out unreachable as before.
func TestServeCountsPDFEngineFailures(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/broken.pdf" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.7\nthis is no PDF body an engine can parse\n%%EOF\n"))
	}))
	defer site.Close()
	data := t.TempDir()
	token := strings.TrimSpace(ledgerCmd(t, data, "user", "add", "olga", "--role", "operator").stdout)
	base := startServe(t, "--data", data, "--fetch-allow", "127.0.0.0/8", "--fetch-delay", "0", "--render=false")
	before := scrape(t, base)
	var batch struct{ Batch string }
	call(t, "POST", base+"/api/research", token, fmt.Sprintf(`{"claims":[{"text":"The report counted 12 firms.","citations":[{"url":"%s/broken.pdf","quote":"the report counted 12 firms"}]}]}`, site.URL),
		http.StatusCreated, &batch)
	var job struct{ Job string }
	call(t, "POST", base+"/api/batches/"+batch.Batch+"/check", token, "", http.StatusAccepted, &job)
	for state := ""; state != "done"; {
		var st struct{ State string }
		call(t, "GET", base+"/api/jobs/"+job.Job+"?wait=60", token, "", http.StatusOK, &st)
		if state = st.State; state == "failed" {
			t.Fatal("the check job failed")
		}
	}
	after := scrape(t, base)
	// delta is how much a counter went up; a counter not shown yet is at 0.
	delta := func(name string, l map[string]string) float64 {
		return max(value(after, name, l), 0) - max(value(before, name, l), 0)
	}
	for _, verifier := range []string{"dom", "tokens"} {
		l := map[string]string{"verifier": verifier}
		if d := delta("ledger_pdf_engine_failures_total", l); d != 1 {
			t.Errorf("ledger_pdf_engine_failures_total{verifier=%q} went up by %v; want 1", verifier, d)
		}
	}
	l := map[string]string{"status": "unreachable"}
	if d := delta("ledger_checks_total", l); d != 1 {
		t.Errorf("ledger_checks_total{status=unreachable} went up by %v; want 1", d)
	}
}
