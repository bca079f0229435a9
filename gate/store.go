package gate

import (
	"context"
	"encoding/json"

	"evidenceledger/evidence"
	"evidenceledger/ledger"
	"evidenceledger/verify"
)

// The store adapter: the gate's view of package ledger's read model and import, so that
// every caller of the gate (the HTTP API, the MCP tool, `ledger gate`) reaches the store the
// same way and none of them needs package web for it.

// StoreReader is what the memory-write gate reads of the store; *ledger.Store has it.
type StoreReader interface {
	FindClaims(ctx context.Context, text string) ([]ledger.ClaimView, error)
	FindClaimsQuoting(ctx context.Context, quote string) ([]ledger.ClaimView, error)
	FindClaimsNear(ctx context.Context, text string, limit int) ([]ledger.ClaimView, error)
}

// StoreChecker is what the gate's check on the spot needs of the store: it imports the
// claims as a batch and checks it like any batch. *ledger.Store has it.
type StoreChecker interface {
	ImportResearch(ctx context.Context, actor string, paste []byte, research evidence.Research) (ledger.Batch, error)
	verify.CheckStore
}

// StoreLedger presents the store to [Evaluate] as its [Ledger]; the HTTP API, the MCP tool and
// `ledger gate` all read the store through it.
func StoreLedger(s StoreReader) Ledger { return storeLedger{s} }

// StoreImporter presents the store to the check on the spot of [Evaluate] ([Check]): ImportClaims records
// the claims as one batch in the API's JSON form ({"claims":[{"text","citations":[{"url",
// "quote"}]}]}, format json), so the batch's paste is what an operator could have posted.
// `ledger gate --check` uses it too.
func StoreImporter(s StoreChecker) Importer { return storeImporter{s} }

type storeLedger struct{ s StoreReader }

func (g storeLedger) ClaimsWithText(ctx context.Context, text string) ([]LedgerClaim, error) {
	cs, err := g.s.FindClaims(ctx, text)
	return ledgerClaims(cs), err
}

func (g storeLedger) ClaimsQuoting(ctx context.Context, quote string) ([]LedgerClaim, error) {
	cs, err := g.s.FindClaimsQuoting(ctx, quote)
	return ledgerClaims(cs), err
}

func (g storeLedger) ClaimsNear(ctx context.Context, text string, limit int) ([]LedgerClaim, error) {
	cs, err := g.s.FindClaimsNear(ctx, text, limit)
	return ledgerClaims(cs), err
}

type storeImporter struct{ StoreChecker }

func (g storeImporter) ImportClaims(ctx context.Context, actor string, claims []evidence.Claim) (string, error) {
	type cit struct {
		URL   string `json:"url"`
		Quote string `json:"quote"`
	}
	type claim struct {
		Text      string `json:"text"`
		Citations []cit  `json:"citations"`
	}
	body := struct {
		Claims []claim `json:"claims"`
	}{}
	for _, c := range claims {
		cl := claim{Text: c.Text, Citations: []cit{}}
		for _, ct := range c.Citations {
			cl.Citations = append(cl.Citations, cit{ct.URL, ct.Quote})
		}
		body.Claims = append(body.Claims, cl)
	}
	paste, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	b, err := g.ImportResearch(ctx, actor, paste, evidence.Research{Claims: claims})
	return b.ID, err
}

func ledgerClaims(cs []ledger.ClaimView) []LedgerClaim {
	out := make([]LedgerClaim, len(cs))
	for i, c := range cs {
		lc := LedgerClaim{ID: c.ID, Text: c.Text, Status: c.Status, Strength: c.Strength, Standing: c.Standing, DecidedBy: []string{}, OpenSeams: c.OpenSeams,
			Citations: make([]LedgerCitation, len(c.Citations))}
		for _, d := range c.Decisions {
			if d.Standing != evidence.StandingClear {
				lc.DecidedBy = append(lc.DecidedBy, d.Seam)
			}
		}
		for j, ct := range c.Citations {
			lc.Citations[j] = LedgerCitation{ID: ct.ID, URL: ct.URL, Quote: ct.Quote, Status: ct.Status, OpenSeams: ct.OpenSeams}
		}
		out[i] = lc
	}
	return out
}
