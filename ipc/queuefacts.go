package ipc

// QueueFacts is the content of a queue file, <runtime dir>/queue/<session
// id>.json (specs/broker.md): the part of `state` the stuck queue is
// ordered by, with the same keys and meanings, so that a status line can
// order the queue without dialling a socket. The supervisor
// rewrites it (temp file + rename) whenever one of them changes and
// removes it when it exits.
type QueueFacts struct {
	SessionID    string `json:"session_id"`
	Name         string `json:"name"`
	Workspace    string `json:"workspace"`
	Role         string `json:"role"`
	Document     string `json:"document"` // absolute; for Fleet.Find's document targets
	Activity     string `json:"activity"`
	Reason       string `json:"reason"`
	WaitingSince int64  `json:"waiting_since"` // unix ms, 0: not waiting on the human
	SkipUntil    int64  `json:"skip_until"`    // unix ms, 0: no skip cooldown
	SupPID       int    `json:"sup_pid"`
	Lifecycle    string `json:"lifecycle"`
}

// QueueFacts is the part of st a queue file holds: the one mapping from a
// state to its facts (a host cache keeps the same facts of another
// host's sessions).
func (st State) QueueFacts() QueueFacts {
	return QueueFacts{SessionID: st.SessionID, Name: st.Name, Workspace: st.Workspace, Role: st.Role,
		Document: st.Document, Activity: st.Activity, Reason: st.Reason, WaitingSince: st.WaitingSince,
		SkipUntil: st.SkipUntil, SupPID: st.SupPID, Lifecycle: st.Lifecycle}
}

// State is the facts as a (partial) State, for code that orders States.
func (f QueueFacts) State() State {
	return State{
		SessionID: f.SessionID, Name: f.Name, Workspace: f.Workspace, Role: f.Role, Document: f.Document,
		Activity: f.Activity, Reason: f.Reason, WaitingSince: f.WaitingSince, SkipUntil: f.SkipUntil,
		SupPID: f.SupPID, Lifecycle: f.Lifecycle,
	}
}
