//go:build linux

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
}

// SubscribeResult answers subscribe before the event stream starts.
type SubscribeResult struct {
	Events []string `msgpack:"events"` // the events this stream will carry
}

// HelloParams are the optional params of hello.
type HelloParams struct {
	// Client names the caller ("nvim-sup/0.3") for the server's log.
	Client string `msgpack:"client,omitempty"`
}
