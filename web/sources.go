package web

import (
	"net/http"

	"evidenceledger/evidence"
)

// handleSources answers one page {"sources":[...],"next_after","prev_before"}, by id;
// limit, after, before.
func (s *server) handleSources(w http.ResponseWriter, r *http.Request) {
	p, err := readPage(r)
	if err != nil {
		Error(w, r, err)
		return
	}
	sp, err := s.intake().SourcesPage(r.Context(), p)
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, sp)
}

// handleClassify sets a source's class and publisher: 200 with the source.
func (s *server) handleClassify(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Class     evidence.SourceClass `json:"class"`
		Publisher string               `json:"publisher"`
	}
	if err := decodeBody(w, r, &req); err != nil {
		Error(w, r, err)
		return
	}
	v, err := s.intake().ClassifySource(r.Context(), actorOf(r), r.PathValue("id"), req.Class, req.Publisher)
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}
