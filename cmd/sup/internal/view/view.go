//go:build linux

package view

import (
	"fmt"
	"os"
	"os/user"
	"reflect"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/ipc"
)

// SafeArgs is args with every string, error and Stringer made a field. It
// copies args only when an argument changes: safe text costs a scan, no
// allocation (BenchmarkLsRender).
func SafeArgs(args []any) []any {
	out := args
	for i, a := range args {
		var safe string
		switch v := a.(type) {
		case string:
			if safe = safetext.Field(v); safe == v {
				continue
			}
		case error:
			if safe = safetext.Field(v.Error()); safe == v.Error() {
				continue
			}
		case fmt.Stringer:
			// Left as it is when safe: a verb such as %d still sees its type.
			if safe = safetext.Field(v.String()); safe == v.String() {
				continue
			}
		default:
			// A named string type (ipc.Code, a lifecycle word) from the
			// socket is as untrusted as a string.
			rv := reflect.ValueOf(a)
			if rv.Kind() != reflect.String {
				continue
			}
			if safe = safetext.Field(rv.String()); safe == rv.String() {
				continue
			}
		}
		if &out[0] == &args[0] {
			out = append([]any(nil), args...)
		}
		out[i] = safe
	}
	return out
}

func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WaitingFor is how long a session has waited on the human, "" when it
// does not.
func WaitingFor(st ipc.State, now time.Time) string {
	if st.WaitingSince == 0 {
		return ""
	}
	return Age(now.Sub(time.UnixMilli(st.WaitingSince)))
}

// Age is a short duration for humans: 42s, 5m, 2h05m, 3d.
func Age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// AnyRemote reports whether a listing holds another host's session: then
// it has a HOST column.
func AnyRemote(sessions []broker.Listing) bool {
	for _, s := range sessions {
		if s.Host != "" {
			return true
		}
	}
	return false
}

// OneLine is s's first line, cut to n runes; a cut says so: "…" for a
// line cut short, " (+2 lines)" for lines left out (within the n runes
// when it fits, else the cut's "…" says it).
func OneLine(s string, n int) string {
	s, rest, multi := strings.Cut(s, "\n")
	if multi {
		if more := ipc.MoreLines("x\n" + rest); more != "" {
			s += more
		}
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// DetailPrefix starts every row of a prompt's detail (DetailLines) in the
// views, so that no line of an agent's command can pass for sup's own
// text; DetailWrap starts a long line's continuation rows.
const (
	DetailPrefix = "  │ "
	DetailWrap   = "  ┆ "
)

// DetailBlock is DetailLines for a screen of limited height: at most
// rows rows (at least 2), the last one saying how many more there are and
// where the whole command is, when it does not fit.
func DetailBlock(detail string, width, rows int, name string) []string {
	lines := DetailLines(detail, width)
	rows = max(rows, 2)
	if len(lines) <= rows {
		return lines
	}
	more := len(lines) - (rows - 1)
	return append(lines[:rows-1], DetailWrap+fmt.Sprintf("… %d more rows: sup explain %s shows the whole command", more, safetext.Field(name)))
}

// DetailLines is a prompt's detail (ipc.State.PromptDetail: the whole
// command) as rows for a terminal: each line of it on its own row,
// uncut, its controls made visible escapes (safetext.Text: a CR, an ESC
// or a bidi control cannot hide or reorder anything), every row prefixed
// (DetailPrefix). width > 0 wraps long lines into rows of at most width
// runes (continuation rows DetailWrap), so nothing is cut; width 0 keeps
// each line whole on one row.
func DetailLines(detail string, width int) []string {
	if detail == "" {
		return nil
	}
	var rows []string
	room := width - len([]rune(DetailPrefix))
	for _, line := range strings.Split(strings.TrimRight(detail, "\n"), "\n") {
		r := []rune(safetext.Text(line)) // no newline left: Text is Field uncut
		if width <= 0 || room < 8 || len(r) <= room {
			rows = append(rows, DetailPrefix+string(r))
			continue
		}
		for i := 0; i < len(r); i += room {
			p := DetailWrap
			if i == 0 {
				p = DetailPrefix
			}
			rows = append(rows, p+string(r[i:min(i+room, len(r))]))
		}
	}
	return rows
}

// SummaryText is a session's summary as the views show it, marked when the
// model reader wrote it: a reading is a model's guess, and the human should
// know before acting on it (specs/detection.md, "The model reader").
func SummaryText(st ipc.State) string {
	if st.ModelSummary != "" && st.Summary == st.ModelSummary {
		return "[model] " + st.Summary
	}
	return st.Summary
}

// OptionText is one option of an open prompt; an option the model read
// shows the key `sup answer` would type for it.
func OptionText(st ipc.State, o ipc.PromptOption) string {
	for _, m := range st.ModelOptions {
		if m.Choice == o.Choice && m.Label == o.Label {
			return o.Choice + ". " + o.Label + " [" + m.Key + "]"
		}
	}
	return o.Choice + ". " + o.Label
}

// DescribeTrigger is the one-line human form of an outcome.
func DescribeTrigger(r ipc.TriggerResult, name string) string {
	line := fmt.Sprintf("%s %s to %s", r.Result, r.TriggerID, name)
	switch r.Result {
	case ipc.OutcomeDelivered:
		line += fmt.Sprintf(" (attempt %d, acked by %s", r.Attempts, r.AckedBy)
		if r.Fallback != "" {
			line += ", after a " + r.Fallback + " restart"
		}
		line += ")"
	case ipc.OutcomeDeferred:
		line += fmt.Sprintf(" (%s; next look at %s)", r.ErrorCode, time.UnixMilli(r.DeferredUntil).Format(time.TimeOnly))
		if r.Message != "" {
			line += ": " + r.Message // AGENT_ASKED: the question
		}
	case ipc.OutcomeTimeout, ipc.OutcomeFailed, ipc.OutcomeCancelled:
		line += fmt.Sprintf(" (%s: %s)", r.ErrorCode, r.Message)
	}
	if r.Repeat {
		line += " [repeat: the first outcome of this id]"
	}
	if r.AuditError != "" {
		line += " [audit failed: " + r.AuditError + "]"
	}
	return line
}

// Possessive is name's: "rev's", "notes'" (a name ending in s).
func Possessive(name string) string {
	if strings.HasSuffix(name, "s") {
		return name + "'"
	}
	return name + "'s"
}

// CurrentUser names the user for a requester ("cli:NAME"): $USER, else
// the passwd entry, else the uid, so the audit never records a bare
// "cli:" when $USER is unset (a cron job, `env -i`).
func CurrentUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "uid" + strconv.Itoa(os.Getuid())
}

// EachKey splits keys typed faster than they are read, which arrive as
// one message ("/brav", or `jj`), into one key each for key; ok is false
// for a message that is one key (or a paste, which stays whole).
func EachKey(m tea.Model, k tea.KeyMsg, key func(tea.KeyMsg) (tea.Model, tea.Cmd)) (tea.Model, tea.Cmd, bool) {
	if k.Type != tea.KeyRunes || len(k.Runes) < 2 || k.Paste {
		return m, nil, false
	}
	var cmds []tea.Cmd
	for _, r := range k.Runes {
		_, cmd := key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt})
		cmds = append(cmds, cmd)
	}
	return m, tea.Batch(cmds...), true
}
