package fetch

import (
	"context"
	"sync"
	"time"
)

// polite spaces requests: one at a time per host, at least a delay between the end of one
// and the start of the next, and a global limit on requests in flight.
type polite struct {
	minDelay      time.Duration
	maxCrawlDelay time.Duration
	global        chan struct{}
	now           func() time.Time
	// sleep waits d or until ctx ends (ctx's error); a test drives it instead of waiting.
	sleep func(ctx context.Context, d time.Duration) error

	mu    sync.Mutex
	hosts map[string]*hostState
}

type hostState struct {
	slot       chan struct{} // holds a token while a request to the host is in flight
	last       time.Time     // end of the last request
	crawlDelay time.Duration // from robots.txt, capped
}

func newPolite(minDelay, maxCrawlDelay time.Duration, concurrency int, now func() time.Time) *polite {
	return &polite{
		minDelay:      minDelay,
		maxCrawlDelay: maxCrawlDelay,
		global:        make(chan struct{}, concurrency),
		now:           now,
		sleep:         sleepCtx,
		hosts:         map[string]*hostState{},
	}
}

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *polite) host(name string) *hostState {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.hosts[name]
	if h == nil {
		h = &hostState{slot: make(chan struct{}, 1)}
		p.hosts[name] = h
	}
	return h
}

// setCrawlDelay records a host's robots.txt Crawl-delay, capped at maxCrawlDelay.
func (p *polite) setCrawlDelay(name string, d time.Duration) {
	h := p.host(name)
	h.slot <- struct{}{}
	h.crawlDelay = min(d, p.maxCrawlDelay)
	<-h.slot
}

// acquire waits for the host's turn and a global slot; release must be called when the
// request (body included) is done. It fails only when ctx ends first.
func (p *polite) acquire(ctx context.Context, name string) (release func(), err error) {
	h := p.host(name)
	select {
	case h.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if !h.last.IsZero() {
		if wait := h.last.Add(max(p.minDelay, h.crawlDelay)).Sub(p.now()); wait > 0 {
			if err := p.sleep(ctx, wait); err != nil {
				<-h.slot
				return nil, err
			}
		}
	}
	select {
	case p.global <- struct{}{}:
	case <-ctx.Done():
		<-h.slot
		return nil, ctx.Err()
	}
	return func() {
		h.last = p.now()
		<-p.global
		<-h.slot
	}, nil
}
