package web

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"time"
)

// logRequests writes one log line per request: an id (also sent as X-Request-Id), the
// method, the route pattern (not the path, which may name a document or a claim), the
// status, the time taken and the bytes written. It never logs a header, a cookie, a token,
// a query, a form or a body: what a line holds is listed here and nothing else.
func logRequests(log *slog.Logger, mux *http.ServeMux, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b [8]byte
		rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		w.Header().Set("X-Request-Id", id)
		_, route := mux.Handler(r)
		if route == "" {
			route = "unrouted"
		}
		cw := &countWriter{statusWriter: statusWriter{ResponseWriter: w, code: http.StatusOK}}
		start := time.Now()
		next.ServeHTTP(cw, r)
		log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("request_id", id), slog.String("method", r.Method), slog.String("route", route),
			slog.Int("status", cw.code), slog.Duration("took", time.Since(start)), slog.Int64("bytes", cw.n))
	})
}

// countWriter is a statusWriter that counts the body's bytes.
type countWriter struct {
	statusWriter
	n int64
}

func (w *countWriter) Write(b []byte) (int, error) {
	n, err := w.statusWriter.Write(b)
	w.n += int64(n)
	return n, err
}
