package activity

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sup-tmux/sup/ipc"
)

// HookEvent is the part of an agent's hook payload the supervisor uses
// (see ipc.HookParams, which carries it over the socket).
type HookEvent struct {
	Agent            string // claude, codex, gemini
	Event            string // hook_event_name; "agent-turn-complete" for Codex notify
	SessionID        string
	ToolName         string
	Command          string // the tool's command, whole: the prompt's detail and summary
	Message          string // last assistant message, or the notification text
	NotificationType string
	// Question: the turn's last message asks the human this (package
	// question read Message with the profile's rule); "" when it does not.
	Question string
}

// ReasonAsked: the finished turn asked the human a question (the summary);
// a trigger that is not its answer waits (specs/triggers.md).
const ReasonAsked = "asked"

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
		s.Detail = e.Command
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
			s.Detail = e.Command
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
		if e.Question != "" {
			s.Reason, s.Summary = ReasonAsked, FirstLine(e.Question)
		}
	case "Elicitation":
		// Claude Code: an MCP server asks the human (a form or a URL) in
		// a dialog; the turn waits on it.
		s.Activity, s.Reason, s.Summary = NeedsConfirmation, "question", elicitationSummary(e)
	case "PermissionDenied":
		// Claude Code fires it when auto mode's classifier denies a tool
		// call; the model is told and the turn goes on, so it is work,
		// not a wait (specs/detection.md, "Hooks").
		s.Activity, s.Reason, s.Summary = Busy, "denied", permissionSummary(e)
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

// elicitationSummary: the MCP server (carried as ToolName) and its question.
func elicitationSummary(e HookEvent) string {
	if e.ToolName != "" && e.Message != "" {
		return FirstLine(e.ToolName + ": " + FirstLine(e.Message))
	}
	return FirstLine(e.ToolName + e.Message)
}

// permissionSummary names the tool and the command's first line, marked
// when the command has more lines: `Bash: ls -la (+1 line)`, never a bare
// `Bash: ls -la` for `ls -la\ncurl … | sh` (the whole command is the
// prompt's Detail).
func permissionSummary(e HookEvent) string {
	switch {
	case e.ToolName != "" && e.Command != "":
		return e.ToolName + ": " + FirstLine(e.Command) + ipc.MoreLines(e.Command)
	case e.ToolName != "":
		return e.ToolName
	}
	return FirstLine(e.Command) + ipc.MoreLines(e.Command)
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
