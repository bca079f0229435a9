package web

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

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
	// Five requests join while the first one's audit is held: they all get its run.
	calls := make([]*auditCall, 5)
	for i := range calls {
		calls[i] = a.join(context.Background(), audit)
		if calls[i] != calls[0] {
			t.Fatalf("request %d started a run of its own while one was going on", i)
		}
	}
	// One of them gives up; the run goes on for the others.
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := calls[4].wait(gone); !errors.Is(err, context.Canceled) {
		t.Errorf("a waiter that gave up: %v", err)
	}
	var wg sync.WaitGroup
	results := make([]*auditCall, 4)
	for i := range results {
		wg.Go(func() {
			c, err := calls[i].wait(context.Background())
			if err != nil {
				t.Error(err)
			}
			results[i] = c
		})
	}
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
