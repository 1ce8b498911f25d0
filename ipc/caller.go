package ipc

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"unicode"
)

// CodeNotAllowed refuses a call the caller may not make: an agent asking
// for what only the operator may give (an answer, raw keys, a forced
// trigger), or a trigger the policy does not allow (specs/security.md,
// "Who is calling"). Nothing was typed.
const CodeNotAllowed Code = "NOT_ALLOWED"

// Caller kinds.
const (
	CallerOperator = "operator" // a process outside every supervised agent
	CallerAgent    = "agent"    // a process inside a supervised agent's tree
)

// Caller is who made a call, decided by the server from the kernel's peer
// credentials and the caller's ancestry, once per connection — never from
// what the client says (its Requester). It travels in audit records and
// events as "caller".
type Caller struct {
	Kind string `msgpack:"kind" json:"kind"` // CallerOperator or CallerAgent
	// Session is the agent's session (empty for the operator, and for an
	// agent whose session could not be identified).
	Session *CallerSession `msgpack:"session,omitempty" json:"session,omitempty"`
	PID     int            `msgpack:"pid" json:"pid"`
	Exe     string         `msgpack:"exe,omitempty" json:"exe,omitempty"`
	// Chain is the ancestry that decided, caller first ("bash[41] <
	// claude[40] < sup[30](supervisor) < …"), for logs and `sup whoami`.
	Chain string `msgpack:"chain,omitempty" json:"chain,omitempty"`
	// Enclosing are every session whose agent tree holds the caller,
	// innermost (Session) first: a supervisor an agent started itself is
	// inside its own. Policy binds the caller by all of them.
	Enclosing []CallerSession `msgpack:"enclosing,omitempty" json:"enclosing,omitempty"`
	// Via is set when an operator's connection said, in hello, that it
	// acts for a client of a front end (sup web: the browser's address).
	// Only the operator may say so (an agent's hello with via is refused
	// NOT_ALLOWED), and it never changes Kind: it only tells the audit
	// through what the operator acted.
	Via *Via `msgpack:"via,omitempty" json:"via,omitempty"`
}

// ViaWeb is Via.Kind for `sup web`: the operator acting from a browser.
const ViaWeb = "web"

// ViaKinds are the kinds a hello's via may name.
var ViaKinds = []string{ViaWeb}

// MaxViaClient caps Via.Client: an address ("[v6addr%zone]:port").
const MaxViaClient = 80

// Via is the front end an operator's connection acts for (HelloParams.Via,
// Caller.Via).
type Via struct {
	Kind   string `msgpack:"kind" json:"kind"`     // one of ViaKinds
	Client string `msgpack:"client" json:"client"` // the front end's client: host:port
}

// check says what is wrong with v, naming the valid choices.
func (v Via) check() error {
	if !slices.Contains(ViaKinds, v.Kind) {
		return Errorf(CodeBadRequest, "hello: via kind %q is not one sup knows; valid: %s", v.Kind, strings.Join(ViaKinds, ", "))
	}
	host, port, err := net.SplitHostPort(v.Client)
	if err != nil || len(v.Client) > MaxViaClient || port == "" || host == "" || strings.ContainsFunc(v.Client, unicode.IsControl) {
		return Errorf(CodeBadRequest, "hello: via client %q is not an address; want host:port (at most %d bytes), e.g. 127.0.0.1:5555", v.Client, MaxViaClient)
	}
	return nil
}

// CallerSession names a session a caller runs in. Name, ID and Workspace
// are empty when the session could not be identified.
type CallerSession struct {
	Name      string `msgpack:"name,omitempty" json:"name,omitempty"`
	ID        string `msgpack:"id,omitempty" json:"id,omitempty"`
	Workspace string `msgpack:"workspace,omitempty" json:"workspace,omitempty"`
	SupPID    int    `msgpack:"sup_pid,omitempty" json:"sup_pid,omitempty"`
}

// IsOperator reports whether c is the operator.
func (c Caller) IsOperator() bool { return c.Kind == CallerOperator }

// Label is c for a message: "the operator", `agent "sb" (session 9f2c…)`
// or "an agent of an unidentified session".
func (c Caller) Label() string {
	switch {
	case c.IsOperator() && c.Via != nil:
		return "the operator (" + c.Via.Kind + ", " + c.Via.Client + ")"
	case c.IsOperator():
		return "the operator"
	case c.Session == nil || c.Session.ID == "":
		return "an agent of an unidentified session"
	case c.Session.Name != "":
		return "agent " + quoteName(c.Session.Name) + " (session " + c.Session.ID + ")"
	}
	return "the agent of session " + c.Session.ID
}

func quoteName(s string) string { return "\"" + s + "\"" }

type callerKey struct{}

// CallerFromContext returns the caller of the connection a request came in
// on, as ServerConfig.Classify decided it. A server without Classify
// reports the operator for every call (ok false).
func CallerFromContext(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	if !ok {
		p, _ := PeerFromContext(ctx)
		return Caller{Kind: CallerOperator, PID: p.PID}, false
	}
	return c, true
}

// WithCaller returns ctx carrying c (the server does it for every
// request; tests and in-process callers may too).
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// agentKey is the key and label of the agent c is, for the held
// connections' per-agent cap (ServerConfig.MaxWaitingPerPeer): its
// outermost enclosing session, so that an agent that starts supervisors of
// its own cannot multiply its share by nesting, keyed by its id, else its
// supervisor's pid; agents of no identified session share one key. ""
// for the operator.
func agentKey(c Caller) (key, label string) {
	if c.IsOperator() {
		return "", ""
	}
	s := c.Session
	if n := len(c.Enclosing); n > 0 {
		s = &c.Enclosing[n-1]
	}
	switch {
	case s != nil && s.ID != "":
		return "id:" + s.ID, Caller{Kind: CallerAgent, Session: s}.Label()
	case s != nil && s.SupPID > 0:
		return fmt.Sprintf("sup:%d", s.SupPID), fmt.Sprintf("the agent of the supervisor with pid %d", s.SupPID)
	}
	return "unidentified", "an agent of an unidentified session"
}
