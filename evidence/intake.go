package evidence

import (
	"encoding/json"
	"fmt"
)

// ReadPaste is the one way pasted research text enters, for the pages' preview and commit,
// the API's text bodies and `ledger import`: so whatever one of them accepts, the others
// accept too, and the commit accepts what the preview showed. It refuses a paste larger than
// MaxPasteBytes (matching ErrBadResearch), one that is not text ([CheckText],
// matching ErrNotText), and then reads it with [ParseResearch], whose errors it returns.
func ReadPaste(paste []byte) (Research, error) {
	pv, err := ReadPastePreview(paste)
	return pv.Research, err
}

// ReadPastePreview is [ReadPaste] that also returns what the paste preview shows beside the
// claims: what the parser left out, as [ParseResearchLeftOut] returns it (the preview lists
// the JSON values not read, [NotRead]), and the citation marker each citation came through.
func ReadPastePreview(paste []byte) (Preview, error) {
	if len(paste) > MaxPasteBytes {
		return Preview{}, fmt.Errorf("%w: the paste is %d bytes, more than the limit of %d; split it into smaller batches", ErrBadResearch, len(paste), MaxPasteBytes)
	}
	if err := CheckText(paste); err != nil {
		return Preview{}, err
	}
	return parsePreview(string(paste))
}

// ReadRequest reads the JSON body of POST /api/research. {"text":"…"} is a paste: the text
// is what is stored, and it is read by [ReadPaste]. Any other body is stored as received and
// read by [ParseClaimsJSON], after the same text rules as a paste (so a NUL written as \u0000
// inside a JSON string is refused as in a paste). It returns the bytes to store and the
// research.
func ReadRequest(body []byte) ([]byte, Research, error) {
	if len(body) > MaxPasteBytes {
		return nil, Research{}, fmt.Errorf("%w: the body is %d bytes, more than the limit of %d; split it into smaller batches", ErrBadResearch, len(body), MaxPasteBytes)
	}
	if err := CheckText(body); err != nil {
		return nil, Research{}, err
	}
	v, err := decodeJSON(body)
	if err != nil {
		return nil, Research{}, err
	}
	if obj, ok := v.(map[string]any); ok && len(obj) == 1 {
		if text, ok := obj["text"].(string); ok {
			r, err := ReadPaste([]byte(text))
			return []byte(text), r, err
		}
	}
	if err := checkStrings(v); err != nil {
		return nil, Research{}, err
	}
	r, err := ParseClaimsJSON(body)
	return body, r, err
}

// checkStrings applies CheckString to every string (and member name) in a decoded JSON value.
func checkStrings(v any) error {
	switch x := v.(type) {
	case string:
		return CheckString(x)
	case []any:
		for _, e := range x {
			if err := checkStrings(e); err != nil {
				return err
			}
		}
	case map[string]any:
		for k, e := range x {
			if err := CheckString(k); err != nil {
				return err
			}
			if err := checkStrings(e); err != nil {
				return err
			}
		}
	case json.Number, bool, nil:
	}
	return nil
}
