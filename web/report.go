package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	htmltemplate "html/template"
	"io"
	"net/http"
	"regexp"
	"strings"
	texttemplate "text/template"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
)

// reportLedger is what the hand-off report needs of the store.
type reportLedger interface {
	HandOff(ctx context.Context, batch string) (ledger.HandOff, error)
}

// Report formats: ReportFormats lists them in the order usage messages name them.
const (
	ReportMarkdown = "md"
	ReportHTML     = "html"
	ReportJSON     = "json"
)

// ReportFormats are the formats [WriteReport] writes.
var ReportFormats = []string{ReportMarkdown, ReportHTML, ReportJSON}

// reportMeaning is what every report says about itself, in every format.
const reportMeaning = "A claim is listed as usable only when a quote it cites was found, word for word, in the visible text of the cited page as this program fetched it, no question about it is open, and none of its cited quotes is missing from its page. That proves the words were on the page at the fetch time shown, nothing more: not that the claim is true, that the page still says so, or that the quote supports the claim in its context. Every claim of the batch that may not be used is listed below with why."

//go:embed templates/report/report.md.tmpl templates/report/document.html.tmpl templates/report.html
var reportFS embed.FS

// reportDoc is what the report templates receive.
type reportDoc struct {
	ledger.HandOff
	Meaning string
	Reasons []reasonCount
	// CSS is the pages' style sheet, inlined in the standalone HTML document.
	CSS htmltemplate.CSS
}

type reasonCount struct {
	Reason evidence.Withheld
	N      int
}

func newReportDoc(h ledger.HandOff) reportDoc {
	d := reportDoc{HandOff: h, Meaning: reportMeaning, CSS: htmltemplate.CSS(appCSS)}
	for _, w := range evidence.WithheldReasons {
		if n := h.WithheldBy[w]; n > 0 {
			d.Reasons = append(d.Reasons, reasonCount{w, n})
		}
	}
	return d
}

var (
	appCSS = func() string {
		b, err := staticFS.ReadFile("static/app.css")
		if err != nil {
			panic(err)
		}
		return string(b)
	}()
	// reportCSP is the policy of the standalone HTML report: nothing but its own inline
	// style sheet, named by its hash, and the empty data: icon that keeps a browser from
	// asking the server for one.
	reportCSP = func() string {
		sum := sha256.Sum256([]byte(appCSS))
		return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; img-src data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
	}()
	reportFuncs = map[string]any{
		"md":       mdEscape,
		"mdquote":  mdQuote,
		"mdcode":   mdCode,
		"strength": strengthWord,
		"short":    shortHash,
		"inc":      func(i int) int { return i + 1 },
		"showURL":  hideCredentials,
		"status":   statusTable,
	}
	reportMD   = texttemplate.Must(texttemplate.New("report.md.tmpl").Funcs(reportFuncs).ParseFS(reportFS, "templates/report/report.md.tmpl"))
	reportHTML = htmltemplate.Must(htmltemplate.New("document.html.tmpl").Funcs(reportFuncs).ParseFS(reportFS, "templates/report/document.html.tmpl", "templates/report.html"))
)

// WriteReport writes the hand-off report h in format: ReportMarkdown (for documents and
// agents), ReportHTML (a standalone printable document with the pages' styles inlined) or
// ReportJSON (the [ledger.HandOff] itself, with the report's meaning). It writes nothing
// when it fails. Errors wrap [ledger.ErrInvalid] for a format it does not know.
func WriteReport(w io.Writer, h ledger.HandOff, format string) error {
	var buf bytes.Buffer
	var err error
	switch format {
	case ReportMarkdown:
		err = reportMD.Execute(&buf, newReportDoc(h))
	case ReportHTML:
		err = reportHTML.Execute(&buf, newReportDoc(h))
	case ReportJSON:
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err = enc.Encode(struct {
			Meaning string `json:"meaning"`
			ledger.HandOff
		}{reportMeaning, h})
	default:
		return fmt.Errorf("report format %q: want %s: %w", format, strings.Join(ReportFormats, ", "), ledger.ErrInvalid)
	}
	if err != nil {
		return fmt.Errorf("write the %s report: %w", format, err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// reportSchema is the JSON Schema (draft 2020-12) of the JSON report: the published shape of
// WriteReport's ReportJSON output, which TestReportSchema holds it to.
//
//go:embed schema/report.schema.json
var reportSchema []byte

// handleReportSchema is GET /api/report.schema.json: the schema is documentation, served
// without sign-in.
func handleReportSchema(w http.ResponseWriter, _ *http.Request) {
	hd := w.Header()
	hd.Set("Content-Type", "application/schema+json")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "default-src 'none'")
	w.Write(reportSchema)
}

// reportContentType is the media type of a report format.
func reportContentType(format string) string {
	switch format {
	case ReportMarkdown:
		return "text/markdown; charset=utf-8"
	case ReportHTML:
		return "text/html; charset=utf-8"
	}
	return "application/json; charset=utf-8"
}

// serveReport answers the report of the batch in the path in the format of ?format= (json
// when absent): the API route and the page route's downloads share it.
func (s *server) serveReport(w http.ResponseWriter, r *http.Request, format string, fail func(http.ResponseWriter, *http.Request, error)) {
	h, err := s.reports().HandOff(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := WriteReport(&buf, h, format); err != nil {
		fail(w, r, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", reportContentType(format))
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Security-Policy", reportCSP)
	hd.Set("Content-Disposition", fmt.Sprintf(`inline; filename="report-%s.%s"`, h.Batch.ID, format))
	w.Write(buf.Bytes())
}

// handleReport is GET /api/batches/{id}/report?format=md|html|json.
func (s *server) handleReport(w http.ResponseWriter, r *http.Request) {
	format := r.URL.Query().Get("format")
	if format == "" {
		format = ReportJSON
	}
	s.serveReport(w, r, format, Error)
}

// pageReport is GET /batches/{id}/report: the report inside the pages, or with ?format= one
// of the documents the API gives.
func (s *server) pageReport(w http.ResponseWriter, r *http.Request) {
	if format := r.URL.Query().Get("format"); format != "" {
		s.serveReport(w, r, format, func(w http.ResponseWriter, r *http.Request, err error) { s.pageError(w, r, viewer{}, err) })
		return
	}
	h, err := s.reports().HandOff(r.Context(), r.PathValue("id"))
	if err != nil {
		s.pageError(w, r, viewer{}, err)
		return
	}
	s.render(w, r, http.StatusOK, "report", "", view{Title: "Report of batch " + h.Batch.ID, Data: newReportDoc(h)})
}

// strengthWord is a claim's strength in words; none when it has none.
func strengthWord(s evidence.Strength) string {
	if s == "" {
		return "none"
	}
	return string(s)
}

// mdEscaper escapes what Markdown would read as markup, so that a claim's or a page's words
// are shown as they are and never become a link, an image, HTML or a heading. ':' and '@'
// are escaped too, and the '.' of "www." (mdEscape), so that the autolinks of GitHub's
// Markdown (a bare http://…, www.…, or an e-mail address) do not fire either.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", `\<`, ">", `\>`,
	"#", `\#`, "|", `\|`, "~", `\~`, "&", `\&`, ":", `\:`, "@", `\@`,
	"\r\n", " ", "\n", " ", "\r", " ",
)

// wwwDot is the "www." a GitHub-style autolink begins with, in any case.
var wwwDot = regexp.MustCompile(`(?i)\bwww\.`)

// mdEscape returns s as literal Markdown text on one line.
func mdEscape(s string) string {
	return wwwDot.ReplaceAllStringFunc(mdEscaper.Replace(s), func(m string) string { return m[:3] + `\.` })
}

// mdCode returns s as a Markdown code span on one line (URLs, hashes): shown literally,
// fenced with one backtick more than the longest run of backticks in s, and padded with
// spaces when s holds one; "(none)" for nothing.
func mdCode(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	if s == "" {
		return "(none)"
	}
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdQuote returns s as literal Markdown text in double quotes.
func mdQuote(s string) string { return "“" + mdEscape(s) + "”" }

// reports is the store as the report routes see it.
func (s *server) reports() reportLedger { return s.cfg.Ledger }
