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

	mu    sync.Mutex
	hosts map[string]*hostState
}

type hostState struct {
	slot       chan struct{} // holds a token while a request to the host is in flight
	last       time.Time     // end of the last request
	crawlDelay time.Duration // from robots.txt, capped
}

func newPolite(minDelay, maxCrawlDelay time.Duration, concurrency int) *polite {
	return &polite{
		minDelay:      minDelay,
		maxCrawlDelay: maxCrawlDelay,
		global:        make(chan struct{}, concurrency),
		hosts:         map[string]*hostState{},
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
		if wait := time.Until(h.last.Add(max(p.minDelay, h.crawlDelay))); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				<-h.slot
				return nil, ctx.Err()
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
		h.last = time.Now()
		<-p.global
		<-h.slot
	}, nil
}
