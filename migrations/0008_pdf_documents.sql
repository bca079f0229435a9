-- PDF sources (docs/pdf.md): a stored PDF records its page count and the engines, with
-- their versions, that read it; a quote found in a PDF records the page it is on. Web
-- pages keep 0 and '[]'. Both come from the citation.checked payload, so the projection
-- is rebuilt from the events like every other.
ALTER TABLE documents ADD COLUMN pages INTEGER NOT NULL DEFAULT 0 CHECK (pages >= 0);
ALTER TABLE documents ADD COLUMN extractors TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(extractors) AND json_type(extractors) = 'array');
ALTER TABLE checks ADD COLUMN page INTEGER NOT NULL DEFAULT 0 CHECK (page >= 0);
