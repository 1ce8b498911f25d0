//go:build linux

package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Suite is the parsed cases file.
type Suite struct {
	About    string            `json:"about"`
	Protocol int               `json:"protocol"`
	Sockets  map[string]string `json:"sockets"` // name → what kind of session it must be
	Cases    []Case            `json:"cases"`
}

// Case is one protocol case. Exactly one of Call, Subscribe and Raw is set.
type Case struct {
	Name   string `json:"name"`
	Socket string `json:"socket"` // a key of Suite.Sockets

	// Call: one request through the client's normal API; Result or Error
	// matches its answer.
	Call   *Call `json:"call"`
	Result any   `json:"result"`
	Error  any   `json:"error"`

	// Subscribe: a subscription (Result matches its answer), then Provoke
	// ("connect": open and close another connection) and Event matches the
	// first event that arrives.
	Subscribe *Subscribe `json:"subscribe"`
	Provoke   string     `json:"provoke"`
	Event     any        `json:"event"`

	// Raw: frames written as bytes on a fresh connection.
	Raw *Raw `json:"raw"`
}

// Call is a request: method and params (nil for none).
type Call struct {
	Method string         `json:"method"`
	Params map[string]any `json:"params"`
}

// Subscribe is a subscribe request's params.
type Subscribe struct {
	Events []string `json:"events"`
}

// Raw is a raw-frame case: Hold connections are opened first (each
// answered a hello, so the server counts it), then all of Send goes out in
// one write, Expect matches the frames that come back, in order, and Then
// says what happens to the connection afterwards.
type Raw struct {
	Hold   int    `json:"hold"`
	Send   []Send `json:"send"`
	Expect []any  `json:"expect"`
	Then   string `json:"then"`
}

// The values of Raw.Then.
const (
	ThenOpen        = "open"         // a hello with id 99 on it is answered
	ThenClosed      = "closed"       // the server closes it: EOF
	ThenClientClose = "client_close" // the client closes it; the server lives on
	ThenByteCloses  = "byte_closes"  // one more byte from the client makes the server close it
)

// Send is one piece of bytes: Hex (a raw byte string, spaces allowed) or
// Msg (a request map: encoded as msgpack and framed).
type Send struct {
	Hex string         `json:"hex"`
	Msg map[string]any `json:"msg"`
}

// DefaultPath is the cases file, relative to the module root.
var DefaultPath = filepath.Join("ipc", "testdata", "conformance", "cases.json")

// Load reads and checks a cases file.
func Load(path string) (*Suite, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("conformance suite: %w", err)
	}
	return Parse(data)
}

// Parse parses a cases file's bytes and checks each case's shape.
func Parse(data []byte) (*Suite, error) {
	var s Suite
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("conformance suite: %w", err)
	}
	for i, c := range s.Cases {
		kinds := 0
		for _, set := range []bool{c.Call != nil, c.Subscribe != nil, c.Raw != nil} {
			if set {
				kinds++
			}
		}
		if kinds != 1 {
			return nil, fmt.Errorf("conformance case %d %q: needs exactly one of call, subscribe or raw", i, c.Name)
		}
		if _, ok := s.Sockets[c.Socket]; !ok {
			return nil, fmt.Errorf("conformance case %q: socket %q is not one of the suite's sockets %v", c.Name, c.Socket, keys(s.Sockets))
		}
		if c.Call != nil && (c.Result == nil) == (c.Error == nil) {
			return nil, fmt.Errorf("conformance case %q: a call needs exactly one of result or error", c.Name)
		}
		if c.Raw != nil {
			switch c.Raw.Then {
			case ThenOpen, ThenClosed, ThenClientClose, ThenByteCloses:
			default:
				return nil, fmt.Errorf("conformance case %q: then %q: want open, closed, client_close or byte_closes", c.Name, c.Raw.Then)
			}
		}
		if c.Subscribe != nil && c.Provoke != "connect" {
			return nil, fmt.Errorf("conformance case %q: provoke %q: want connect", c.Name, c.Provoke)
		}
	}
	return &s, nil
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
