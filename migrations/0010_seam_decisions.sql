-- A person's decision governs (docs/verification.md, "A person's decision"): the standing a
-- resolved seam gives every claim it is about (evidence.DecisionEffect), and a claim's
-- standing, the most severe of its resolved seams' (evidence.ClaimStanding). Both are set by
-- the projectors of seam.resolved (and recomputeClaim) from the events, so the audit's replay
-- rebuilds and compares them. Resolutions recorded before decisions were fixed were free text
-- on contradictions and absences and had no effect: they keep '' and so do their claims.
ALTER TABLE seams ADD COLUMN standing TEXT NOT NULL DEFAULT ''
    CHECK (standing IN ('', 'unsettled', 'contradicted'));
ALTER TABLE claims ADD COLUMN standing TEXT NOT NULL DEFAULT ''
    CHECK (standing IN ('', 'unsettled', 'contradicted'));

-- A resolution recorded before decisions were fixed whose free text is one of its kind's
-- decisions has that decision's effect, as its replay gives it (evidence.DecisionEffect);
-- the rule, applied once, gives the columns their values.
UPDATE seams SET standing = CASE
    WHEN kind = 'contradiction' AND decision = 'contradicted' THEN 'contradicted'
    WHEN kind = 'contradiction' AND decision = 'cannot_tell' THEN 'unsettled'
    WHEN kind = 'absence' AND decision IN ('not_established', 'cannot_tell') THEN 'unsettled'
    ELSE '' END
WHERE state = 'resolved';
UPDATE claims SET standing = coalesce((
    SELECT CASE max(CASE s.standing WHEN 'contradicted' THEN 2 WHEN 'unsettled' THEN 1 ELSE 0 END)
        WHEN 2 THEN 'contradicted' WHEN 1 THEN 'unsettled' ELSE '' END
    FROM seam_claims sc JOIN seams s ON s.id = sc.seam
    WHERE sc.claim = claims.id AND s.state = 'resolved'), '');
