package ipc

import (
	"errors"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
)

// ProtocolVersion is the value of "v" this package speaks.
const ProtocolVersion = 1

// Error codes carried in Response.Error.Code. They are part of the protocol:
// never rename one.
const (
	CodeBadRequest         = "BAD_REQUEST"
	CodeUnknownMethod      = "UNKNOWN_METHOD"
	CodePayloadTooLarge    = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedVersion = "UNSUPPORTED_VERSION"
	CodeNotRunning         = "NOT_RUNNING"
	CodeHalted             = "HALTED"
	CodePermissionDenied   = "PERMISSION_DENIED"
	CodeTooManyClients     = "TOO_MANY_CLIENTS"
	CodeInternal           = "INTERNAL"
	CodeTargetNotFound     = "TARGET_NOT_FOUND"
	CodePaneDead           = "PANE_DEAD"
	CodeOperatorBusy       = "OPERATOR_BUSY"
	CodeDeferTimeout       = "DEFER_TIMEOUT"
	CodeAckTimeout         = "ACK_TIMEOUT"
	CodeTriggerRateLimited = "TRIGGER_RATE_LIMITED"
	CodeThreadAutoBlocked  = "THREAD_AUTO_BLOCKED"
	CodeResumeFailed       = "RESUME_FAILED"
	CodeSpawnFailed        = "SPAWN_FAILED"
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

// Event is one frame of a subscribed connection's stream.
type Event struct {
	Event string         `msgpack:"event" json:"event"`
	Seq   uint64         `msgpack:"seq" json:"seq"`
	At    int64          `msgpack:"at" json:"at"` // unix milliseconds
	Data  map[string]any `msgpack:"data" json:"data"`
}

// Error is a protocol error: a stable UPPER_SNAKE code and a human message.
type Error struct {
	Code    string `msgpack:"code"`
	Message string `msgpack:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
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
