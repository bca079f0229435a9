package fetch

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPoliteness reads the waits the fetcher asks for before each request to one host after
// the first (robots.txt, then /a, then /b: two waits), on a clock that stands still, so the
// figures are exact whatever the machine's speed.
func TestPoliteness(t *testing.T) {
	tests := []struct {
		desc          string
		robots        string
		minDelay      time.Duration
		maxCrawlDelay time.Duration
		want          []time.Duration
	}{
		{"minimum delay between requests", "", 150 * time.Millisecond, -1, []time.Duration{150 * time.Millisecond, 150 * time.Millisecond}},
		{"Crawl-delay is honoured", "User-agent: *\nCrawl-delay: 0.3\n", -1, time.Second, []time.Duration{300 * time.Millisecond, 300 * time.Millisecond}},
		{"Crawl-delay is capped", "User-agent: *\nCrawl-delay: 100\n", -1, 200 * time.Millisecond, []time.Duration{200 * time.Millisecond, 200 * time.Millisecond}},
		{"the longer of the two applies", "User-agent: *\nCrawl-delay: 0.3\n", 500 * time.Millisecond, time.Second, []time.Duration{500 * time.Millisecond, 500 * time.Millisecond}},
		{"no delay when both are off", "User-agent: *\nCrawl-delay: 100\n", -1, -1, nil},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			s := newSite(t, robotsText(tc.robots))
			s.mux.HandleFunc("/a", page("<p>x</p>"))
			s.mux.HandleFunc("/b", page("<p>x</p>"))
			cfg := testConfig()
			cfg.MinDelay, cfg.MaxCrawlDelay = tc.minDelay, tc.maxCrawlDelay
			at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
			cfg.Now = func() time.Time { return at }
			f := New(cfg)
			var waits []time.Duration
			f.polite.sleep = func(_ context.Context, d time.Duration) error {
				waits = append(waits, d)
				return nil
			}
			for _, p := range []string{"/a", "/b"} {
				if _, err := f.Fetch(context.Background(), "http://"+s.host("a.test")+p); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(waits, tc.want) {
				t.Errorf("waits between requests = %v, want %v", waits, tc.want)
			}
		})
	}
}

// TestPolitenessWaitIsCancelled: a fetch that waits its turn ends when its context does.
func TestPolitenessWaitIsCancelled(t *testing.T) {
	p := newPolite(time.Hour, -1, 1, time.Now)
	release, err := p.acquire(context.Background(), "a.test")
	if err != nil {
		t.Fatal(err)
	}
	release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.acquire(ctx, "a.test"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a wait of an hour with its context ended: %v, want context.Canceled", err)
	}
	// The host's turn was given back: a later request waits for the delay again, not for
	// the cancelled one.
	if len(p.host("a.test").slot) != 0 {
		t.Fatal("the cancelled wait kept the host's turn")
	}
}

func slowPage(w http.ResponseWriter, r *http.Request) {
	time.Sleep(60 * time.Millisecond)
	page("<p>x</p>")(w, r)
}

func TestOneRequestAtATimePerHost(t *testing.T) {
	s := newSite(t, nil)
	s.mux.HandleFunc("/", slowPage)
	f := New(testConfig())
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			if _, err := f.Fetch(context.Background(), "http://"+s.host("a.test")+"/p"+string(rune('0'+i))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p := s.peakInFlight.Load(); p != 1 {
		t.Errorf("peak requests in flight to one host = %d, want 1", p)
	}
}

// TestGlobalConcurrency: over four hosts, never more requests in flight than the limit,
// and the limit is reached: the first two requests each wait, in flight, for the other.
func TestGlobalConcurrency(t *testing.T) {
	var mu sync.Mutex
	inFlight, peak := 0, 0
	pair := make(chan struct{})
	var arrivals atomic.Int32
	tracked := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		mu.Unlock()
		switch arrivals.Add(1) {
		case 1:
			<-pair
		case 2:
			close(pair)
		}
		page("<p>x</p>")(w, r)
		mu.Lock()
		inFlight--
		mu.Unlock()
	}
	var sites []*site
	for range 4 {
		s := newSite(t, nil)
		s.mux.HandleFunc("/", tracked)
		sites = append(sites, s)
	}
	cfg := testConfig()
	cfg.Concurrency = 2
	f := New(cfg)
	var wg sync.WaitGroup
	for i, s := range sites {
		for j := range 3 {
			wg.Go(func() {
				// Politeness is per host name, so each site gets its own.
				host := s.host(string(rune('a'+i)) + ".test")
				if _, err := f.Fetch(context.Background(), "http://"+host+"/p"+string(rune('0'+j))); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	if peak != 2 {
		t.Errorf("peak page requests in flight over all hosts = %d, want 2 (the limit)", peak)
	}
}

// TestFetchAgainRequestsAgain: a Fetcher keeps no per-URL state. Fetching a page again
// requests it again, however often (a check run keeps its own captures and decides when to
// fetch again); only robots.txt is cached, per origin.
func TestFetchAgainRequestsAgain(t *testing.T) {
	s := newSite(t, nil)
	var hits atomic.Int32
	s.mux.HandleFunc("/x", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		page("<p>x</p>")(w, r)
	})
	f := New(testConfig())
	u := "http://" + s.host("a.test") + "/x"
	for i := range 6 {
		if _, err := f.Fetch(context.Background(), u); err != nil {
			t.Fatalf("fetch %d: %v", i+1, err)
		}
	}
	if got := hits.Load(); got != 6 {
		t.Errorf("%d requests for 6 fetches, want 6", got)
	}
	if got := s.robotsHits.Load(); got != 1 {
		t.Errorf("%d robots.txt requests, want 1 (cached per origin)", got)
	}
}

func TestRobotsCacheExpires(t *testing.T) {
	s := newSite(t, robotsText("User-agent: *\nDisallow: /closed\n"))
	s.mux.HandleFunc("/x", page("<p>x</p>"))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := testConfig()
	cfg.Now = func() time.Time { return now }
	f := New(cfg)
	u := "http://" + s.host("a.test") + "/x"
	steps := []struct {
		advance time.Duration
		hits    int32
	}{{0, 1}, {23 * time.Hour, 1}, {2 * time.Hour, 2}}
	for _, st := range steps {
		now = now.Add(st.advance)
		if _, err := f.Fetch(context.Background(), u); err != nil {
			t.Fatal(err)
		}
		if got := s.robotsHits.Load(); got != st.hits {
			t.Errorf("after %v robots.txt was fetched %d times, want %d", st.advance, got, st.hits)
		}
	}
}

// TestFetchersShareNothing checks two Fetchers each read robots.txt and open their own
// connection.
func TestFetchersShareNothing(t *testing.T) {
	s := newSite(t, nil)
	s.mux.HandleFunc("/x", page("<p>x</p>"))
	u := "http://" + s.host("a.test") + "/x"
	for range 2 {
		f := New(testConfig())
		for range 2 {
			if _, err := f.Fetch(context.Background(), u); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := s.robotsHits.Load(); got != 2 {
		t.Errorf("robots.txt fetched %d times by two fetchers, want 2", got)
	}
	if got := s.newConns.Load(); got != 2 {
		t.Errorf("%d connections for two fetchers making 3 requests each, want 2 (one each, reused)", got)
	}
}
