package ipc

import (
	"strconv"
	"strings"
)

// State answers `state`: everything a broker or dashboard needs to know
// about one session. Times are unix milliseconds, 0 meaning "never". Fields a
// supervisor cannot know yet carry their zero value ("unknown" for activity).
type State struct {
	SessionID    string `msgpack:"session_id" json:"session_id"`
	Name         string `msgpack:"name" json:"name"`
	Workspace    string `msgpack:"workspace" json:"workspace"`
	Role         string `msgpack:"role" json:"role"`
	Profile      string `msgpack:"profile" json:"profile"`
	Document     string `msgpack:"document" json:"document"`
	CWD          string `msgpack:"cwd" json:"cwd"`
	CWDSource    string `msgpack:"cwd_source" json:"cwd_source"`
	SupPID       int    `msgpack:"sup_pid" json:"sup_pid"`
	PID          int    `msgpack:"pid" json:"pid"` // 0 while no child runs
	TmuxPane     string `msgpack:"tmux_pane" json:"tmux_pane"`
	TmuxSocket   string `msgpack:"tmux_socket" json:"tmux_socket"` // the tmux server of tmux_pane (pane ids are per server)
	Lifecycle    string `msgpack:"lifecycle" json:"lifecycle"`
	Activity     string `msgpack:"activity" json:"activity"`
	Reason       string `msgpack:"reason" json:"reason"`
	Summary      string `msgpack:"summary" json:"summary"`
	Title        string `msgpack:"title" json:"title"`
	WaitingSince int64  `msgpack:"waiting_since" json:"waiting_since"`
	SkipUntil    int64  `msgpack:"skip_until" json:"skip_until"`
	OperatorBusy bool   `msgpack:"operator_busy" json:"operator_busy"` // keys within the quiet window, or a draft
	Draft        string `msgpack:"draft" json:"draft"`                 // unsent text in the agent's input box
	LastInputAt  int64  `msgpack:"last_input_at" json:"last_input_at"`
	// Focused says whether a human looks at the pane: the terminal's last
	// focus report (in or out). nil until one came: only agents that turn
	// on focus tracking (?1004) get them, and tmux needs focus-events on.
	Focused        *bool          `msgpack:"focused" json:"focused"`
	FocusedAt      int64          `msgpack:"focused_at" json:"focused_at"` // when that report came
	LastOutputAt   int64          `msgpack:"last_output_at" json:"last_output_at"`
	Health         string         `msgpack:"health" json:"health"`
	RestartCount   int            `msgpack:"restart_count" json:"restart_count"`
	LastExit       *ExitInfo      `msgpack:"last_exit" json:"last_exit"` // nil before the first exit
	AgentSessionID string         `msgpack:"agent_session_id" json:"agent_session_id"`
	BracketedPaste bool           `msgpack:"bracketed_paste" json:"bracketed_paste"`
	Triggers       map[string]int `msgpack:"triggers" json:"triggers"`     // counts by outcome
	StartedAt      int64          `msgpack:"started_at" json:"started_at"` // when sup started
	// PendingTriggers counts triggers queued or under way.
	PendingTriggers int `msgpack:"pending_triggers" json:"pending_triggers"`
	// BlockedThreads lists the threads the loop guard blocked (see unblock).
	BlockedThreads []string `msgpack:"blocked_threads" json:"blocked_threads"`
	// PromptID names the open prompt ("" when none): send it as answer's
	// expect.
	PromptID string `msgpack:"prompt_id" json:"prompt_id"`
	// PromptChoices are the named choices the open prompt's dialog takes
	// (yes, no, always, text), from the profile's answers.
	PromptChoices []string `msgpack:"prompt_choices" json:"prompt_choices"`
	// PromptOptions are the prompt's numbered options as the screen shows them.
	PromptOptions []PromptOption `msgpack:"prompt_options" json:"prompt_options"`
	// ModelState, ModelSummary and ModelOptions are the model reader's
	// reading of the screen shown now (specs/detection.md, "The model
	// reader"): empty while it has none (off, not asked, failed).
	ModelState   string        `msgpack:"model_state" json:"model_state"`
	ModelSummary string        `msgpack:"model_summary" json:"model_summary"`
	ModelOptions []ModelOption `msgpack:"model_options" json:"model_options"`
	// PromptDetail is the whole of what the open prompt asks to approve:
	// every line of the command, at most MaxPromptDetail bytes (then cut
	// and marked, BoundDetail). Summary is its first line. "" when no
	// prompt is open or its agent's hook named no command.
	PromptDetail string `msgpack:"prompt_detail" json:"prompt_detail"`
}

// MaxPromptDetail caps PromptDetail: far above any real command (they
// are lines, a heredoc at most), far below a frame.
const MaxPromptDetail = 64 << 10

// BoundDetail is s cut to MaxPromptDetail bytes on a rune boundary, with
// a marker saying how much was cut; s itself when it fits.
func BoundDetail(s string) string {
	if len(s) <= MaxPromptDetail {
		return s
	}
	mark := "\n… [cut: " + strconv.Itoa(len(s)) + " bytes in all, " + strconv.Itoa(MaxPromptDetail) + " shown]"
	n := MaxPromptDetail - len(mark)
	for n > 0 && s[n]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		n--
	}
	return s[:n] + mark
}

// ModelOption is one option the model reader saw on the screen: `sup
// answer CHOICE` types Key once a human picks it.
type ModelOption struct {
	Choice string `msgpack:"choice" json:"choice"` // "1"…"9"
	Label  string `msgpack:"label" json:"label"`
	Key    string `msgpack:"key" json:"key"` // as the model wrote it: one key, "y" or "Enter"
}

// ExitInfo describes one exit of the child. Code is 128+n when the child
// was killed by signal n, as in a shell.
type ExitInfo struct {
	Code   int    `msgpack:"code" json:"code"`
	Signal string `msgpack:"signal" json:"signal"` // "SIGKILL", or ""
	Class  string `msgpack:"class" json:"class"`   // clean, transient, flapping
	At     int64  `msgpack:"at" json:"at"`
}

// PidResult answers `pid`.
type PidResult struct {
	SupPID int `msgpack:"sup_pid" json:"sup_pid"`
	PID    int `msgpack:"pid" json:"pid"` // 0 while no child runs
}

// InjectParams are the params of `inject`: exactly one of Text or Bytes.
type InjectParams struct {
	Text   *string `msgpack:"text,omitempty"`
	Bytes  []byte  `msgpack:"bytes,omitempty"`
	Submit bool    `msgpack:"submit,omitempty"` // send "\r" after the text
}

// InjectResult answers `inject`.
type InjectResult struct {
	Written int `msgpack:"written" json:"written"`
}

// RestartParams are the params of `restart`.
type RestartParams struct {
	Mode string `msgpack:"mode,omitempty"` // "resume" (default) or "fresh"
}

// RestartResult answers `restart` and `resume`.
type RestartResult struct {
	PID  int    `msgpack:"pid" json:"pid"`
	Mode string `msgpack:"mode" json:"mode"` // what happened: fresh or resume
	// AlreadyRunning (resume): the agent was running; nothing changed and
	// PID is the running one's.
	AlreadyRunning bool `msgpack:"already_running,omitempty" json:"already_running,omitempty"`
}

// StopParams are the params of `stop`.
type StopParams struct {
	Graceful *bool `msgpack:"graceful,omitempty"` // default true: SIGTERM, grace, SIGKILL
}

// StopResult answers `stop`.
type StopResult struct {
	Stopped bool `msgpack:"stopped" json:"stopped"`
	// EndedBy is the signal that ended the agent: SIGHUP, SIGTERM or
	// SIGKILL ("" when no agent ran).
	EndedBy string `msgpack:"ended_by,omitempty" json:"ended_by,omitempty"`
}

// ScreenParams are the params of `screen`.
type ScreenParams struct {
	Format string `msgpack:"format,omitempty"` // "text" (default) or "ansi"
}

// ScreenResult answers `screen`: the agent's visible screen as sup's screen
// model renders it (what the pane shows).
type ScreenResult struct {
	Text          string `msgpack:"text" json:"text"`     // rows joined by \n; with format ansi, SGR attributes included
	Format        string `msgpack:"format" json:"format"` // text or ansi
	Cols          int    `msgpack:"cols" json:"cols"`
	Rows          int    `msgpack:"rows" json:"rows"`
	CursorCol     int    `msgpack:"cursor_col" json:"cursor_col"` // 0-based
	CursorRow     int    `msgpack:"cursor_row" json:"cursor_row"`
	CursorVisible bool   `msgpack:"cursor_visible" json:"cursor_visible"`
	AltScreen     bool   `msgpack:"alt_screen" json:"alt_screen"`
	Desynced      bool   `msgpack:"desynced" json:"desynced"` // output was dropped; the next full repaint heals it
}

// HistoryResult answers `history`: the crash ring buffer, oldest first.
type HistoryResult struct {
	Exits  []ExitInfo `msgpack:"exits" json:"exits"`
	Health string     `msgpack:"health" json:"health"`
}

// Describe says how the child ended: "SIGKILL" or "code 3".
func (e ExitInfo) Describe() string {
	if e.Signal != "" {
		return e.Signal
	}
	return "code " + strconv.Itoa(e.Code)
}

// HookParams are the params of `hook`: the part of an agent's hook payload
// sup uses, extracted by `sup hook` so that a huge or odd payload never
// reaches the supervisor whole.
type HookParams struct {
	Agent            string `msgpack:"agent"`                       // claude, codex, gemini
	Event            string `msgpack:"event"`                       // hook_event_name, or agent-turn-complete
	SessionID        string `msgpack:"session_id,omitempty"`        // the agent's conversation id
	TranscriptPath   string `msgpack:"transcript_path,omitempty"`   // Claude's transcript JSONL
	Source           string `msgpack:"source,omitempty"`            // SessionStart: startup, resume, clear, compact
	ToolName         string `msgpack:"tool_name,omitempty"`         // PermissionRequest, PreToolUse, ...
	Command          string `msgpack:"command,omitempty"`           // the tool's command, trimmed
	Message          string `msgpack:"message,omitempty"`           // last assistant message or notification text, trimmed
	NotificationType string `msgpack:"notification_type,omitempty"` // permission_prompt, elicitation_dialog, ...
	Prompt           string `msgpack:"prompt,omitempty"`            // UserPromptSubmit, BeforeAgent: the submitted prompt, trimmed
}

// HookResult answers `hook`.
type HookResult struct {
	Applied bool   `msgpack:"applied" json:"applied"` // false: ignored (another session id, or says nothing)
	Why     string `msgpack:"why,omitempty" json:"why,omitempty"`
}

// MoreLines is the mark a one-line rendering of s adds for the non-blank
// lines it leaves out after the first one (blank lines are not counted): " (+1 line)", " (+2 lines)", ""
// when there are none.
func MoreLines(s string) string {
	n, first := 0, true
	for _, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if first {
			first = false
			continue
		}
		n++
	}
	switch n {
	case 0:
		return ""
	case 1:
		return " (+1 line)"
	}
	return " (+" + strconv.Itoa(n) + " lines)"
}
