package ipc

// The data of every event a supervisor's socket sends (specs/ipc.md,
// "Events (subscribe)"). The server publishes these types and clients
// decode into them (Event.DecodeData), so neither side spells a key or
// guesses an integer type: times are int64 unix milliseconds (0: never),
// durations int64 milliseconds, as "Msgpack conventions" says.
//
// A variant whose keys differ (a lifecycle phase, a client phase) is a
// type of its own, so that every key the spec lists is sent even when its
// value is zero (an exit with code 0 still says "code": 0). The types
// carry their variant as a field (Phase, State) because the wire does;
// which value goes with which type is in each type's comment, and
// TestEventKeysMatchSpec holds the types to the spec's table.

// Event names a supervisor publishes.
const (
	EventLifecycle       = "lifecycle"
	EventActivity        = "activity"
	EventResize          = "resize"
	EventClient          = "client"
	EventTrigger         = "trigger"
	EventTriggerProgress = "trigger_progress"
)

// Phases of the lifecycle and client events.
const (
	PhaseSpawn            = "spawn"
	PhaseExit             = "exit"
	PhaseRestartScheduled = "restart_scheduled"
	PhaseHalted           = "halted"
	PhaseResumed          = "resumed"
	PhaseStopped          = "stopped"

	PhaseConnect    = "connect"
	PhaseDisconnect = "disconnect"
	PhaseRefused    = "refused"
)

// States of a trigger_progress event.
const (
	ProgressDeferred = "deferred"
	ProgressWritten  = "written"
)

// EventData is the data of one event: EventName is the event it is
// published as. Server.Publish refuses a value sent under another name.
type EventData interface {
	EventName() string
}

// LifecycleSpawn is a "lifecycle" event, Phase "spawn": a child started.
type LifecycleSpawn struct {
	Phase string `msgpack:"phase" json:"phase"`
	PID   int    `msgpack:"pid" json:"pid"`
	Mode  string `msgpack:"mode" json:"mode"` // fresh or resume
}

// LifecycleExit is a "lifecycle" event, Phase "exit": the child ended.
type LifecycleExit struct {
	Phase  string `msgpack:"phase" json:"phase"`
	PID    int    `msgpack:"pid" json:"pid"`
	Code   int    `msgpack:"code" json:"code"`
	Signal string `msgpack:"signal" json:"signal"` // "" when it exited by itself
	Class  string `msgpack:"class" json:"class"`   // the crash policy's class; requested for exits sup caused
	Health string `msgpack:"health" json:"health"`
}

// LifecycleRestartScheduled is a "lifecycle" event, Phase
// "restart_scheduled": the crash policy restarts the child after DelayMS.
type LifecycleRestartScheduled struct {
	Phase   string `msgpack:"phase" json:"phase"`
	DelayMS int64  `msgpack:"delay_ms" json:"delay_ms"`
	Class   string `msgpack:"class" json:"class"`
}

// LifecycleHalted is a "lifecycle" event, Phase "halted": too many
// failures in a row; the session waits for the human.
type LifecycleHalted struct {
	Phase               string `msgpack:"phase" json:"phase"`
	ConsecutiveFailures int    `msgpack:"consecutive_failures" json:"consecutive_failures"`
}

// LifecycleResumed is a "lifecycle" event, Phase "resumed": a halt (or
// the wait after a clean exit) was lifted.
type LifecycleResumed struct {
	Phase string `msgpack:"phase" json:"phase"`
}

// LifecycleStopped is a "lifecycle" event, Phase "stopped": sup ends.
type LifecycleStopped struct {
	Phase   string `msgpack:"phase" json:"phase"`
	Why     string `msgpack:"why" json:"why"`
	EndedBy string `msgpack:"ended_by" json:"ended_by"` // the signal that ended the child; "" when none ran
}

// ActivityEvent is an "activity" event: what the agent is doing changed.
type ActivityEvent struct {
	Activity     string `msgpack:"activity" json:"activity"`
	Reason       string `msgpack:"reason" json:"reason"`
	Summary      string `msgpack:"summary" json:"summary"`
	Source       string `msgpack:"source" json:"source"` // hook, stream, screen, lifecycle
	Rule         string `msgpack:"rule" json:"rule"`     // what decided it, e.g. hook:PermissionRequest
	WaitingSince int64  `msgpack:"waiting_since" json:"waiting_since"`
	SkipUntil    int64  `msgpack:"skip_until" json:"skip_until"`
	PromptID     string `msgpack:"prompt_id" json:"prompt_id"`
}

// ResizeEvent is a "resize" event: the pane's size changed.
type ResizeEvent struct {
	Rows int `msgpack:"rows" json:"rows"`
	Cols int `msgpack:"cols" json:"cols"`
}

// ClientEvent is the data of a "client" event, as ServerConfig.OnClient
// receives it: a ClientConnect, ClientDisconnect or ClientRefused.
type ClientEvent interface {
	EventData
	clientEvent()
}

// ClientConnect is a "client" event, Phase "connect": a connection was
// admitted. Caller is set when the server classifies its callers.
type ClientConnect struct {
	Phase   string  `msgpack:"phase" json:"phase"`
	PeerPID int     `msgpack:"peer_pid" json:"peer_pid"`
	PeerUID int     `msgpack:"peer_uid" json:"peer_uid"`
	Caller  *Caller `msgpack:"caller,omitempty" json:"caller,omitempty"`
}

// ClientDisconnect is a "client" event, Phase "disconnect": an admitted
// connection ended after Requests frames.
type ClientDisconnect struct {
	Phase    string `msgpack:"phase" json:"phase"`
	PeerPID  int    `msgpack:"peer_pid" json:"peer_pid"`
	PeerUID  int    `msgpack:"peer_uid" json:"peer_uid"`
	Requests int    `msgpack:"requests" json:"requests"`
}

// ClientRefused is a "client" event, Phase "refused": a connection was
// turned away (PERMISSION_DENIED or TOO_MANY_CLIENTS).
type ClientRefused struct {
	Phase   string `msgpack:"phase" json:"phase"`
	PeerPID int    `msgpack:"peer_pid" json:"peer_pid"`
	PeerUID int    `msgpack:"peer_uid" json:"peer_uid"`
	Code    Code   `msgpack:"code" json:"code"`
}

// TriggerEvent is a "trigger" event: a trigger's final outcome, the
// trigger method's result without delivery_backend, deferred_until and
// repeat, with the caller that asked. Every key is always sent.
type TriggerEvent struct {
	TriggerID   string  `msgpack:"trigger_id" json:"trigger_id"`
	ThreadID    string  `msgpack:"thread_id" json:"thread_id"`
	Result      Outcome `msgpack:"result" json:"result"`
	ErrorCode   Code    `msgpack:"error_code" json:"error_code"`
	Message     string  `msgpack:"message" json:"message"`
	DeliveredAt int64   `msgpack:"delivered_at" json:"delivered_at"`
	Attempts    int     `msgpack:"attempts" json:"attempts"`
	AckedBy     string  `msgpack:"acked_by" json:"acked_by"`
	Fallback    string  `msgpack:"fallback" json:"fallback"`
	AuditError  string  `msgpack:"audit_error" json:"audit_error"`
	Caller      Caller  `msgpack:"caller" json:"caller"`
}

// NewTriggerEvent is the event of outcome r, asked by caller.
func NewTriggerEvent(r TriggerResult, caller Caller) TriggerEvent {
	return TriggerEvent{
		TriggerID: r.TriggerID, ThreadID: r.ThreadID, Result: r.Result, ErrorCode: r.ErrorCode,
		Message: r.Message, DeliveredAt: r.DeliveredAt, Attempts: r.Attempts, AckedBy: r.AckedBy,
		Fallback: r.Fallback, AuditError: r.AuditError, Caller: caller,
	}
}

// TriggerProgress is a "trigger_progress" event: a step of a trigger
// still under way. State "deferred" sends ErrorCode, Message (the reason
// in words), NextLookAt and GivesUpAt, none of them ever zero then; State
// "written" (its bytes went to the agent) sends Attempt (from 1) and Gate
// (the collision gate it passed, never empty). The keys of the other
// state are left out (omitempty), which is exact because of those
// never-zero values.
type TriggerProgress struct {
	TriggerID  string `msgpack:"trigger_id" json:"trigger_id"`
	ThreadID   string `msgpack:"thread_id" json:"thread_id"`
	State      string `msgpack:"state" json:"state"`
	ErrorCode  Code   `msgpack:"error_code,omitempty" json:"error_code,omitempty"`
	Message    string `msgpack:"message,omitempty" json:"message,omitempty"`
	NextLookAt int64  `msgpack:"next_look_at,omitempty" json:"next_look_at,omitempty"`
	GivesUpAt  int64  `msgpack:"gives_up_at,omitempty" json:"gives_up_at,omitempty"`
	Attempt    int    `msgpack:"attempt,omitempty" json:"attempt,omitempty"`
	Gate       string `msgpack:"gate,omitempty" json:"gate,omitempty"`
}

func (LifecycleSpawn) EventName() string            { return EventLifecycle }
func (LifecycleExit) EventName() string             { return EventLifecycle }
func (LifecycleRestartScheduled) EventName() string { return EventLifecycle }
func (LifecycleHalted) EventName() string           { return EventLifecycle }
func (LifecycleResumed) EventName() string          { return EventLifecycle }
func (LifecycleStopped) EventName() string          { return EventLifecycle }
func (ActivityEvent) EventName() string             { return EventActivity }
func (ResizeEvent) EventName() string               { return EventResize }
func (ClientConnect) EventName() string             { return EventClient }
func (ClientDisconnect) EventName() string          { return EventClient }
func (ClientRefused) EventName() string             { return EventClient }
func (TriggerEvent) EventName() string              { return EventTrigger }
func (TriggerProgress) EventName() string           { return EventTriggerProgress }

func (ClientConnect) clientEvent()    {}
func (ClientDisconnect) clientEvent() {}
func (ClientRefused) clientEvent()    {}
