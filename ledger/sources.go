package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode/utf8"

	"evidenceledger/evidence"
)

func init() {
	registerEvent(typeSourceClassified, projectorOf(projectSourceClassified))
}

// maxPublisher is the longest publisher name, in characters.
const maxPublisher = 200

// sourceClassified is the payload of source.classified.
type sourceClassified struct {
	Source    string               `json:"source"`
	Class     evidence.SourceClass `json:"class"`
	Publisher string               `json:"publisher,omitempty"`
}

// SourceView is a source with who classified it and how often it is cited.
type SourceView struct {
	ID        string               `json:"id"`
	Class     evidence.SourceClass `json:"class"`
	Publisher string               `json:"publisher"`
	// ClassifiedBy and ClassifiedAt are empty until an operator classified the source.
	ClassifiedBy string `json:"classified_by,omitempty"`
	ClassifiedAt string `json:"classified_at,omitempty"`
	Citations    int    `json:"citations"`
	// Found counts the citations found at this source.
	Found int `json:"found"`
	// NoHost counts the citations checked and found not to exist because their host name
	// does not exist (evidence.NoteNoHost). A source all of whose citations are such is a
	// web site the research named that is not there (see [SourceView.Absent]).
	NoHost int `json:"no_host"`
}

// Absent reports whether every citation of the source was checked and its host name does
// not exist: the source is not there, and there is nothing to classify.
func (v SourceView) Absent() bool { return v.Citations > 0 && v.NoHost == v.Citations }

// ClassifySource sets a source's class (primary, semi or lead) and, when publisher is not
// empty, its publisher, as one source.classified event recorded by actor; the projector then
// recomputes the strength of every claim with a found citation from that source. Errors wrap
// [ErrInvalid] for a class that does not exist or an overlong publisher, and [ErrNotFound]
// for a source no citation has named. Nothing is recorded then.
func (s *Store) ClassifySource(ctx context.Context, actor, id string, class evidence.SourceClass, publisher string) (SourceView, error) {
	p := sourceClassified{Source: id, Class: class, Publisher: strings.TrimSpace(publisher)}
	if !class.Valid() {
		return SourceView{}, fmt.Errorf("classify source %s: class %q: want primary, semi or lead: %w", id, class, ErrInvalid)
	}
	if err := checkField("the publisher", p.Publisher, false, maxPublisher); err != nil {
		return SourceView{}, fmt.Errorf("classify source %s: %w", id, err)
	}
	if err := checkActor(actor); err != nil {
		return SourceView{}, fmt.Errorf("classify source %s: %w", id, err)
	}
	// One transaction: the source is found, classified and read back.
	var v SourceView
	_, err := s.record(ctx, actor, nil, recordOpts{
		decide: func(tx *sql.Tx) ([]preparedDraft, error) {
			var one int
			if err := tx.QueryRowContext(ctx, "SELECT 1 FROM sources WHERE id = ?", id).Scan(&one); err != nil {
				return nil, notFound(err, fmt.Sprintf("source %q (sources are named by the research's citations, by registrable domain)", id))
			}
			return prepareDrafts([]Draft{{Type: typeSourceClassified, Payload: p}})
		},
		extra: func(tx *sql.Tx, _ []Event) error {
			vs, err := loadSources(ctx, tx, "s.id = ?", id)
			if err == nil {
				v = vs[0]
			}
			return err
		},
	})
	if err != nil {
		return SourceView{}, fmt.Errorf("classify source %s: %w", id, err)
	}
	return v, nil
}

// projectSourceClassified sets the class (and publisher, when given) and recomputes every
// claim with a found citation from the source.
func projectSourceClassified(tx *sql.Tx, ev *Event, p *sourceClassified) error {
	if !p.Class.Valid() {
		return fmt.Errorf("class %q: %w", p.Class, ErrInvalid)
	}
	res, err := tx.Exec(`UPDATE sources SET class = ?, publisher = CASE WHEN ? = '' THEN publisher ELSE ? END,
		classified_by = ?, classified_at = ? WHERE id = ?`, p.Class, p.Publisher, p.Publisher, ev.Actor, ev.At, p.Source)
	if err != nil {
		return fmt.Errorf("source %s: %w", p.Source, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("source %q: %w", p.Source, ErrNotFound)
	}
	rows, err := tx.Query("SELECT DISTINCT claim FROM citations WHERE source = ? AND status = ? ORDER BY claim", p.Source, evidence.StatusFound)
	if err != nil {
		return err
	}
	var claims []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			rows.Close()
			return err
		}
		claims = append(claims, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range claims {
		if err := recomputeClaim(tx, c); err != nil {
			return err
		}
	}
	return nil
}

// Sources returns every source, by id, with its class, publisher and citation counts.
func (s *Store) Sources(ctx context.Context) ([]SourceView, error) {
	p, err := s.SourcesPage(ctx, Page{})
	return p.Sources, err
}

// loadSources reads the sources where (SQL over the sources alias s) selects, by id, in q.
func loadSources(ctx context.Context, q *sql.Tx, where string, args ...any) ([]SourceView, error) {
	rows, err := q.QueryContext(ctx, `SELECT s.id, s.class, s.publisher, coalesce(s.classified_by, ''), coalesce(s.classified_at, ''),
		(SELECT count(*) FROM citations ct WHERE ct.source = s.id),
		(SELECT count(*) FROM citations ct WHERE ct.source = s.id AND ct.status = ?),
		(SELECT count(*) FROM citations ct WHERE ct.source = s.id AND ct.status = ? AND substr(ct.note, 1, ?) = ?)
		FROM sources s WHERE `+where+` ORDER BY s.id`, append([]any{evidence.StatusFound, evidence.StatusNotFound, utf8.RuneCountInString(evidence.NoteNoHost), evidence.NoteNoHost}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("read sources: %w", err)
	}
	defer rows.Close()
	out := []SourceView{}
	for rows.Next() {
		var v SourceView
		if err := rows.Scan(&v.ID, &v.Class, &v.Publisher, &v.ClassifiedBy, &v.ClassifiedAt, &v.Citations, &v.Found, &v.NoHost); err != nil {
			return nil, fmt.Errorf("read sources: %w", err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read sources: %w", err)
	}
	return out, nil
}
