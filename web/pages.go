package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log"
	"net/http"
	"path"
	"strings"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// The pages are server-rendered html/template pages that use htmx where a browser runs it
// and work as plain links and form posts where it does not.
//
// Fragments: one rule everywhere. A route answers its whole page; when the request carries
// "HX-Request: true" (and is not an htmx history restore) it answers only the fragment its
// page's htmx element targets, a {{define}} block in the same template file, so page and
// fragment share their markup. Answers vary on HX-Request.

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/htmx.min.js static/htmx.LICENSE static/app.css static/favicon.svg
var staticFS embed.FS

// contentSecurityPolicy allows our own scripts, styles and images only: no inline script,
// no inline style, no frames, forms posting only to us.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// errCrossSite answers a state-changing request that a browser sent from another site.
var errCrossSite = fmt.Errorf("this request came from another site and was refused; use the forms of this server: %w", errForbidden)

// pages holds what the page handlers share: templates parsed once, static file hashes and
// the first-run state.
type pages struct {
	tmpl   map[string]*template.Template
	static map[string]string // file name -> first 16 hex of its SHA-256
	setup  *setup
}

// newPages parses the templates and hashes the static files; a template that does not parse
// is a bug of the build, so it panics.
func newPages(setupToken string) *pages {
	p := &pages{tmpl: map[string]*template.Template{}, static: map[string]string{}, setup: newSetup(setupToken)}
	err := fs.WalkDir(staticFS, "static", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(name)
		sum := sha256.Sum256(b)
		p.static[path.Base(name)] = hex.EncodeToString(sum[:8])
		return err
	})
	if err != nil {
		panic(fmt.Sprintf("read embedded static files: %v", err))
	}
	funcs := template.FuncMap{
		"static":    func(name string) string { return "/static/" + name + "?v=" + p.static[name] },
		"when":      func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
		"short":     func(h string) string { return shortHash(h) },
		"highlight": highlight,
		"showURL":   hideCredentials,
		"inc":       func(i int) int { return i + 1 },
		"strength":  strengthWord,
		"duration":  humanDuration,
		"splitNote": splitNote,
		"count":     func(m map[evidence.Status]int, s evidence.Status) int { return m[s] },
		"status":    statusTable,
		"withData":  func(v view, d any) view { v.Data = d; return v },
		"sourceRow": func(src ledger.SourceView, classes []string) sourceRow {
			return sourceRow{Source: src, Classes: classes}
		},
	}
	base := template.Must(template.New("base").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html"))
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	for _, n := range names {
		name := strings.TrimSuffix(path.Base(n), ".html")
		if name == "layout" || name == "partials" {
			continue
		}
		p.tmpl[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, n))
	}
	return p
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

// view is what every template receives.
type view struct {
	Title  string
	Viewer viewer
	Data   any
	// Refresh makes a browser without JavaScript reload the page every two seconds.
	Refresh bool
}

// isHTMX reports whether r asks for a fragment.
func isHTMX(r *http.Request) bool {
	return r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-History-Restore-Request") != "true"
}

// securityHeaders sets the headers every HTML answer carries.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
}

// render executes the page's template (its whole layout, or for an htmx request the fragment
// named frag when frag is not empty) into a buffer, and writes it only when it succeeded: a
// failed render is a clean 500.
func (s *server) render(w http.ResponseWriter, r *http.Request, status int, page, frag string, v view) {
	t, ok := s.pages.tmpl[page]
	if !ok {
		s.renderFailed(w, r, fmt.Errorf("no template %q", page))
		return
	}
	if ctxV, ok := viewerFrom(r.Context()); ok && v.Viewer.User.Name == "" {
		v.Viewer = ctxV
	}
	name := "layout"
	if frag != "" && isHTMX(r) {
		name = frag
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, v); err != nil {
		s.renderFailed(w, r, fmt.Errorf("render %s/%s: %w", page, name, err))
		return
	}
	h := w.Header()
	securityHeaders(h)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Add("Vary", "HX-Request")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func (s *server) renderFailed(w http.ResponseWriter, r *http.Request, err error) {
	log.Printf("%s %s: %v", r.Method, r.URL.Path, err)
	securityHeaders(w.Header())
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	fmt.Fprintln(w, "internal error: the page could not be drawn; the server log has the details")
}

// pageError answers err as an error page with the status its kind maps to (the same table
// as the API's [Error]); an error of no known kind is a 500 whose details are logged only.
// For an htmx request the message goes into the page's #messages box instead.
func (s *server) pageError(w http.ResponseWriter, r *http.Request, v viewer, err error) {
	status, known := statusOf(err)
	msg := err.Error()
	switch {
	case !known:
		status, msg = http.StatusInternalServerError, "internal error; the server log has the details"
		log.Printf("%s %s: %v", r.Method, r.URL.Path, err)
	case status >= 500:
		logCause(r, err)
	}
	if isHTMX(r) {
		w.Header().Set("HX-Retarget", "#messages")
		w.Header().Set("HX-Reswap", "innerHTML")
	}
	s.render(w, r, status, "error", "message", view{Title: http.StatusText(status), Viewer: v, Data: msg})
}

// routePages adds the page routes to mux. Every page route is behind the cross-origin check.
func (s *server) routePages(mux *http.ServeMux) {
	handle := func(pattern string, h http.Handler) { mux.Handle(pattern, s.crossOrigin(h)) }
	handle("GET /static/{name}", http.HandlerFunc(s.handleStatic))
	handle("GET /signin", http.HandlerFunc(s.handleSignInForm))
	handle("POST /signin", http.HandlerFunc(s.handleSignIn))
	handle("POST /signout", s.page(roleRead, s.handleSignOut))
	handle("GET /setup", http.HandlerFunc(s.handleSetupForm))
	handle("POST /setup", http.HandlerFunc(s.handleSetup))
	handle("GET /{$}", s.page(roleRead, s.handleHome))
	handle("GET /audit", s.page(roleRead, s.handleAuditPage))
	s.routeEvidencePages(handle)
	handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.pageError(w, r, viewer{}, notRouted(w, r, mux, "/", fmt.Errorf("there is no page at %s: %w", r.URL.Path, ledger.ErrNotFound)))
	}))
}

// handleStatic serves the embedded static files. A request whose ?v= names the file's
// current hash may be cached for a year (the URL changes with the file).
func (s *server) handleStatic(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	sum, ok := s.pages.static[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	b, err := staticFS.ReadFile("static/" + name)
	if err != nil {
		s.renderFailed(w, r, err)
		return
	}
	h := w.Header()
	securityHeaders(h)
	switch path.Ext(name) {
	case ".js":
		h.Set("Content-Type", "text/javascript; charset=utf-8")
	case ".css":
		h.Set("Content-Type", "text/css; charset=utf-8")
	case ".svg":
		h.Set("Content-Type", "image/svg+xml")
	default:
		h.Set("Content-Type", "text/plain; charset=utf-8")
	}
	if r.URL.Query().Get("v") == sum {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("ETag", `"`+sum+`"`)
	if r.Header.Get("If-None-Match") == `"`+sum+`"` {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(b)
}

type signInData struct {
	Name, Next, Problem string
	Setup               bool
}

func (s *server) handleSignInForm(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "signin", "", view{Title: "Sign in", Data: signInData{Next: safeNext(r.URL.Query().Get("next"))}})
}

func (s *server) handleSignIn(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r, maxSmallForm); err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	name, password := strings.TrimSpace(r.PostFormValue("name")), r.PostFormValue("password")
	next := safeNext(r.PostFormValue("next"))
	var sess ledger.Session
	wrong := false
	err := s.signin.signIn(r.Context(), name, clientKey(r), func() (bool, error) {
		var err error
		sess, err = s.pageStore().SignIn(r.Context(), name, password)
		if errors.Is(err, ledger.ErrUnauthenticated) {
			wrong = true
			return false, nil
		}
		return err == nil, err
	})
	if status := retryAfter(w, err); status != 0 {
		s.render(w, r, status, "signin", "", view{Title: "Sign in", Data: signInData{Name: name, Next: next, Problem: err.Error() + "."}})
		return
	}
	if err == nil && wrong {
		s.render(w, r, http.StatusUnauthorized, "signin", "", view{Title: "Sign in", Data: signInData{Name: name, Next: next, Problem: "The name or the password is wrong. Passwords are case-sensitive."}})
		return
	}
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	s.setSessionCookie(w, sess)
	seeOther(w, r, next)
}

func (s *server) handleSignOut(w http.ResponseWriter, r *http.Request) {
	v, _ := viewerFrom(r.Context())
	if err := s.pageStore().SignOut(r.Context(), v.sessionID); err != nil {
		s.pageError(w, r, v, err)
		return
	}
	s.clearSessionCookie(w)
	seeOther(w, r, "/signin")
}

type setupData struct {
	Token, Name, Problem string
	APIToken             string
}

// setupOpen reports whether the first-run page may be used with token: the token is live
// and the ledger still has no user.
func (s *server) setupOpen(r *http.Request, token string) (bool, error) {
	if !s.pages.setup.matches(token) {
		return false, nil
	}
	has, err := s.pageStore().HasUsers(r.Context())
	return !has, err
}

func (s *server) handleSetupForm(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	ok, err := s.setupOpen(r, token)
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	if !ok {
		s.pageError(w, r, viewer{}, fmt.Errorf("%w: %w", errSetupUsed, errForbidden))
		return
	}
	s.render(w, r, http.StatusOK, "setup", "", view{Title: "First run", Data: setupData{Token: token}})
}

func (s *server) handleSetup(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r, maxSmallForm); err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	token := r.PostFormValue("token")
	name, pw, pw2 := strings.TrimSpace(r.PostFormValue("name")), r.PostFormValue("password"), r.PostFormValue("password2")
	again := func(problem string) {
		s.render(w, r, http.StatusBadRequest, "setup", "", view{Title: "First run", Data: setupData{Token: token, Name: name, Problem: problem}})
	}
	if ok, err := s.setupOpen(r, token); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("%w: %w", errSetupUsed, errForbidden)
		}
		s.pageError(w, r, viewer{}, err)
		return
	}
	if pw != pw2 {
		again("The two passwords differ; type the same password twice.")
		return
	}
	var apiToken string
	var sess ledger.Session
	err := s.signin.hash(r.Context(), func() error {
		err := s.pages.setup.use(token, func() error {
			var err error
			apiToken, err = s.pageStore().AddUserWithPassword(r.Context(), "system", name, ledger.RoleOperator, pw)
			return err
		})
		if err != nil {
			return err
		}
		sess, err = s.pageStore().SignIn(r.Context(), name, pw)
		return err
	})
	if errors.Is(err, ledger.ErrInvalid) {
		again(err.Error())
		return
	}
	if status := retryAfter(w, err); status != 0 {
		s.render(w, r, status, "setup", "", view{Title: "First run", Data: setupData{Token: token, Name: name, Problem: err.Error() + "."}})
		return
	}
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	s.setSessionCookie(w, sess)
	v := viewer{User: sess.User, sessionID: sess.ID, CSRF: csrfToken(sess.ID)}
	s.render(w, r, http.StatusCreated, "setup", "", view{Title: "First run", Viewer: v, Data: setupData{Name: name, APIToken: apiToken}})
}

// handleHome sends operators to the batches and auditors to the audit.
func (s *server) handleHome(w http.ResponseWriter, r *http.Request) {
	v, _ := viewerFrom(r.Context())
	if v.User.CanWrite() {
		seeOther(w, r, "/batches")
		return
	}
	seeOther(w, r, "/audit")
}

type auditData struct {
	Ran    bool
	Report ledger.Report
	Keys   ledger.KeySet
	Took   time.Duration
	At     time.Time
}

// handleAuditPage shows the keys and, with ?run=1, recomputes the whole chain (GET: the audit
// changes nothing, so it needs no CSRF token). The fragment is "audit-result".
func (s *server) handleAuditPage(w http.ResponseWriter, r *http.Request) {
	var d auditData
	var err error
	if d.Keys, err = s.pageStore().Keys(r.Context()); err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	if r.URL.Query().Get("run") != "" {
		run, err := s.audits.run(r.Context(), s.pageStore().Audit)
		if err != nil {
			s.pageError(w, r, viewer{}, err)
			return
		}
		d.Ran, d.Report, d.Took, d.At = true, run.report, run.took, run.at
	}
	s.render(w, r, http.StatusOK, "audit", "audit-result", view{Title: "Audit", Data: d})
}

// statusNames is the one table the templates (pages and reports) take the statuses of
// claims and citations from, as {{(status).Found}}: each is package evidence's constant, so a
// template never spells a status itself (TestTemplatesSpellNoStatus).
type statusNames struct {
	Reported, Found, NotFound, Unreachable evidence.Status
}

// statusTable is the template function "status".
func statusTable() statusNames {
	return statusNames{evidence.StatusReported, evidence.StatusFound, evidence.StatusNotFound, evidence.StatusUnreachable}
}

// pagesLedger is what the pages of pages.go (sign-in, first run, audit, keys) call.
type pagesLedger interface {
	accounts
	Audit(ctx context.Context) (ledger.Report, error)
	Keys(ctx context.Context) (ledger.KeySet, error)
}

// pageStore is the store as the pages of pages.go see it.
func (s *server) pageStore() pagesLedger { return s.cfg.Ledger }
