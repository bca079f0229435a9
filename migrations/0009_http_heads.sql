-- The exact exchange of a capture (docs/fetch.md, docs/report.md): the SHA-256 of the stored
-- head of the final request as sent and of the final response as received, each a blob
-- named by the citation.checked event. Checks recorded before the heads were kept have ''.
-- Both come from the event's document, so the projection is rebuilt from the events.
ALTER TABLE documents ADD COLUMN request_head TEXT NOT NULL DEFAULT ''
    CHECK (request_head = '' OR length(request_head) = 64);
ALTER TABLE documents ADD COLUMN response_head TEXT NOT NULL DEFAULT ''
    CHECK (response_head = '' OR length(response_head) = 64);
