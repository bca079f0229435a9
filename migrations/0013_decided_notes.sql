-- A citation whose status a person set by resolving a seam kept the words "decided by NAME
-- (seam ID): REASON" as its note, made by the projector of seam.resolved: prose in an audited
-- row, so rewording it would have made every existing ledger's replay differ. The row now
-- holds the reason alone (the seam, and so who decided, is decided_by_seam); the words are
-- made where the note is shown (evidence.DecidedNote). The same rule, applied once, brings the
-- rows written before it to that form.
UPDATE citations SET note = (SELECT s.reason FROM seams s WHERE s.id = citations.decided_by_seam)
WHERE decided_by_seam IS NOT NULL
  AND note = (SELECT 'decided by ' || s.resolved_by || ' (seam ' || s.id || '): ' || s.reason FROM seams s WHERE s.id = citations.decided_by_seam);
