package web

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"
)

// TestEverySentinelHasOneStatus: each error in the table is listed once and is answered with
// its own status: no earlier, more general entry catches it, also when it is wrapped.
func TestEverySentinelHasOneStatus(t *testing.T) {
	for i, s := range statuses {
		for j := range i {
			if statuses[j].err == s.err {
				t.Errorf("%v is listed twice (entries %d and %d)", s.err, j, i)
			}
			if errors.Is(s.err, statuses[j].err) {
				t.Errorf("%v (entry %d, %d) is caught first by %v (entry %d, %d)", s.err, i, s.status, statuses[j].err, j, statuses[j].status)
			}
		}
		w := httptest.NewRecorder()
		Error(w, httptest.NewRequest("GET", "/api/x", nil), fmt.Errorf("context: %w", s.err))
		if w.Code != s.status {
			t.Errorf("a wrapped %v is answered %d, want %d", s.err, w.Code, s.status)
		}
	}
}
