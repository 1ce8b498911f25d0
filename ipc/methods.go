package ipc

// Method names of protocol v1.
const (
	MethodHello     = "hello"
	MethodState     = "state"
	MethodPid       = "pid"
	MethodScreen    = "screen"
	MethodInject    = "inject"
	MethodTrigger   = "trigger"
	MethodRestart   = "restart"
	MethodStop      = "stop"
	MethodResume    = "resume"
	MethodSkip      = "skip"
	MethodHook      = "hook"
	MethodSubscribe = "subscribe"
	MethodHistory   = "history"
	MethodUnblock   = "unblock"
	// MethodPendingTriggers lists a session's triggers not yet finished.
	MethodPendingTriggers = "pending_triggers"
	// MethodCancelTrigger takes a pending trigger back before it is typed.
	MethodCancelTrigger = "cancel_trigger"
)

// HelloResult answers hello.
type HelloResult struct {
	Server   string   `msgpack:"server"`   // sup's version
	Protocol int      `msgpack:"protocol"` // always ProtocolVersion
	Methods  []string `msgpack:"methods"`  // every method this server answers
	Events   []string `msgpack:"events"`   // every event name subscribe accepts
}

// SubscribeParams are the params of subscribe.
type SubscribeParams struct {
	Events []string `msgpack:"events,omitempty"` // empty: all events
	// SinceSeq, when set, replays the buffered events numbered above it
	// before the live ones, so a subscriber that reconnects loses nothing
	// that is still in the server's replay buffer (SubscribeResult.Gap
	// says when some was not).
	SinceSeq *uint64 `msgpack:"since_seq,omitempty"`
}

// SubscribeResult answers subscribe before the event stream starts.
type SubscribeResult struct {
	Events []string `msgpack:"events"` // the events this stream will carry
	// Seq is the last seq published before the stream starts (0: none).
	Seq uint64 `msgpack:"seq"`
	// Gap, with since_seq: events after since_seq were no longer buffered,
	// so the replay starts later than asked (re-read state).
	Gap bool `msgpack:"gap"`
}

// HelloParams are the optional params of hello.
type HelloParams struct {
	// Client names the caller ("nvim-sup/0.3") for the server's log.
	Client string `msgpack:"client,omitempty"`
	// Via says the connection acts for a front end's client (sup web: a
	// browser): the operator's later calls on it carry Caller.Via, so the
	// audit says "the operator (web, 127.0.0.1:5555)". An agent's hello
	// with via is refused NOT_ALLOWED and changes nothing.
	Via *Via `msgpack:"via,omitempty"`
}
