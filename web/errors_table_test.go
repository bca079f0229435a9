package web

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"evidenceledger/evidence"
	"evidenceledger/gate"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// sentinel is an exported sentinel error and how it reaches a handler.
type sentinel struct {
	name    string
	err     error
	wrapped error  // the kind a handler receives it in, when it is not a kind itself
	never   string // why no handler receives it, when it reaches none
}

// sentinels are the exported sentinel errors of the packages below web, each with how it
// reaches a handler: answered (a kind of statuses), only wrapped in a kind of statuses (the
// kind that always wraps it, and where), or never (why not). TestErrorStatuses reads the
// packages' sources and fails for a sentinel this list does not place.
var sentinels = []sentinel{
	{name: "ledger.ErrInvalid", err: ledger.ErrInvalid},
	{name: "ledger.ErrNotFound", err: ledger.ErrNotFound},
	{name: "ledger.ErrConflict", err: ledger.ErrConflict},
	{name: "ledger.ErrUnauthenticated", err: ledger.ErrUnauthenticated},
	{name: "ledger.ErrDiskFull", err: ledger.ErrDiskFull},
	{name: "ledger.ErrReadOnly", err: ledger.ErrReadOnly},
	{name: "verify.ErrNoBatch", err: verify.ErrNoBatch},
	{name: "verify.ErrStopping", err: verify.ErrStopping},
	{name: "evidence.ErrNoBatch", err: evidence.ErrNoBatch}, // verify.ErrNoBatch is the same value
	{name: "evidence.ErrNotText", err: evidence.ErrNotText},
	{name: "evidence.ErrNothingUsable", err: evidence.ErrNothingUsable},
	{name: "evidence.ErrBadResearch", err: evidence.ErrBadResearch},
	{name: "evidence.ErrDecision", err: evidence.ErrDecision, wrapped: ledger.ErrInvalid}, // ledger.Store.ResolveSeam
	{name: "gate.ErrInput", err: gate.ErrInput, wrapped: ledger.ErrInvalid},               // web/gate.go, web/mcp.go: a minimum strength
	{name: "evidence.ErrBadSourceURL", err: evidence.ErrBadSourceURL, never: "the ledger reads a source's id and keeps the citation when it has none"},
	{name: "evidence.ErrOffSchema", err: evidence.ErrOffSchema, never: "a verifier's or a model's answer off its schema is recorded as a split, not answered"},
	{name: "evidence.ErrNoQuote", err: evidence.ErrNoQuote, never: "a quote too short to look for is the citation's note"},
	{name: "evidence.ErrTooManyParts", err: evidence.ErrTooManyParts, never: "a quote of too many parts is the citation's note"},
}

// exportedSentinels returns the names, as package.Name, of the exported package-level
// variables named Err... in the non-test files of the packages (folders) given.
func exportedSentinels(t *testing.T, dirs ...string) []string {
	t.Helper()
	var out []string
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in ../%s: %v", dir, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				for _, sp := range g.Specs {
					for _, n := range sp.(*ast.ValueSpec).Names {
						if strings.HasPrefix(n.Name, "Err") && n.IsExported() {
							out = append(out, f.Name.Name+"."+n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// TestErrorStatuses: the table's order cannot matter, and every sentinel a handler may
// receive is answered with exactly one status.
//
//   - No kind of the table wraps another, so no sentinel matches two entries.
//   - Every exported sentinel of ledger, verify, gate and evidence is placed in sentinels;
//     a kind is answered, wrapped, with its status; a sentinel that reaches handlers only
//     wrapped matches no entry itself and is answered with its wrapper's status; one that
//     reaches none matches no entry.
//   - An error that wraps two kinds is answered with the kind written first.
func TestErrorStatuses(t *testing.T) {
	for a := range statuses {
		for b := range statuses {
			if a != b && errors.Is(a, b) {
				t.Errorf("the kind %q wraps the kind %q: a sentinel would match two entries", a, b)
			}
		}
	}
	answer := func(err error) int {
		w := httptest.NewRecorder()
		Error(w, httptest.NewRequest("GET", "/api/x", nil), err)
		return w.Code
	}
	for kind, status := range statuses {
		if got := answer(fmt.Errorf("context: %w", kind)); got != status {
			t.Errorf("a wrapped %q is answered %d, want %d", kind, got, status)
		}
	}

	found := exportedSentinels(t, "ledger", "verify", "gate", "evidence")
	for _, name := range found {
		if !slices.ContainsFunc(sentinels, func(s sentinel) bool { return s.name == name }) {
			t.Errorf("%s is not placed in sentinels: is it a kind of statuses, wrapped in one, or answered never?", name)
		}
	}
	for _, s := range sentinels {
		if !slices.Contains(found, s.name) {
			t.Errorf("sentinels names %s, which the sources do not declare", s.name)
		}
		var matches []error
		for kind := range statuses {
			if errors.Is(s.err, kind) {
				matches = append(matches, kind)
			}
		}
		switch {
		case s.wrapped == nil && s.never == "":
			if len(matches) != 1 {
				t.Errorf("%s matches %d entries of the table, want exactly 1", s.name, len(matches))
			}
		case len(matches) != 0:
			t.Errorf("%s matches %v in the table, but sentinels says it is not a kind of its own", s.name, matches)
		case s.wrapped != nil:
			if got, want := answer(fmt.Errorf("%w: %w", s.err, s.wrapped)), statuses[s.wrapped]; got != want {
				t.Errorf("%s wrapped in %q is answered %d, want %d", s.name, s.wrapped, got, want)
			}
		}
	}

	// Two kinds in one error: the first written is its kind, as the ledger writes them.
	for _, tt := range []struct {
		err  error
		want int
	}{
		{fmt.Errorf("%w: the research holds no claim: %w", evidence.ErrNothingUsable, ledger.ErrInvalid), http.StatusUnprocessableEntity},
		{fmt.Errorf("%w: %w", fmt.Errorf("claim 1: %w", evidence.ErrNotText), ledger.ErrInvalid), http.StatusUnsupportedMediaType},
		{errors.Join(ledger.ErrConflict, ledger.ErrInvalid), http.StatusConflict},
		{fmt.Errorf("%w: %w", errors.New("setup used"), errForbidden), http.StatusForbidden},
		{errors.New("no kind at all"), http.StatusInternalServerError},
	} {
		if got := answer(tt.err); got != tt.want {
			t.Errorf("%q is answered %d, want %d", tt.err, got, tt.want)
		}
	}
}
