package web

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"evidenceledger/ledger"
)

// TestAuditRunOneAtATime: requests that come while an audit runs wait for it and get its
// report; a request after it ends starts a new run; a waiter that gives up does not stop the
// run for the others.
func TestAuditRunOneAtATime(t *testing.T) {
	var a auditRun
	var runs atomic.Int32
	release := make(chan struct{})
	audit := func(ctx context.Context) (ledger.Report, error) {
		n := runs.Add(1)
		<-release
		return ledger.Report{OK: true, Events: int64(n)}, ctx.Err()
	}
	var wg sync.WaitGroup
	results := make([]*auditCall, 4)
	for i := range results {
		wg.Go(func() {
			c, err := a.run(context.Background(), audit)
			if err != nil {
				t.Error(err)
			}
			results[i] = c
		})
	}
	gone, cancel := context.WithCancel(context.Background())
	wg.Go(func() {
		if _, err := a.run(gone, audit); !errors.Is(err, context.Canceled) {
			t.Errorf("a waiter that gave up: %v", err)
		}
	})
	// Time for every request to join the run before it ends.
	time.Sleep(300 * time.Millisecond)
	cancel()
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if runs.Load() != 1 {
		t.Fatalf("%d audits ran for 5 concurrent requests; want 1", runs.Load())
	}
	for i, c := range results {
		if c != results[0] || !c.report.OK || c.report.Events != 1 {
			t.Fatalf("request %d got %+v; want the one run's report", i, c)
		}
	}
	c, err := a.run(context.Background(), audit)
	if err != nil || runs.Load() != 2 || c.report.Events != 2 {
		t.Fatalf("a request after the run: %+v %v, %d runs; want a new run", c, err, runs.Load())
	}
}
