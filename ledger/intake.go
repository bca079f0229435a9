package ledger

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"evidenceledger/evidence"
)

// Event types of research intake (docs/events.md).
const (
	typeBatchImported    = "batch.imported"
	typeSourceClassified = "source.classified"
	typeSeamOpened       = "seam.opened"
	typeSeamResolved     = "seam.resolved"
)

// noteNoPublisher is the note of a citation whose http(s) URL names no registrable domain
// (such as "https://co.uk/"): it has no source, so it counts as a lead.
const noteNoPublisher = "cannot tell the publisher of this URL"

// Batch formats: how the research was given.
const (
	FormatText = "text" // a paste for evidence.ParseResearch
	FormatJSON = "json" // JSON: the API's claims form, or a paste that is JSON
)

func init() {
	registerEvent(typeBatchImported, projectorOf(projectBatchImported))
	registerTable("batches", "id")
	registerTable("sources", "id")
	registerTable("claims", "id")
	registerTable("citations", "id")
}

// batchImported is the payload of batch.imported.
type batchImported struct {
	Batch  string          `json:"batch"`
	Format string          `json:"format"`
	Paste  string          `json:"paste"`
	Claims []importedClaim `json:"claims"`
}

type importedClaim struct {
	ID        string             `json:"id"`
	Text      string             `json:"text"`
	Notes     []string           `json:"notes"`
	Citations []importedCitation `json:"citations"`
}

type importedCitation struct {
	ID     string   `json:"id"`
	URL    string   `json:"url"`
	Quote  string   `json:"quote"`
	Source string   `json:"source"`
	Notes  []string `json:"notes"`
}

// newID returns prefix and 16 lowercase hex characters from crypto/rand.
func newID(prefix string) string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("ledger: crypto/rand failed: %v", err))
	}
	return prefix + hex.EncodeToString(b[:])
}

// validID reports whether id is prefix and 16 lowercase hex characters.
func validID(prefix, id string) bool {
	rest, ok := strings.CutPrefix(id, prefix)
	return ok && isHex(rest, 16)
}

// ImportResearch records research as one batch.imported event: the paste is stored as a
// blob and named by its SHA-256, and every claim and citation gets a new id (b_, c_, ct_ and
// 16 hex characters from crypto/rand). Claims and citations enter as reported; a citation's
// note is the one evidence.CitationNote gives it (the caller's Note is not trusted); a claim
// none of whose citations has a URL carries the note evidence.NoteNoSource. Sources cited
// for the first time enter as leads.
//
// paste is what was pasted, as received (for the JSON form of the API, the request body);
// the batch's format is FormatJSON when it is a JSON object or array, FormatText otherwise.
// research is what evidence.ReadPaste or evidence.ReadRequest read from it.
//
// Nothing is recorded when the input is refused. Errors wrap [ErrInvalid] for an empty or
// oversized paste, for a paste or a claim text, URL or quote that is not text (also
// evidence.ErrNotText), and for research with no claim or a claim with an empty text (also
// evidence.ErrNothingUsable for no claim).
func (s *Store) ImportResearch(ctx context.Context, actor string, paste []byte, research evidence.Research) (Batch, error) {
	if err := checkActor(actor); err != nil {
		return Batch{}, fmt.Errorf("import research: %w", err)
	}
	p, err := draftBatch(paste, research)
	if err != nil {
		return Batch{}, fmt.Errorf("import research: %w", err)
	}
	items, err := prepareDrafts([]Draft{{Type: typeBatchImported, Payload: p, Blobs: [][]byte{paste}}})
	if err != nil {
		return Batch{}, fmt.Errorf("import research: %w", err)
	}
	// One transaction: the batch returned is the one recorded, read before the commit.
	var b Batch
	_, err = s.record(ctx, actor, items, recordOpts{extra: func(tx *sql.Tx, _ []Event) error {
		var err error
		b, err = readBatch(ctx, tx, p.Batch)
		return err
	}})
	if err != nil {
		return Batch{}, fmt.Errorf("import research: %w", err)
	}
	return b, nil
}

// draftBatch validates research and builds its batch.imported payload with new ids.
func draftBatch(paste []byte, research evidence.Research) (batchImported, error) {
	switch {
	case len(strings.TrimSpace(string(paste))) == 0:
		return batchImported{}, fmt.Errorf("the paste is empty; paste the research text: %w", ErrInvalid)
	case len(paste) > evidence.MaxPasteBytes:
		return batchImported{}, fmt.Errorf("the paste is %d bytes, more than the limit of %d; split it into smaller batches: %w", len(paste), evidence.MaxPasteBytes, ErrInvalid)
	}
	if err := evidence.CheckText(paste); err != nil {
		return batchImported{}, fmt.Errorf("%w: %w", err, ErrInvalid)
	}
	if len(research.Claims) == 0 {
		return batchImported{}, fmt.Errorf("%w: the research holds no claim: %w", evidence.ErrNothingUsable, ErrInvalid)
	}
	sum := sha256.Sum256(paste)
	p := batchImported{Batch: newID("b_"), Format: FormatText, Paste: hex.EncodeToString(sum[:]), Claims: make([]importedClaim, len(research.Claims))}
	if evidence.IsJSON(string(paste)) {
		p.Format = FormatJSON
	}
	for i, c := range research.Claims {
		text := strings.TrimSpace(c.Text)
		if text == "" {
			return batchImported{}, fmt.Errorf("claim %d has no text; every claim needs its statement: %w", i+1, ErrInvalid)
		}
		if err := evidence.CheckString(text); err != nil {
			return batchImported{}, fmt.Errorf("claim %d: %w: %w", i+1, err, ErrInvalid)
		}
		ic := importedClaim{ID: newID("c_"), Text: text, Notes: []string{}, Citations: make([]importedCitation, 0, len(c.Citations))}
		hasURL := false
		for j, ct := range c.Citations {
			url, quote := strings.TrimSpace(ct.URL), strings.TrimSpace(ct.Quote)
			for _, v := range []string{url, quote} {
				if err := evidence.CheckString(v); err != nil {
					return batchImported{}, fmt.Errorf("claim %d, citation %d: %w: %w", i+1, j+1, err, ErrInvalid)
				}
			}
			cit := importedCitation{ID: newID("ct_"), URL: url, Quote: quote, Notes: []string{}}
			if note := evidence.CitationNote(url, quote); note != "" {
				cit.Notes = append(cit.Notes, note)
			}
			if url != "" {
				hasURL = true
			}
			if evidence.IsHTTP(url) {
				if id, err := evidence.SourceID(url); err == nil {
					cit.Source = id
				} else {
					cit.Notes = append(cit.Notes, noteNoPublisher)
				}
			}
			ic.Citations = append(ic.Citations, cit)
		}
		if !hasURL {
			ic.Notes = append(ic.Notes, evidence.NoteNoSource)
		}
		p.Claims[i] = ic
	}
	return p, nil
}

// projectBatchImported creates the batch, its claims and citations (reported, no strength)
// and the sources not yet known (as leads).
func projectBatchImported(tx *sql.Tx, ev *Event, p *batchImported) error {
	if !validID("b_", p.Batch) || len(p.Claims) == 0 {
		return fmt.Errorf("batch %q: want a b_ id and at least one claim: %w", p.Batch, ErrInvalid)
	}
	if _, err := tx.Exec("INSERT INTO batches (id, format, paste, seq, at, actor) VALUES (?, ?, ?, ?, ?, ?)", p.Batch, p.Format, p.Paste, ev.Seq, ev.At, ev.Actor); err != nil {
		return fmt.Errorf("batch %s: %w", p.Batch, err)
	}
	// tx.Exec, not tx.Prepare: a statement prepared on a Tx stays referenced by it until the
	// transaction ends, and the audit replays every batch in one transaction (the
	// connection's statement cache makes Exec as cheap).
	const (
		insSource = "INSERT INTO sources (id, class, publisher, first_seq) VALUES (?, 'lead', '', ?) ON CONFLICT (id) DO NOTHING"
		insClaim  = "INSERT INTO claims (id, batch, position, text, norm, notes, status, strength) VALUES (?, ?, ?, ?, ?, ?, ?, '')"
		insCit    = "INSERT INTO citations (id, claim, position, url, quote, quote_norm, source, notes, status, note, excerpt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '')"
	)
	for i, c := range p.Claims {
		if !validID("c_", c.ID) {
			return fmt.Errorf("claim id %q: want c_ and 16 hex characters: %w", c.ID, ErrInvalid)
		}
		if _, err := tx.Exec(insClaim, c.ID, p.Batch, i, c.Text, evidence.NormalizeText(c.Text), jsonList(c.Notes), evidence.StatusReported); err != nil {
			return fmt.Errorf("claim %s: %w", c.ID, err)
		}
		for j, ct := range c.Citations {
			if !validID("ct_", ct.ID) {
				return fmt.Errorf("citation id %q: want ct_ and 16 hex characters: %w", ct.ID, ErrInvalid)
			}
			var source any
			if ct.Source != "" {
				if _, err := tx.Exec(insSource, ct.Source, ev.Seq); err != nil {
					return fmt.Errorf("source %s: %w", ct.Source, err)
				}
				source = ct.Source
			}
			note := ""
			if len(ct.Notes) > 0 {
				note = ct.Notes[0]
			}
			if _, err := tx.Exec(insCit, ct.ID, c.ID, j, ct.URL, ct.Quote, evidence.NormalizeText(ct.Quote), source, jsonList(ct.Notes), evidence.StatusReported, note); err != nil {
				return fmt.Errorf("citation %s: %w", ct.ID, err)
			}
		}
	}
	return nil
}

// jsonList is a list of strings as a JSON array ("[]" for none).
func jsonList(xs []string) string {
	if len(xs) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(xs)
	return string(b)
}

// recomputeClaim sets a claim's status (evidence.ClaimStatus over its citations), strength
// (evidence.ComputeStrength over its found citations, each with its source's class and
// publisher and the citation's URL as the record URL) and standing (evidence.ClaimStanding
// over its resolved seams). Every projector that changes a
// citation's status or a source's class calls it for each claim affected, in the same
// transaction. It fails, wrapping [ErrNotFound], when the claim does not exist.
func recomputeClaim(tx *sql.Tx, claimID string) error {
	rows, err := tx.Query(`SELECT ct.status, ct.url, coalesce(s.id, ''), coalesce(s.class, 'lead'), coalesce(s.publisher, '')
		FROM citations ct LEFT JOIN sources s ON s.id = ct.source WHERE ct.claim = ? ORDER BY ct.position`, claimID)
	if err != nil {
		return fmt.Errorf("recompute claim %s: %w", claimID, err)
	}
	defer rows.Close()
	var statuses []evidence.Status
	var found []evidence.FoundCitation
	for rows.Next() {
		var st, url string
		var src evidence.Source
		if err := rows.Scan(&st, &url, &src.ID, &src.Class, &src.Publisher); err != nil {
			return fmt.Errorf("recompute claim %s: %w", claimID, err)
		}
		statuses = append(statuses, evidence.Status(st))
		if evidence.Status(st) == evidence.StatusFound {
			found = append(found, evidence.FoundCitation{Source: src, RecordURL: url})
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("recompute claim %s: %w", claimID, err)
	}
	standing, err := claimStanding(tx, claimID)
	if err != nil {
		return err
	}
	res, err := tx.Exec("UPDATE claims SET status = ?, strength = ?, standing = ? WHERE id = ?", evidence.ClaimStatus(statuses), evidence.ComputeStrength(found), standing, claimID)
	if err != nil {
		return fmt.Errorf("recompute claim %s: %w", claimID, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("recompute claim %s: %w", claimID, ErrNotFound)
	}
	return nil
}

// claimStanding is evidence.ClaimStanding over the standings of the resolved seams about a
// claim.
func claimStanding(tx *sql.Tx, claimID string) (evidence.Standing, error) {
	rows, err := tx.Query(`SELECT s.standing FROM seam_claims sc JOIN seams s ON s.id = sc.seam
		WHERE sc.claim = ? AND s.state = 'resolved'`, claimID)
	if err != nil {
		return "", fmt.Errorf("recompute claim %s: its seams: %w", claimID, err)
	}
	defer rows.Close()
	var standings []evidence.Standing
	for rows.Next() {
		var st evidence.Standing
		if err := rows.Scan(&st); err != nil {
			return "", fmt.Errorf("recompute claim %s: its seams: %w", claimID, err)
		}
		standings = append(standings, st)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("recompute claim %s: its seams: %w", claimID, err)
	}
	return evidence.ClaimStanding(standings), nil
}

// checkField refuses a free-text field that is empty (when required), longer than max
// characters, or not text.
func checkField(name, v string, required bool, max int) error {
	if required && strings.TrimSpace(v) == "" {
		return fmt.Errorf("%s is empty; say it in a few words: %w", name, ErrInvalid)
	}
	if n := utf8.RuneCountInString(v); n > max {
		return fmt.Errorf("%s is %d characters, more than %d; shorten it: %w", name, n, max, ErrInvalid)
	}
	if err := evidence.CheckString(v); err != nil {
		return fmt.Errorf("%s: %w: %w", name, err, ErrInvalid)
	}
	return nil
}

// readTx begins a read-only snapshot for a read that spans several queries.
func (s *Store) readTx(ctx context.Context) (*sql.Tx, error) {
	return s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
}

// readOne reads, in one read snapshot, the single view that load finds with where (which
// takes the id). It fails, wrapping ErrNotFound, when there is none; what names the kind.
func readOne[T any](ctx context.Context, s *Store, what, id, where string, load func(context.Context, *sql.Tx, string, ...any) ([]T, error)) (T, error) {
	var zero T
	tx, err := s.readTx(ctx)
	if err != nil {
		return zero, fmt.Errorf("%s %s: %w", what, id, err)
	}
	defer tx.Rollback()
	vs, err := load(ctx, tx, where, id)
	if err != nil {
		return zero, err
	}
	if len(vs) == 0 {
		return zero, fmt.Errorf("%s %q does not exist; check the id: %w", what, id, ErrNotFound)
	}
	return vs[0], nil
}

// notFound turns sql.ErrNoRows into an error wrapping ErrNotFound that names what was asked.
func notFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s does not exist; check the id: %w", what, ErrNotFound)
	}
	return fmt.Errorf("%s: %w", what, err)
}
