//go:build linux

package supervisor

import "github.com/sup-tmux/sup/supervisor/question"

// The session's side of questions (specs/detection.md, "Questions"): the
// profile's rule read on a turn's last message. The hooks that are
// progress are agentFacts.noteHook's; the stall watch of a child's screen
// is the watcher's (watch.go).

// question is the question msg, a finished turn's last message, asks the
// human by the profile's rule; "" when it asks none. Only the hook's
// message is read, never the screen (specs/detection.md, "Questions").
func (s *Session) question(msg string) string {
	d, err := question.Compile(s.Plan().Profile.Questions)
	if err != nil {
		// The profile was validated when it was loaded; a rule that does
		// not compile asks nothing, and says why in the log.
		s.log.Warn("questions_rule", "err", err)
		return ""
	}
	return d.Detect(msg).Question
}

// turnEnd: the hook events that end a turn and carry its last message.
func turnEnd(event string) bool {
	return event == "Stop" || event == "agent-turn-complete" || event == "AfterAgent"
}
