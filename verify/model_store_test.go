package verify_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evidenceledger/evidence"
	"evidenceledger/verify"
)

// TestModelTierRecordedAndReplayed checks a batch with the model tier on into a real
// ledger: the support judgement is recorded in the check's own event, read back on the
// claim and the batch with its calls and totals, and rebuilt by the audit's replay, which
// names a judgement changed behind the program's back.
func TestModelTierRecordedAndReplayed(t *testing.T) {
	ctx := context.Background()
	site := verify.NewLoopbackSite(t)
	store, dir := openStore(t)
	chat := verify.NewChatServer(t, func(req verify.ChatSeen, n int) verify.ChatAnswer {
		if strings.Contains(req.User, "down from") {
			return verify.ChatAnswer{Content: verify.VerdictJSON("contradicted", 80, "The page says up.", verify.ReportSentence)}
		}
		return verify.ChatAnswer{Content: verify.VerdictJSON("supported", 90, "The page gives the count.", verify.ReportSentence)}
	})
	models, err := verify.NewModels(verify.ModelConfig{Verifier: chat.Endpoint("cheap"), Timeout: time.Hour}, verify.LoopbackFetchConfig())
	if err != nil {
		t.Fatal(err)
	}
	checker := verify.NewChecker(verify.LoopbackFetchConfig()).WithModels(models)
	b := importClaims(t, store,
		claimOf("The registry counted 4,812 companies in 2025.", site.At("a.test", "/report"), "the registry counted 4,812 companies"),
		claimOf("The registry counted 4,812 companies in 2025, down from the year before.", site.At("b.test", "/report"), "the registry counted 4,812 companies"))
	before := headSeq(t, store)
	if _, err := verify.RunBatch(ctx, store, checker, "user:olga", b.ID, false, 2, nil); err != nil {
		t.Fatal(err)
	}
	_, types := checkedEvents(t, store, before)
	if strings.Join(types, ",") != "citation.checked,citation.checked,seam.opened" && strings.Join(types, ",") != "citation.checked,seam.opened,citation.checked" {
		t.Errorf("events %v: want one citation.checked per citation and one seam", types)
	}
	got, err := store.Batch(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	first, second := got.Claims[0].Citations[0], got.Claims[1].Citations[0]
	if s := first.Support; s == nil || s.Verdict != evidence.VerdictSupported || s.DecidedBy != "code" || len(s.Judgements) != 2 || len(s.Calls) != 2 || s.Totals.Calls != 2 || s.Totals.PromptTokens == 0 {
		t.Fatalf("first citation's support = %+v", first.Support)
	}
	if first.Support.Judgements[0].Evidence[0] != verify.ReportSentence {
		t.Errorf("evidence = %v", first.Support.Judgements[0].Evidence)
	}
	if s := second.Support; s == nil || s.Verdict != evidence.VerdictContradicted || len(second.OpenSeams) != 1 {
		t.Fatalf("second citation: support %+v, open seams %v: want contradicted and a contradiction seam", s, second.OpenSeams)
	}
	if first.Status != evidence.StatusFound || second.Status != evidence.StatusFound {
		t.Errorf("statuses %s, %s: the quote status is the quote check's", first.Status, second.Status)
	}
	if m := got.Models; m == nil || m.Calls != 4 || m.PromptTokens != first.Support.Totals.PromptTokens+second.Support.Totals.PromptTokens {
		t.Errorf("batch totals %+v", got.Models)
	}
	seams, err := store.Seams(ctx, "open")
	if err != nil {
		t.Fatal(err)
	}
	if len(seams) != 1 || seams[0].Kind != evidence.SeamContradiction || !strings.Contains(seams[0].Summary, verify.ReportSentence) {
		t.Errorf("open seams %+v: want the contradiction quoting the page", seams)
	}
	auditHolds(t, store)

	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "ledger.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE support_judgements SET verdict = 'supported' WHERE verdict = 'contradicted'"); err != nil {
		t.Fatal(err)
	}
	rep, err := store.Audit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	named := false
	for _, p := range rep.Problems {
		named = named || p.Table == "support_judgements"
	}
	if rep.OK || !named {
		t.Errorf("after a judgement was changed through SQL the audit says ok=%v, problems %+v", rep.OK, rep.Problems)
	}
}

// A paraphrase: the quote is not on the page, the tier finds the page supports the claim,
// a disagreement seam offers the page's sentences, and a person who resolves it
// found_at_source makes them the citation's excerpt; the replay agrees.
func TestParaphraseAcceptedThroughASeam(t *testing.T) {
	ctx := context.Background()
	site := verify.NewLoopbackSite(t)
	store, _ := openStore(t)
	chat := verify.NewChatServer(t, func(verify.ChatSeen, int) verify.ChatAnswer {
		return verify.ChatAnswer{Content: verify.VerdictJSON("supported", 85, "The page gives the count in other words.", verify.ReportSentence)}
	})
	models, err := verify.NewModels(verify.ModelConfig{Verifier: chat.Endpoint("cheap"), Timeout: time.Hour}, verify.LoopbackFetchConfig())
	if err != nil {
		t.Fatal(err)
	}
	b := importClaims(t, store, claimOf("The registry counted 4,812 companies in 2025.", site.At("a.test", "/report"), "the registry recorded four thousand eight hundred firms"))
	if _, err := verify.RunBatch(ctx, store, verify.NewChecker(verify.LoopbackFetchConfig()).WithModels(models), "system", b.ID, false, 1, nil); err != nil {
		t.Fatal(err)
	}
	c, err := store.Claim(ctx, b.Claims[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	ct := c.Citations[0]
	if ct.Status != evidence.StatusNotFound || ct.Support == nil || ct.Support.Verdict != evidence.VerdictSupported || len(ct.OpenSeams) != 1 || ct.Excerpt != "" {
		t.Fatalf("citation %+v: want not_found, supported, one open seam, no excerpt", ct)
	}
	if !strings.Contains(ct.Note, verify.ReportSentence) {
		t.Errorf("note %q does not offer the page's sentence", ct.Note)
	}
	if _, err := store.ResolveSeam(ctx, "user:olga", ct.OpenSeams[0], "found_at_source", "the page says it in its own words"); err != nil {
		t.Fatal(err)
	}
	c, _ = store.Claim(ctx, c.ID)
	if ct := c.Citations[0]; ct.Status != evidence.StatusFound || ct.Excerpt != verify.ReportSentence || c.Status != evidence.StatusFound {
		t.Errorf("after the resolution: citation %s with excerpt %q, claim %s", ct.Status, ct.Excerpt, c.Status)
	}
	auditHolds(t, store)
}
