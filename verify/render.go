// The rendering verifier's browser, in one file: finding and starting headless Chromium,
// its tabs, loading a capture and answering every request the page makes from it (none
// reaches the network). The three share one browser's lifetime; reading what it drew is in
// render_check.go.

package verify

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	cdptarget "github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"evidenceledger/fetch"
)

// sightJS is the rendering verifier's question to the browser (render.js).
//
//go:embed render.js
var sightJS string

// EnvChromium names the environment variable that gives the Chromium binary the rendering
// verifier starts, when no path is configured.
const EnvChromium = "LEDGER_CHROMIUM"

// chromiumNames are the names a Chromium binary is looked for by on the PATH, in order.
// The headless shell comes first: the same Blink renders the page, without the desktop
// browser's window, compositor and GPU process around it, which cost the rendering
// verifier about two fifths of the browser's CPU (docs/verification.md).
var chromiumNames = []string{"chromium-headless-shell", "chrome-headless-shell", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// MaxTabs is the most tabs the rendering verifier's browser has open at once.
const MaxTabs = 4

// RenderTimeout is the longest one rendering of a capture may take.
const RenderTimeout = 30 * time.Second

// FindChromium returns the Chromium binary to start: path when it is not empty, else the
// value of LEDGER_CHROMIUM, else the first of chromiumNames on the PATH. The error says
// what was looked for.
func FindChromium(path string) (string, error) {
	if path == "" {
		path = os.Getenv(EnvChromium)
	}
	if path != "" {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("no Chromium at %s: %w", path, err)
		}
		return p, nil
	}
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium on the PATH (looked for %s; set --chromium or %s)", strings.Join(chromiumNames, ", "), EnvChromium)
}

// RenderConfig configures a [Renderer].
type RenderConfig struct {
	// Binary is the Chromium to start; "" finds one (FindChromium).
	Binary string
	// Scripts lets the renderer read, with the page's own scripts on, an HTML page whose
	// static text has no words and that has a script (docs/verification.md, "Scripts on").
	Scripts bool
}

// Renderer is the rendering verifier's browser: one headless Chromium process, started
// the first time a capture is rendered, with at most MaxTabs tabs at once, each in a browser
// context of its own (no cache, cookie or storage shared between two renderings). Every
// request a page makes is answered from the capture through the DevTools protocol's request
// interception: the page from the capture's body, its style sheets from the sheets the
// fetcher fetched, everything else fails. The browser never opens a connection of its own:
// it is started with a proxy that is a listener of the Renderer's that refuses every
// connection and counts it ([Renderer.Stray]). Safe for concurrent use; Close ends the
// browser.
type Renderer struct {
	cfg RenderConfig
	// tabs holds a token for each open tab (at most MaxTabs); idle holds the open tabs
	// no rendering uses.
	tabs chan struct{}
	idle chan *tab

	mu       sync.Mutex
	started  bool
	closed   bool
	binary   string
	startErr error
	cancel   func()
	browser  context.Context
	proxy    net.Listener
	strayMu  sync.Mutex
	stray    map[string]int
}

// NewRenderer returns a Renderer; nothing is started until the first rendering.
func NewRenderer(cfg RenderConfig) *Renderer {
	return &Renderer{cfg: cfg, tabs: make(chan struct{}, MaxTabs), idle: make(chan *tab, MaxTabs), stray: map[string]int{}}
}

// Available returns the Chromium binary the renderer starts, or why there is none. It does
// not start it.
func (r *Renderer) Available() (string, error) {
	if r == nil {
		return "", errors.New("no rendering verifier configured")
	}
	return FindChromium(r.cfg.Binary)
}

// Stray returns, by host, the requests the browser tried to send itself, which its refusing
// proxy refused: no page's request is among them when every request was answered from the
// capture (the browser's own background services, such as its update check, may be).
func (r *Renderer) Stray() map[string]int {
	r.strayMu.Lock()
	defer r.strayMu.Unlock()
	return maps.Clone(r.stray)
}

// refuse reads the request line of a connection to the refusing proxy, notes its host and
// closes it unanswered.
func (r *Renderer) refuse(c net.Conn) {
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, _ := bufio.NewReader(io.LimitReader(c, 4096)).ReadString('\n')
	host := "?"
	if f := strings.Fields(line); len(f) >= 2 {
		target := f[1]
		if u, err := url.Parse(target); err == nil && u.Host != "" {
			host = u.Hostname()
		} else if h, _, err := net.SplitHostPort(target); err == nil {
			host = h
		}
	}
	r.strayMu.Lock()
	r.stray[host]++
	r.strayMu.Unlock()
}

// Close ends the browser, if it was started. Renderings after Close fail.
func (r *Renderer) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	for len(r.idle) > 0 {
		tb := <-r.idle
		tb.close()
		<-r.tabs
	}
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
	if r.proxy != nil {
		r.proxy.Close()
		r.proxy = nil
	}
	return nil
}

// Start starts the browser now rather than at the first rendering (a server may, to pay
// the start before the first check); it returns why it cannot start.
func (r *Renderer) Start() error {
	_, err := r.start()
	return err
}

// errNoBrowser wraps every failure to start the browser.
var errNoBrowser = errors.New("no browser to render the page")

// start starts the browser once; later calls return what the first found.
func (r *Renderer) start() (context.Context, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, fmt.Errorf("%w: the renderer is closed", errNoBrowser)
	}
	if r.started {
		return r.browser, r.startErr
	}
	r.started = true
	bin, err := FindChromium(r.cfg.Binary)
	if err != nil {
		r.startErr = fmt.Errorf("%w: %v", errNoBrowser, err)
		return nil, r.startErr
	}
	r.binary = bin
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.startErr = fmt.Errorf("%w: the refusing proxy: %v", errNoBrowser, err)
		return nil, r.startErr
	}
	r.proxy = ln
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go r.refuse(c)
		}
	}()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("dns-prefetch-disable", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("hide-scrollbars", true),
		// Anything the interception does not answer goes to the refusing proxy, loopback
		// included (<-loopback> drops the implicit bypass of local addresses).
		chromedp.ProxyServer("http://" + ln.Addr().String()),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.WindowSize(1280, 900),
		// One renderer process per tab at most, not one per site.
		chromedp.Flag("renderer-process-limit", strconv.Itoa(MaxTabs)),
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("disable-features", "site-per-process,IsolateOrigins,Translate,OptimizationHints,MediaRouter,InterestFeedContentSuggestions,CertificateTransparencyComponentUpdater,AutofillServerCommunication"),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil {
		cancelBrowser()
		cancelAlloc()
		r.startErr = fmt.Errorf("%w: starting %s: %v", errNoBrowser, bin, err)
		return nil, r.startErr
	}
	r.browser = bctx
	r.cancel = func() { cancelBrowser(); cancelAlloc() }
	return bctx, nil
}

// BrowserPID returns the process id of the browser, or 0 when it is not running.
func (r *Renderer) BrowserPID() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.browser == nil || r.cancel == nil {
		return 0
	}
	c := chromedp.FromContext(r.browser)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		return 0
	}
	return c.Browser.Process().Pid
}

// sightJob is one rendering of a capture.
type sightJob struct {
	page *fetch.Result
	// scripts: the page's inline scripts run (only those: the fetcher fetches no script).
	scripts bool
	// parts are, for each quote, the page's own text of each of its matched parts.
	parts [][]string
	// read, when set, is given the rendered document (its HTML after the scripts ran) and
	// returns the parts of the quotes found in it, which are then judged instead of parts.
	read func(html string) [][]string
}

// sight is the browser's answer for one quote: seen, or why not.
type sight struct {
	Seen bool   `json:"seen"`
	Why  string `json:"why"`
}

// tab is one of the browser's pooled tabs: its context, and the answers of the rendering it
// is showing (every request the tab makes is answered from them).
type tab struct {
	ctx    context.Context
	cancel func()
	mu     sync.Mutex
	cur    *answers
	done   chan struct{}
}

// openTab opens a tab in a browser context of its own, with the request interception on
// and the cache off, and starts answering its requests.
func (r *Renderer) openTab(bctx context.Context) (*tab, error) {
	tctx, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
	tb := &tab{ctx: tctx, cancel: cancel, done: make(chan struct{})}
	paused := chromedp.Events(tctx, cdpfetch.RequestPaused)
	go func() {
		defer close(tb.done)
		for ev, err := range paused {
			if err != nil {
				return
			}
			tb.mu.Lock()
			a := tb.cur
			tb.mu.Unlock()
			a.answer(tctx, ev)
		}
	}()
	err := chromedp.Do(tctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		// The network domain is on only for the cache switch: it keeps no response body
		// (by default DevTools keeps every one, in the browser process).
		one := int64(1)
		if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{MaxTotalBufferSize: &one, MaxResourceBufferSize: &one, MaxPostDataSize: &one}); err != nil {
			return err
		}
		// No rendering reads what another left in the cache.
		if _, err := cdp.Call(ctx, t, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
			return err
		}
		// The domains chromedp turns on for its DOM queries track every node and style
		// sheet of the page, at a cost that grows with it; the renderer asks the page
		// itself (render.js) and needs neither, nor attaching to frames.
		if _, err := cdp.Call(ctx, t, css.Disable, cdp.Empty{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, dom.Disable, cdp.Empty{}); err != nil {
			return err
		}
		// Nor the console and runtime events (every blocked image is a console message),
		// which also make the browser build a script context for every frame at once.
		for _, m := range []string{"Runtime.disable", "Log.disable", "Inspector.disable"} {
			if err := t.Call(ctx, m, cdp.Empty{}, nil); err != nil {
				return err
			}
		}
		if _, err := cdp.Call(ctx, t, cdptarget.SetAutoAttach, cdptarget.SetAutoAttachParams{AutoAttach: false, WaitForDebuggerOnStart: false}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, cdpfetch.Enable, cdpfetch.EnableParams{Patterns: []*cdpfetch.RequestPattern{{URLPattern: "*"}}})
		return err
	}))
	if err != nil {
		tb.close()
		return nil, err
	}
	return tb, nil
}

func (tb *tab) close() {
	tb.cancel()
	<-tb.done
}

// acquire returns an idle tab, or opens one while fewer than MaxTabs are open, or waits.
func (r *Renderer) acquire(ctx context.Context, bctx context.Context) (*tab, error) {
	for {
		select {
		case tb := <-r.idle:
			return tb, nil
		default:
		}
		select {
		case tb := <-r.idle:
			return tb, nil
		case r.tabs <- struct{}{}:
			tb, err := r.openTab(bctx)
			if err != nil {
				<-r.tabs
				return nil, err
			}
			return tb, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// release gives a tab back to the pool, or closes it when it failed or is not to be reused.
func (r *Renderer) release(tb *tab, reuse bool) {
	tb.mu.Lock()
	tb.cur = nil
	tb.mu.Unlock()
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if reuse && !closed {
		// The page is left for an empty one, so that nothing of it (an animation, a
		// frame's timer) goes on using the machine while the tab waits.
		ctx, cancel := context.WithTimeout(tb.ctx, RenderTimeout)
		err := chromedp.Do(ctx, chromedp.Navigate("about:blank"))
		cancel()
		reuse = err == nil
	}
	if reuse && !closed {
		select {
		case r.idle <- tb:
			return
		default:
		}
	}
	tb.close()
	<-r.tabs
}

// render loads job.page in a tab and asks render.js about the quotes' parts. A rendering
// with scripts on gets a tab of its own, closed after it, so that nothing a page's script
// stores reaches another rendering; the others reuse the pool's tabs, whose pages run no
// script and whose cache is off.
func (r *Renderer) render(ctx context.Context, job sightJob) (_ []sight, err error) {
	bctx, err := r.start()
	if err != nil {
		return nil, err
	}
	tb, err := r.acquire(ctx, bctx)
	if err != nil {
		return nil, fmt.Errorf("%w: opening a tab: %v", errNoBrowser, err)
	}
	defer func() { r.release(tb, err == nil && !job.scripts) }()
	tb.mu.Lock()
	tb.cur = newAnswers(job.page, job.scripts)
	tb.mu.Unlock()
	// The rendering's own time limit, and the check's context: whichever ends first.
	rctx, cancel := context.WithTimeout(tb.ctx, RenderTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()

	if err := load(rctx, job.page.FinalURL); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", job.page.FinalURL, err)
	}
	parts := job.parts
	if job.scripts {
		// The page's scripts run until the load event and two animation frames after it.
		if _, err := chromedp.Run(rctx, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => r(true), 0))))`, chromedp.EvalAwaitPromise)); err != nil {
			return nil, fmt.Errorf("rendering %s with its scripts: %w", job.page.FinalURL, err)
		}
	}
	if job.read != nil {
		html, err := chromedp.Run(rctx, chromedp.Evaluate[string](`"<!DOCTYPE html>" + document.documentElement.outerHTML`))
		if err != nil {
			return nil, fmt.Errorf("reading the rendered %s: %w", job.page.FinalURL, err)
		}
		parts = job.read(html)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	arg, err := json.Marshal(parts)
	if err != nil {
		return nil, err
	}
	out, err := chromedp.Run(rctx, chromedp.Evaluate[[]sight](sightJS+"("+string(arg)+")"))
	if err != nil {
		return nil, fmt.Errorf("asking the rendered %s where the quotes are: %w", job.page.FinalURL, err)
	}
	if len(out) != len(parts) {
		return nil, fmt.Errorf("the rendered %s answered for %d quotes, not %d", job.page.FinalURL, len(out), len(parts))
	}
	return out, nil
}

// load navigates the tab to u and waits until the document is parsed (DOMContentLoaded)
// and two animation frames have run: a frame is not drawn while a style sheet the page
// asked for is pending (they are render-blocking), so by then every sheet the capture
// answers is applied. It does not wait for the load event, which waits for every frame
// (an <iframe>'s document, which the capture does not hold and which costs a second on a
// page with thirty of them) and changes nothing in the page's own layout.
func load(ctx context.Context, u string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	parsed := chromedp.Events(ctx, page.DomContentEventFired)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		res, err := cdp.Call(ctx, t, page.Navigate, page.NavigateParams{URL: u})
		if err != nil {
			return err
		}
		if res.ErrorText != "" {
			return errors.New(res.ErrorText)
		}
		return nil
	}))
	if err != nil {
		return err
	}
	for _, err := range parsed {
		if err != nil {
			return err
		}
		break
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise))
	return err
}

// answers answers every request of one rendering from its capture.
type answers struct {
	page   *fetch.Result
	csp    string
	sheets map[string]*fetch.Sheet
	mu     sync.Mutex
	served bool
}

func newAnswers(page *fetch.Result, scripts bool) *answers {
	a := &answers{page: page, sheets: map[string]*fetch.Sheet{}}
	// The page asks for nothing the capture does not hold: only style sheets (answered from
	// the fetched ones, the others failed) and data: images and fonts, which are in the page
	// itself. No page script runs, unless scripts are on; then only its inline ones (the
	// fetcher fetches no script, so no other is in the capture). No image, font, frame,
	// worker, plugin or connection is requested at all, so a page of a thousand images asks
	// nothing of the interception but its sheets.
	a.csp = "default-src 'none'; style-src * 'unsafe-inline'; img-src data:; font-src data:; frame-src *; script-src 'none'"
	if scripts {
		a.csp = "default-src 'none'; style-src * 'unsafe-inline'; img-src data:; font-src data:; frame-src *; script-src 'unsafe-inline' 'unsafe-eval'"
	}
	for i := range page.Sheets {
		sh := &page.Sheets[i]
		// A sheet that was not fetched (robots.txt, the guard, a status, a type that is not
		// CSS, past MaxSheets) is not in the capture, so the browser gets a failure for it.
		if sh.Err != nil || sh.Capped {
			continue
		}
		for _, u := range []string{sh.URL, sh.FinalURL} {
			if u != "" {
				a.sheets[noFragment(u)] = sh
			}
		}
	}
	return a
}

func noFragment(u string) string {
	if p, err := url.Parse(u); err == nil {
		p.Fragment = ""
		return p.String()
	}
	return u
}

// answer fulfils the page's first document request with the capture, a style sheet request
// with the fetched sheet, and fails every other request.
func (a *answers) answer(ctx context.Context, ev fetchRequestPaused) {
	if a == nil {
		// Between two renderings (a tab closing, a late request): nothing is served.
		_, _ = chromedp.Call(ctx, cdpfetch.FailRequest, cdpfetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		return
	}
	u := noFragment(ev.Request.URL)
	a.mu.Lock()
	first := !a.served && ev.ResourceType == network.ResourceTypeDocument && u == noFragment(a.page.FinalURL)
	if first {
		a.served = true
	}
	a.mu.Unlock()
	var err error
	switch sh := a.sheets[u]; {
	case first:
		ct := a.page.ContentType
		if ct == "" {
			ct = "text/html"
		}
		_, err = chromedp.Call(ctx, cdpfetch.FulfillRequest, cdpfetch.FulfillRequestParams{
			RequestID:    ev.RequestID,
			ResponseCode: 200,
			ResponseHeaders: []*cdpfetch.HeaderEntry{
				{Name: "Content-Type", Value: ct},
				{Name: "Content-Security-Policy", Value: a.csp},
			},
			Body: a.page.Body,
		})
	case sh != nil && ev.ResourceType == network.ResourceTypeStylesheet:
		_, err = chromedp.Call(ctx, cdpfetch.FulfillRequest, cdpfetch.FulfillRequestParams{
			RequestID:       ev.RequestID,
			ResponseCode:    200,
			ResponseHeaders: []*cdpfetch.HeaderEntry{{Name: "Content-Type", Value: "text/css"}},
			Body:            sh.Body,
		})
	case ev.ResourceType == network.ResourceTypeDocument:
		// A frame's document is not in the capture. 204 No Content: a navigation answered
		// so is not made, so the frame keeps its initial empty document, as the page laid it
		// out (a failure would load an error page into it, a document of any kind costs a
		// new one for each frame, a process for each site).
		_, err = chromedp.Call(ctx, cdpfetch.FulfillRequest, cdpfetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: 204})
	default:
		_, err = chromedp.Call(ctx, cdpfetch.FailRequest, cdpfetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
	}
	_ = err // a tab closing under a pending request; nothing to answer any more
}

type fetchRequestPaused = cdpfetch.EventRequestPaused
