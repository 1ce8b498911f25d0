package modelread

import "fmt"

// Failure says how a call failed; each kind has its own counter.
type Failure string

const (
	FailTimeout  Failure = "timeout"   // no reply within the timeout
	FailHTTP     Failure = "http"      // connection refused, or a status other than 200
	FailNotJSON  Failure = "not_json"  // the reply is not one JSON object
	FailBadReply Failure = "bad_reply" // JSON, but not the contract (a state not in the list, …)
)

// Error is a failed call or reply.
type Error struct {
	Kind Failure
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("model %s: %v", e.Kind, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns err's Failure, FailHTTP for an error of another type.
func KindOf(err error) Failure {
	if e, ok := err.(*Error); ok {
		return e.Kind
	}
	return FailHTTP
}
