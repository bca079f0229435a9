package ledger

// maxCanonicalDepth bounds the nesting canonicalJSON follows; deeper values take the slow path.
const maxCanonicalDepth = 64

// canonicalJSON reports whether raw is already in the exact form jsoncanonicalizer.Transform
// writes (RFC 8785), so that the audit can hash it as it is instead of parsing and rewriting
// it. It is conservative: true means Transform(raw) returns raw unchanged and no error;
// false means only that the caller must canonicalize (forms it does not vouch for: member
// names that are not plain ASCII, numbers other than integers of at most 15 digits, nesting
// deeper than maxCanonicalDepth). It never fails and reads raw once.
func canonicalJSON(raw []byte) bool {
	if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
		return false
	}
	end, ok := canonicalValue(raw, 0, 0)
	return ok && end == len(raw)
}

// canonicalValue checks the canonical value that starts at raw[i] and returns the index
// after it.
func canonicalValue(raw []byte, i, depth int) (int, bool) {
	if i >= len(raw) || depth > maxCanonicalDepth {
		return 0, false
	}
	switch c := raw[i]; {
	case c == '{':
		return canonicalObject(raw, i+1, depth+1)
	case c == '[':
		return canonicalArray(raw, i+1, depth+1)
	case c == '"':
		return canonicalString(raw, i+1)
	case c == '-' || (c >= '0' && c <= '9'):
		return canonicalInteger(raw, i)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(raw)-i >= len(lit) && string(raw[i:i+len(lit)]) == lit {
			return i + len(lit), true
		}
	}
	return 0, false
}

// canonicalObject checks members after '{': names of printable ASCII without escapes, in
// strictly increasing byte order (for ASCII the order of UTF-16 code units RFC 8785 sorts
// by), no whitespace.
func canonicalObject(raw []byte, i, depth int) (int, bool) {
	if i < len(raw) && raw[i] == '}' {
		return i + 1, true
	}
	var prev []byte
	for first := true; ; first = false {
		if i >= len(raw) || raw[i] != '"' {
			return 0, false
		}
		start := i + 1
		for i = start; i < len(raw) && raw[i] != '"'; i++ {
			if c := raw[i]; c < 0x20 || c > 0x7e || c == '\\' {
				return 0, false
			}
		}
		if i >= len(raw) {
			return 0, false
		}
		name := raw[start:i]
		if !first && string(prev) >= string(name) {
			return 0, false
		}
		prev = name
		if i+1 >= len(raw) || raw[i+1] != ':' {
			return 0, false
		}
		var ok bool
		if i, ok = canonicalValue(raw, i+2, depth); !ok || i >= len(raw) {
			return 0, false
		}
		switch raw[i] {
		case '}':
			return i + 1, true
		case ',':
			i++
		default:
			return 0, false
		}
	}
}

// canonicalArray checks the elements after '['.
func canonicalArray(raw []byte, i, depth int) (int, bool) {
	if i < len(raw) && raw[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = canonicalValue(raw, i, depth); !ok || i >= len(raw) {
			return 0, false
		}
		switch raw[i] {
		case ']':
			return i + 1, true
		case ',':
			i++
		default:
			return 0, false
		}
	}
}

// canonicalString checks a string's contents after '"': bytes from 0x20 up written as
// they are (other than '"' and '\'), the seven short escapes \" \\ \b \f \n \r \t, and
// \u00xx in lowercase hex for the other control characters.
func canonicalString(raw []byte, i int) (int, bool) {
	for ; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			if i+1 >= len(raw) {
				return 0, false
			}
			switch raw[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+5 >= len(raw) || raw[i+2] != '0' || raw[i+3] != '0' || (raw[i+4] != '0' && raw[i+4] != '1') {
					return 0, false
				}
				lo := raw[i+5]
				if !(lo >= '0' && lo <= '9' || lo >= 'a' && lo <= 'f') {
					return 0, false
				}
				switch string(raw[i+4 : i+6]) {
				case "08", "09", "0a", "0c", "0d": // these have short escapes
					return 0, false
				}
				i += 5
			default:
				return 0, false
			}
		}
	}
	return 0, false
}

// canonicalInteger checks 0 or a nonzero integer of at most 15 digits without leading zeros
// (exact in a float64, so RFC 8785 writes it digit for digit); "-0" is not canonical.
func canonicalInteger(raw []byte, i int) (int, bool) {
	neg := raw[i] == '-'
	if neg {
		i++
	}
	start := i
	for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
		i++
	}
	n := i - start
	switch {
	case n == 0 || n > 15:
		return 0, false
	case raw[start] == '0' && (n > 1 || neg):
		return 0, false
	}
	return i, true
}
