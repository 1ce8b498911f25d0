package desk

import (
	"errors"
	"time"

	"github.com/sup-tmux/sup/internal/caller"
	"github.com/sup-tmux/sup/ipc"
)

// Port is what the desk needs from the session it delivers to: Delivery,
// what it does to the session, and Reads, what it reads of it. Every
// method takes the session's own locks as it needs them; the desk calls
// none of them while it holds its own. A test gives the desk a fake Port
// (port_test.go): the desk is pure logic over these two halves.
type Port interface {
	Delivery
	Reads
}

// Delivery is what the desk does to its session: the running child,
// bringing a stopped one back, the one write into its input under the
// session's input lock (with the gates read there), releasing the hook's
// hold, and the events and policy around them.
type Delivery interface {
	// Child is the running child, nil between runs.
	Child() Child
	// BringBack restarts a child that is not running and waits until it
	// is ready for input; mode is "resume" or "fresh", code the error code
	// a failure carries.
	BringBack() (c Child, mode string, code ipc.Code, err error)
	// Write is the one write of keys into c's input, under the session's
	// input lock: check runs under that lock, immediately before the first
	// byte, with the gates read there, and says what to write — a payload
	// and whether a separate "\r" follows after the profile's submit
	// delay — or refuses with an error, writing nothing (ErrGateClosed for
	// a trigger: a dialog that opened since the desk looked must not be
	// answered by a paste). It returns when the last byte went (the "\r"
	// when submitting). It fails with ErrChildGone once c is not the
	// running child (wrapped, the payload written, when c ended in the
	// submit delay), and with os.ErrDeadlineExceeded when the child does
	// not read within WriteTimeout. The input lock is not held across the
	// submit delay (the human's keys are not held back by it): confirm,
	// when not nil, runs with the gates read after the delay, under the
	// input lock again, right before the "\r"; its error is returned with
	// the payload written and the "\r" withheld.
	Write(c Child, check func(Gates) (payload []byte, submit bool, err error), confirm func(Gates) error) (at time.Time, err error)
	// Released says that keys answering the prompt were typed at: the
	// hook's hold ends, as for a key from the pane, and the screen is read
	// again.
	Released(at time.Time)
	// Allow checks the policy for caller c doing act (what names the
	// method): nil, or a NOT_ALLOWED error naming the caller and the rule.
	Allow(c ipc.Caller, act caller.Action, what string) error
	// Publish sends an event to the session's subscribers.
	Publish(event string, data any)
}

// Reads is what the desk reads of its session. No read changes anything.
type Reads interface {
	// Facts is one read of the session's facts at now: the gates, what
	// an acknowledgement is read from, the loop guard's progress token
	// and the profile's paste settings.
	Facts(now time.Time) Facts
	// Prompt is the open prompt (ID "" when none), with the keys that
	// answer it.
	Prompt(now time.Time) Prompt
	// AnswerAck says what shows that the prompt id, answered at written,
	// is gone — "hook", "screen" or "activity", "" while it is still open
	// — and the activity now.
	AnswerAck(id string, written time.Time) (by, activity string)
	// ScreenText is the text on the agent's screen, "" before the first
	// child has one.
	ScreenText() string
	// Identity names the session and its document, for the audit trail.
	Identity() (sessionID, document string)
	// Changed is closed on the next change of the session's facts (its
	// activity, prompt, screen, draft, lifecycle): the desk's waits
	// select on it with a deadline instead of polling. Take it before
	// reading the facts it guards, so no change in between is missed.
	Changed() <-chan struct{}
}

// Facts is one read of the session's facts (Reads.Facts).
type Facts struct {
	Gates Gates
	Ack   AckFacts
	// Progress is the loop guard's token for the agent's state: it
	// changes when the conversation moves on (a new assistant message, a
	// key from the human).
	Progress string
	// Envelope says whether a trigger that does not say is wrapped in the
	// envelope: on for agents, off for a shell (the profile's setting).
	Envelope bool
	// BracketedPaste: the agent asked for bracketed paste (xterm mode
	// 2004).
	BracketedPaste bool
}

// Child is one run of the agent, compared by identity: a delivery meant
// for one child never types into its successor.
type Child interface {
	// Done is closed once the child has ended.
	Done() <-chan struct{}
}

// Gates is what the session's state says to a waiting trigger.
type Gates struct {
	OperatorBusy bool // keys within the quiet window, or a draft in the input box
	// LastKey is when the human last pressed a key (zero: never), Draft
	// whether unsent text sits in the agent's input: an answer's gate
	// (AnswerBusy) counts only keys after the prompt appeared.
	LastKey time.Time
	Draft   bool
	// Keys counts the human's keys routed into the session so far (read
	// under the input lock in a write's check and confirm): a confirm that
	// sees it moved since its check knows a key landed between the paste
	// and its Enter. Never LastKey for that: a key is stamped when the
	// pane's read returns and routed later, so its stamp can be older
	// than a paste it lands after.
	Keys uint64
	// AgentBusy: mid-turn, a prompt or dialog open, the screen not
	// recognised (unknown is never safe to type into) or not whole (the
	// watcher holds classification while a flood is read again), or the
	// first child not started yet.
	AgentBusy bool
	// Prompting: of those, a prompt or dialog is open or the screen is
	// not recognised or not whole: an Enter now might answer something.
	Prompting bool
	Stopped   bool // sup is stopping: nothing will be delivered
	// Question: the agent's finished turn asked the human this (reason
	// asked); "" otherwise. A trigger that is not its answer is held.
	Question string
	// OperatorWhy and AgentWhy say in words why the operator or the agent
	// is busy, for a waiting caller (trigger_progress).
	OperatorWhy, AgentWhy string
}

// AckFacts are what shows that the agent took a trigger.
type AckFacts struct {
	Prompt   string    // the last prompt a submitted-prompt hook reported
	PromptAt time.Time // when it arrived
	Busy     bool      // the agent is busy
	Since    time.Time // since when its activity is what it is
	Draft    string    // unsent text in the agent's input box
	// LineMode: the program has no hooks and no screen rules (a shell):
	// it took the line when output follows the Enter or its foreground
	// process group changed, and a busy activity alone says nothing (the
	// echo of the paste is output too).
	LineMode   bool
	LastOutput time.Time // the child's last output
	Foreground int       // the pty's foreground process group, 0 unknown
	// OutputBytes counts every byte the children wrote: in line mode, the
	// output a trigger produced is progress for the loop guard.
	OutputBytes int64
}

// ErrChildGone is what Session.Write returns once the child it was given
// is no longer the running one.
var ErrChildGone = errors.New("the child ended")

// ErrGateClosed is what Session.Write returns when the gates it read
// under the input lock no longer allow the write; nothing was written.
var ErrGateClosed = errors.New("a gate closed before the write")

// ErrSubmitWithheld is what a trigger's confirm returns when a prompt
// opened, sup began to stop or the human typed between the paste and its
// Enter: the text was written, the Enter was not.
var ErrSubmitWithheld = errors.New("the Enter was withheld")

// WriteTimeout bounds a write into a pty whose child stopped reading.
const WriteTimeout = 5 * time.Second
