package ipc

import (
	"errors"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
)

// ProtocolVersion is the value of "v" this package speaks.
const ProtocolVersion = 1

// Code is an error code carried in Response.Error.Code (and in a trigger's
// error_code). It travels as a plain string: the type only keeps a code
// from being confused with any other string in Go.
type Code string

// Error codes carried in Response.Error.Code. They are part of the protocol:
// never rename one.
const (
	CodeBadRequest         Code = "BAD_REQUEST"
	CodeUnknownMethod      Code = "UNKNOWN_METHOD"
	CodePayloadTooLarge    Code = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedVersion Code = "UNSUPPORTED_VERSION"
	CodeNotRunning         Code = "NOT_RUNNING"
	CodeHalted             Code = "HALTED"
	CodePermissionDenied   Code = "PERMISSION_DENIED"
	CodeTooManyClients     Code = "TOO_MANY_CLIENTS"
	CodeInternal           Code = "INTERNAL"
	CodeTargetNotFound     Code = "TARGET_NOT_FOUND"
	CodePaneDead           Code = "PANE_DEAD"
	CodeOperatorBusy       Code = "OPERATOR_BUSY"
	CodeDeferTimeout       Code = "DEFER_TIMEOUT"
	CodeAckTimeout         Code = "ACK_TIMEOUT"
	CodeTriggerRateLimited Code = "TRIGGER_RATE_LIMITED"
	CodeThreadAutoBlocked  Code = "THREAD_AUTO_BLOCKED"
	CodeResumeFailed       Code = "RESUME_FAILED"
	CodeSpawnFailed        Code = "SPAWN_FAILED"
)

// Request is one call from a client.
type Request struct {
	V      int                `msgpack:"v"`
	ID     uint64             `msgpack:"id"`
	Method string             `msgpack:"method"`
	Params msgpack.RawMessage `msgpack:"params,omitempty"`
}

// DecodeParams decodes the request's params into p, rejecting unknown keys
// and wrongly typed values with a BAD_REQUEST error. Absent params leave p
// untouched.
func (r *Request) DecodeParams(p any) error {
	if len(r.Params) == 0 {
		return nil
	}
	if err := decodeStrict(r.Params, p); err != nil {
		return Errorf(CodeBadRequest, "params of %s: %v", r.Method, err)
	}
	return nil
}

// Response answers the request with the same ID.
type Response struct {
	ID     uint64             `msgpack:"id"`
	OK     bool               `msgpack:"ok"`
	Result msgpack.RawMessage `msgpack:"result,omitempty"`
	Error  *Error             `msgpack:"error,omitempty"`
}

// Event is one frame of a subscribed connection's stream, as a client
// reads it. Data is the event's data decoded loosely (for code that passes
// events on whole, e.g. as JSON lines); DecodeData decodes it into the
// event's type (eventdata.go) instead.
type Event struct {
	Event string         `msgpack:"event" json:"event"`
	Seq   uint64         `msgpack:"seq" json:"seq"`
	At    int64          `msgpack:"at" json:"at"` // unix milliseconds
	Data  map[string]any `msgpack:"data" json:"data"`
	// raw is Data's msgpack encoding, for DecodeData.
	raw msgpack.RawMessage
}

// DecodeData decodes the event's data into v, a pointer to the event's
// type (ActivityEvent for "activity", TriggerProgress for
// "trigger_progress"; for "lifecycle" and "client" the type of the
// phase in Data["phase"]). Keys v does not have are ignored, as newer
// servers may add some (specs/ipc.md, "Decisions").
func (e Event) DecodeData(v any) error {
	if len(e.raw) == 0 {
		return fmt.Errorf("ipc: event %q: no data to decode", e.Event)
	}
	if err := unmarshal(e.raw, v); err != nil {
		return fmt.Errorf("ipc: event %q: %w", e.Event, err)
	}
	return nil
}

// Error is a protocol error: a stable UPPER_SNAKE code and a human message.
type Error struct {
	Code    Code   `msgpack:"code"`
	Message string `msgpack:"message"`
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// AsError returns err as an *Error, wrapping non-protocol errors as INTERNAL.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}
