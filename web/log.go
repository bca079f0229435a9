package web

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// observeRequests times every request into m by the route pattern the mux gives it and,
// when log is not nil, writes one log line per request: an id (also sent as X-Request-Id),
// the method, the route pattern (not the path, which may name a document or a claim), the
// status, the time taken and the bytes written. It never logs a header, a cookie, a token,
// a query, a form or a body: what a line holds is listed here and nothing else. The route is
// found, and the writer wrapped, once per request for both.
func observeRequests(m *Metrics, log *slog.Logger, mux *http.ServeMux, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var id string
		if log != nil {
			var b [8]byte
			rand.Read(b[:])
			id = hex.EncodeToString(b[:])
			w.Header().Set("X-Request-Id", id)
		}
		_, route := mux.Handler(r)
		if route == "" {
			route = "unrouted"
		}
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		start := time.Now()
		next.ServeHTTP(sw, r)
		took := time.Since(start)
		m.requests.WithLabelValues(route, r.Method, strconv.Itoa(sw.code)).Observe(took.Seconds())
		if log != nil {
			log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("request_id", id), slog.String("method", r.Method), slog.String("route", route),
				slog.Int("status", sw.code), slog.Duration("took", took), slog.Int64("bytes", sw.n))
		}
	})
}

// statusWriter remembers the status code a handler wrote and counts the body's bytes.
type statusWriter struct {
	http.ResponseWriter
	code  int
	wrote bool
	n     int64
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.code, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection's writer (flushes, deadlines).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
