package activity

import (
	"strings"
	"time"
	"unicode/utf8"
)

// HookEvent is the part of an agent's hook payload the supervisor uses
// (see ipc.HookParams, which carries it over the socket).
type HookEvent struct {
	Agent            string // claude, codex, gemini
	Event            string // hook_event_name; "agent-turn-complete" for Codex notify
	SessionID        string
	ToolName         string
	Command          string // the tool's command, for a permission summary
	Message          string // last assistant message, or the notification text
	NotificationType string
}

// HookSignal maps a hook event to a signal. Events that say nothing about
// activity (SessionStart, SessionEnd, other notifications) return false.
//
// A permission prompt fires PermissionRequest (and Notification with
// permission_prompt) and no Stop; approving it fires PostToolUse then Stop,
// not UserPromptSubmit — so busy and ready must come from those.
func HookSignal(e HookEvent, at time.Time) (Signal, bool) {
	s := Signal{Source: SourceHook, Rule: "hook:" + e.Event, At: at}
	switch e.Event {
	case "UserPromptSubmit", "PreToolUse", "PostToolUse", "BeforeAgent", "BeforeTool", "AfterTool", "BeforeModel":
		s.Activity, s.Reason = Busy, "working"
	case "PermissionRequest":
		s.Activity, s.Reason, s.Summary = NeedsConfirmation, "permission", permissionSummary(e)
	case "Notification":
		switch e.NotificationType {
		case "permission_prompt":
			// Generic ("Claude needs your permission to use Bash"): it
			// follows PermissionRequest, whose summary names the command.
			s.Activity, s.Reason, s.Summary = NeedsConfirmation, "permission", FirstLine(e.Message)
			s.Generic = true
		case "ToolPermission":
			// Gemini CLI: its payload names the tool and command
			// (hooks.Parse reads them from details).
			s.Activity, s.Reason, s.Summary = NeedsConfirmation, "permission", permissionSummary(e)
			if s.Summary == "" {
				s.Summary = FirstLine(e.Message)
			}
		case "elicitation_dialog":
			s.Activity, s.Reason, s.Summary = NeedsConfirmation, "question", FirstLine(e.Message)
		default:
			return Signal{}, false // idle reminders and the like restate, they do not change
		}
	case "Stop", "agent-turn-complete", "AfterAgent":
		s.Activity, s.Reason, s.Summary = Ready, "stopped", FirstLine(e.Message)
	case "StopFailure":
		// Claude Code: the turn ended on an API error (its message is the
		// summary); the agent waits on the human.
		s.Activity, s.Reason, s.Summary = Error, "api_error", FirstLine(e.Message)
	default:
		return Signal{}, false
	}
	s.Stuck = StuckFor(s.Activity, s.Reason)
	return s, true
}

func permissionSummary(e HookEvent) string {
	switch {
	case e.ToolName != "" && e.Command != "":
		return e.ToolName + ": " + FirstLine(e.Command)
	case e.ToolName != "":
		return e.ToolName
	}
	return FirstLine(e.Command)
}

// maxSummary bounds summaries: they are display text for one line of a list.
const maxSummary = 200

// FirstLine is the first non-empty line of s, at most maxSummary runes:
// a summary (hooks and screen rules both make theirs with it).
func FirstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if utf8.RuneCountInString(line) > maxSummary {
				line = string([]rune(line)[:maxSummary-1]) + "…"
			}
			return line
		}
	}
	return ""
}
