package web

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// Metrics are a server's Prometheus metrics, served at GET /metrics (docs/operations.md,
// "Metrics"). Each server has its own registry: nothing is global, so two servers in one
// process (tests) do not share counts. The counters count what this process did since it
// started; the gauges read the ledger at each scrape.
type Metrics struct {
	reg          *prometheus.Registry
	requests     *prometheus.HistogramVec
	checks       *prometheus.CounterVec
	fetches      *prometheus.CounterVec
	pdfFailures  *prometheus.CounterVec
	modelCalls   *prometheus.CounterVec
	modelTokens  *prometheus.CounterVec
	audits       *prometheus.CounterVec
	auditSeconds prometheus.Histogram
}

// NewMetrics makes the metrics of one server, with the Go runtime's and the process's own.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "ledger_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route pattern, method and status code.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"route", "method", "code"}),
		checks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ledger_checks_total", Help: "Citation checks recorded by this process, by the status they gave.",
		}, []string{"status"}),
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ledger_fetches_total", Help: "Page fetches by this process's verifiers, by outcome: ok, or why not (robots.txt, blocked address, login wall, HTTP status, timeout, ...).",
		}, []string{"outcome"}),
		pdfFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ledger_pdf_engine_failures_total", Help: "PDFs fetched by this process's verifiers that their PDF engine could not read, by verifier (dom and third: PDFium; tokens: the Go PDF reader).",
		}, []string{"verifier"}),
		modelCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ledger_model_calls_total", Help: "Model calls of recorded checks, by tier and outcome (ok, or what went wrong).",
		}, []string{"tier", "outcome"}),
		modelTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ledger_model_tokens_total", Help: "Tokens of the model calls of recorded checks, by tier and kind (prompt, completion).",
		}, []string{"tier", "kind"}),
		audits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ledger_audits_total", Help: "Audits run by this server (GET /api/audit, the audit page), by result: ok, failed (the chain does not hold), error (the audit could not run).",
		}, []string{"result"}),
		auditSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "ledger_audit_duration_seconds", Help: "Time an audit took.",
			Buckets: prometheus.ExponentialBuckets(0.01, 4, 10),
		}),
	}
	m.reg.MustRegister(m.requests, m.checks, m.fetches, m.pdfFailures, m.modelCalls, m.modelTokens, m.audits, m.auditSeconds,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// ObserveFetch counts one fetch by its outcome: "" for a page fetched, else the fetch's error
// kind (fetch.Kind's words). It is the fetch.Config Observe hook of the server's checker.
func (m *Metrics) ObserveFetch(outcome string) {
	if outcome == "" {
		outcome = "ok"
	}
	m.fetches.WithLabelValues(outcome).Inc()
}

// ObservePDFFailure counts one PDF that verifier's PDF engine could not read. It is the
// verify.Checker WithPDFFailures hook of the server's checker.
func (m *Metrics) ObservePDFFailure(verifier string) {
	m.pdfFailures.WithLabelValues(verifier).Inc()
}

// CheckStore wraps the store the check jobs record into, counting each check recorded by the
// status it gave and its model calls and tokens, and, when log is not nil, writing one log
// line per check (ids, status, the stored page's hash; never a quote, a note or a page).
// What it records is inner's, unchanged. When inner is also a [verify.CheckLocker] and a
// [verify.RunKeeper] (as *ledger.Store is), so is the store it returns: the jobs hold the
// batch's check lock and keep their runs through it.
func (m *Metrics) CheckStore(inner verify.CheckStore, log *slog.Logger) verify.CheckStore {
	c := countingStore{CheckStore: inner, m: m, log: log}
	if full, ok := inner.(lockingStore); ok {
		return countingLockingStore{countingStore: c, CheckLocker: full, RunKeeper: full}
	}
	return c
}

// lockingStore is a check store that is also a check locker and a run keeper.
type lockingStore interface {
	verify.CheckStore
	verify.CheckLocker
	verify.RunKeeper
}

// countingLockingStore is [Metrics.CheckStore] of a [lockingStore].
type countingLockingStore struct {
	countingStore
	verify.CheckLocker
	verify.RunKeeper
}

// countingStore is [Metrics.CheckStore].
type countingStore struct {
	verify.CheckStore
	m   *Metrics
	log *slog.Logger
}

func (c countingStore) RecordCheck(ctx context.Context, actor string, ch evidence.Checked, body, reqHead, respHead []byte, seam *evidence.SeamOpened) error {
	err := c.CheckStore.RecordCheck(ctx, actor, ch, body, reqHead, respHead, seam)
	if err == nil {
		c.m.checked(ch)
	}
	if c.log != nil {
		attrs := []slog.Attr{slog.String("citation", ch.Citation), slog.String("claim", ch.Claim), slog.String("status", string(ch.Status)), slog.String("actor", actor)}
		if ch.Document != nil {
			attrs = append(attrs, slog.String("document", ch.Document.SHA256))
		}
		if seam != nil {
			attrs = append(attrs, slog.String("seam", seam.Seam))
		}
		level := slog.LevelInfo
		if err != nil {
			level = slog.LevelError
			attrs = append(attrs, slog.String("error", err.Error()))
		}
		c.log.LogAttrs(ctx, level, "check recorded", attrs...)
	}
	return err
}

// checked counts a recorded check.
func (m *Metrics) checked(ch evidence.Checked) {
	m.checks.WithLabelValues(string(ch.Status)).Inc()
	if ch.Support == nil {
		return
	}
	for _, call := range ch.Support.Calls {
		outcome := call.Outcome
		if outcome != "ok" {
			outcome = "failed"
		}
		m.modelCalls.WithLabelValues(call.Tier, outcome).Inc()
		m.modelTokens.WithLabelValues(call.Tier, "prompt").Add(float64(call.PromptTokens))
		m.modelTokens.WithLabelValues(call.Tier, "completion").Add(float64(call.CompletionTokens))
	}
}

// observeAudit counts one audit run.
func (m *Metrics) observeAudit(took time.Duration, rep ledger.Report, err error) {
	result := "ok"
	switch {
	case err != nil:
		result = "error"
	case !rep.OK:
		result = "failed"
	}
	m.audits.WithLabelValues(result).Inc()
	m.auditSeconds.Observe(took.Seconds())
}

// statsLedger is what the scrape-time gauges read.
type statsLedger interface {
	Stats(ctx context.Context) (ledger.Stats, error)
}

// ledgerCollector reads the ledger's counts at each scrape (see [ledger.Store.Stats]).
type ledgerCollector struct {
	store                                         statsLedger
	now                                           func() time.Time
	citations, seams, events, cpSize, cpAge, fail *prometheus.Desc
}

func newLedgerCollector(store statsLedger) *ledgerCollector {
	return &ledgerCollector{
		store:     store,
		now:       time.Now,
		citations: prometheus.NewDesc("ledger_citations", "Citations in the ledger, by status.", []string{"status"}, nil),
		seams:     prometheus.NewDesc("ledger_seams_open", "Open seams, waiting for a person, by kind.", []string{"kind"}, nil),
		events:    prometheus.NewDesc("ledger_events", "Events in the chain.", nil, nil),
		cpSize:    prometheus.NewDesc("ledger_checkpoint_size", "Tree size of the latest signed checkpoint.", nil, nil),
		cpAge:     prometheus.NewDesc("ledger_checkpoint_age_seconds", "Age of the latest signed checkpoint: now less the time of its last event.", nil, nil),
		fail:      prometheus.NewDesc("ledger_stats_error", "1 when the ledger's counts could not be read at this scrape.", nil, nil),
	}
}

func (c *ledgerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.citations, c.seams, c.events, c.cpSize, c.cpAge, c.fail} {
		ch <- d
	}
}

func (c *ledgerCollector) Collect(ch chan<- prometheus.Metric) {
	st, err := c.store.Stats(context.Background())
	if err != nil {
		ch <- prometheus.MustNewConstMetric(c.fail, prometheus.GaugeValue, 1)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.fail, prometheus.GaugeValue, 0)
	for _, s := range []evidence.Status{evidence.StatusReported, evidence.StatusFound, evidence.StatusNotFound, evidence.StatusUnreachable} {
		ch <- prometheus.MustNewConstMetric(c.citations, prometheus.GaugeValue, float64(st.Citations[string(s)]), string(s))
	}
	for kind, n := range st.OpenSeams {
		ch <- prometheus.MustNewConstMetric(c.seams, prometheus.GaugeValue, float64(n), kind)
	}
	ch <- prometheus.MustNewConstMetric(c.events, prometheus.GaugeValue, float64(st.Events))
	ch <- prometheus.MustNewConstMetric(c.cpSize, prometheus.GaugeValue, float64(st.CheckpointSize))
	if st.CheckpointSize > 0 {
		ch <- prometheus.MustNewConstMetric(c.cpAge, prometheus.GaugeValue, c.now().Sub(st.CheckpointAt).Seconds())
	}
}

// handleMetrics is GET /metrics: for a scraper only. With a metrics token configured, the
// request must carry it as a bearer token; without one, only a direct request from a
// loopback address is answered (not one a proxy forwarded: it carries Forwarded or
// X-Forwarded-For).
func (s *server) handleMetrics(h http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if tok := s.cfg.MetricsToken; tok != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(tok)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
				http.Error(w, "send the metrics token: Authorization: Bearer TOKEN (ledger serve --metrics-token-file)", http.StatusUnauthorized)
				return
			}
		} else if !directLoopback(r) {
			http.Error(w, "metrics are served to loopback only; start the server with --metrics-token-file to scrape from elsewhere", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	}
}

// directLoopback reports whether r came from a loopback address and not through a proxy.
func directLoopback(r *http.Request) bool {
	if r.Header.Get("Forwarded") != "" || r.Header.Get("X-Forwarded-For") != "" {
		return false
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// handler is the Prometheus text exposition of m's registry and the ledger's gauges.
func (m *Metrics) handler(store statsLedger) http.Handler {
	m.reg.MustRegister(newLedgerCollector(store))
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
