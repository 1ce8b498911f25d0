package ipc

import (
	"fmt"
	"sort"
	"strings"
)

// requestKeys are the keys a v1 request may hold. Any other key is a
// BAD_REQUEST: a misspelt "parms" must not silently become a call without
// params. Additions to the request envelope come with a new "v".
var requestKeys = map[string]bool{"v": true, "id": true, "method": true, "params": true}

// parseRequest decodes and validates one frame body as a v1 request, exactly
// as the server does before dispatching it. On failure it returns the
// protocol error to send back and, when the frame carried a valid id, that id
// (so the error can echo it); otherwise the id is 0.
//
// Checks, in order: the body is one well-formed msgpack value; it is a map
// with string keys and no duplicates; "id", when present, is a non-negative
// integer; "v" is present, an integer, and 1 (else UNSUPPORTED_VERSION);
// "id" is present; no other keys than v, id, method and params; "method" is
// a non-empty string; "params", when present and not nil, is a map.
func parseRequest(body []byte) (*Request, uint64, *Error) {
	bad := func(id uint64, format string, args ...any) (*Request, uint64, *Error) {
		return nil, id, Errorf(CodeBadRequest, format, args...)
	}
	if err := wellFormed(body); err != nil {
		return bad(0, "request: %v", err)
	}
	h, j, err := readHead(body, 0)
	if err != nil {
		return bad(0, "request: %v", err)
	}
	if h.kind != kMap {
		return bad(0, "request must be a map, got %s", headName(h))
	}
	raw := make(map[string][]byte, h.n)
	var unknown []string
	for k := 0; k < h.n; k++ {
		key, after, err := mapKey(body, j, "")
		if err != nil {
			return bad(0, "request %v", err)
		}
		end, err := skipValue(body, after, 1)
		if err != nil {
			return bad(0, "request: %v", err)
		}
		if _, dup := raw[key]; dup {
			return bad(0, "request has the key %q twice", key)
		}
		raw[key] = body[after:end]
		if !requestKeys[key] {
			unknown = append(unknown, key)
		}
		j = end
	}

	// id first, so that every later error can echo it.
	var id uint64
	var idErr string
	if b, ok := raw["id"]; ok {
		ih, _, _ := readHead(b, 0)
		if ih.kind == kUint {
			id = ih.u
		} else {
			idErr = fmt.Sprintf("id must be an unsigned integer, got %s", headName(ih))
		}
	} else {
		idErr = "request has no id (an unsigned integer)"
	}

	b, ok := raw["v"]
	if !ok {
		return bad(id, "request has no v (the protocol version, %d)", ProtocolVersion)
	}
	vh, _, _ := readHead(b, 0)
	switch {
	case vh.kind == kUint && vh.u == ProtocolVersion:
	case vh.kind == kUint || vh.kind == kNegInt:
		v := fmt.Sprint(vh.u)
		if vh.kind == kNegInt {
			v = fmt.Sprint(vh.i)
		}
		return nil, id, Errorf(CodeUnsupportedVersion,
			"protocol version %s is not supported; this server speaks v=%d", v, ProtocolVersion)
	default:
		return bad(id, "v must be an integer, got %s", headName(vh))
	}

	if idErr != "" {
		return bad(0, "%s", idErr)
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return bad(id, "unknown request key(s) %s; a request holds only v, id, method and params",
			quoteAll(unknown))
	}

	b, ok = raw["method"]
	if !ok {
		return bad(id, "request has no method (a string)")
	}
	mh, mj, _ := readHead(b, 0)
	if mh.kind != kStr {
		return bad(id, "method must be a string, got %s", headName(mh))
	}
	method := string(b[mj : mj+mh.n])
	if method == "" {
		return bad(id, "method must not be empty")
	}

	req := &Request{V: ProtocolVersion, ID: id, Method: method}
	if p, ok := raw["params"]; ok {
		ph, _, _ := readHead(p, 0)
		switch ph.kind {
		case kNil: // same as absent
		case kMap:
			req.Params = p
		default:
			return bad(id, "params must be a map, got %s", headName(ph))
		}
	}
	return req, id, nil
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
