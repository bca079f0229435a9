package web

import (
	"context"
	"sync"
	"time"

	"evidenceledger/ledger"
)

// auditRun lets one audit run at a time per server. The audit recomputes the whole chain
// and replays it into an empty database, which holds a core for as long as the ledger is
// big; a request that comes while one runs waits for that run and gets its report (the run
// started before the request, and says when), rather than starting another.
type auditRun struct {
	mu  sync.Mutex
	cur *auditCall
	// observe, when not nil, is told of each run's end (the server's metrics).
	observe func(took time.Duration, rep ledger.Report, err error)
}

// auditCall is one run of the audit and, once done is closed, its result.
type auditCall struct {
	done   chan struct{}
	report ledger.Report
	err    error
	at     time.Time
	took   time.Duration
}

// run returns the result of the audit running now, or of a new run of audit when none is.
// The run is not tied to the request that started it: a person closing the page does not
// cancel it for those who wait. A request whose ctx ends stops waiting with ctx's error.
func (a *auditRun) run(ctx context.Context, audit func(context.Context) (ledger.Report, error)) (*auditCall, error) {
	return a.join(ctx, audit).wait(ctx)
}

// join returns the run of the audit going on now, or starts a new run of audit when none
// is; ctx's values, not its end, go to the run.
func (a *auditRun) join(ctx context.Context, audit func(context.Context) (ledger.Report, error)) *auditCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur != nil {
		return a.cur
	}
	c := &auditCall{done: make(chan struct{}), at: time.Now()}
	a.cur = c
	go func() {
		c.report, c.err = audit(context.WithoutCancel(ctx))
		c.took = time.Since(c.at)
		if a.observe != nil {
			a.observe(c.took, c.report, c.err)
		}
		a.mu.Lock()
		a.cur = nil
		a.mu.Unlock()
		close(c.done)
	}()
	return c
}

// wait returns c once its run is over, or ctx's error when ctx ends first.
func (c *auditCall) wait(ctx context.Context) (*auditCall, error) {
	select {
	case <-c.done:
		return c, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
