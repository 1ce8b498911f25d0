//go:build linux

package dash

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/view"
	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/ipc"
)

// SGR colours of the activities: what needs the human stands out.
var activityColour = map[string]string{
	"ready":              "32", // green: waiting for its next task
	"busy":               "36", // cyan: working
	"needs_confirmation": "1;33",
	"error":              "1;31",
	"unknown":            "2",
}

const (
	sgrDim   = "\x1b[2m"
	sgrRev   = "\x1b[7m"
	sgrReset = "\x1b[0m"
)

// dashColumns are the fixed columns; the summary takes what is left.
var dashColumns = []struct {
	title string
	width int
}{
	{"NAME", 14}, {"WORKSPACE/ROLE", 16}, {"PROFILE", 7}, {"ACTIVITY", 18}, {"WAIT", 6},
	{"HEALTH", 8}, {"RST", 3}, {"UP", 6}, {"TRIG d/t/f", 10},
}

// View draws the dashboard: header, the runtime dir's absence, the
// table, and the input, status and key lines at the bottom.
func (m *dashModel) View() string {
	if m.help {
		return dashHelp
	}
	now := m.now()
	rows := m.visible()
	stuck := 0
	for _, r := range m.rows {
		if r.s.State.WaitingSince != 0 {
			stuck++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sup dash · %d sessions · %d waiting on you", len(m.rows), stuck)
	if m.filter != "" {
		fmt.Fprintf(&b, " · filter %q (%d shown, Esc clears)", m.filter, len(rows))
	}
	b.WriteString("\n")
	if m.dirMissing {
		fmt.Fprintf(&b, "\x1b[1;31mthe runtime dir %s is gone: waiting for it to come back (sessions still answering stay listed)%s\n", safetext.Field(m.dir), sgrReset)
	}
	hosts := slices.Sorted(maps.Keys(m.hostDown))
	for _, h := range hosts {
		// A *HostError names its host already.
		why := strings.TrimPrefix(m.hostDown[h], "host "+h+": ")
		fmt.Fprintf(&b, "\x1b[31m%s%s\n", view.OneLine(safetext.Field("host "+h+": "+why), max(m.width, 40)), sgrReset)
	}
	b.WriteString("\n")
	cells := make([]string, 0, len(dashColumns)+2)
	if m.showHosts() {
		cells = append(cells, pad("HOST", dashHostWidth))
	}
	for _, c := range dashColumns {
		cells = append(cells, pad(c.title, c.width))
	}
	b.WriteString(sgrDim + "  " + strings.Join(append(cells, "SUMMARY"), " ") + sgrReset + "\n")
	sel, _ := m.selected(rows)
	if len(rows) == 0 {
		b.WriteString("  no sessions")
		if m.filter != "" {
			b.WriteString(" match the filter")
		}
		b.WriteString("\n")
	}
	for i, r := range rows {
		b.WriteString(m.row(r, i == sel, now) + "\n")
	}
	if len(rows) > 0 && rows[sel].s.State.PromptDetail != "" {
		// The selected session's open prompt, whole: what an answer
		// from here would approve (view.DetailBlock).
		st := rows[sel].s.State
		b.WriteString("\n" + sgrDim + "  prompt of " + safetext.Field(st.Name) + ":" + sgrReset + "\n")
		for _, row := range view.DetailBlock(st.PromptDetail, max(m.width, 40), max(m.height/3, 4), st.Name) {
			b.WriteString(row + "\n")
		}
	}
	used := strings.Count(b.String(), "\n")
	if gap := m.height - used - 3; gap > 0 {
		b.WriteString(strings.Repeat("\n", gap))
	}
	b.WriteString("\n")
	switch m.mode {
	case dashFilter:
		b.WriteString("/" + safetext.Field(m.input) + "█")
	case dashTrigger:
		name := "?"
		if r, ok := m.rows[m.sel]; ok {
			name = r.s.State.Name
		}
		fmt.Fprintf(&b, "trigger %s: %s█  (Enter sends, Esc cancels)", view.SafeArgs([]any{name, m.input})...)
	case dashAnswer:
		name, prompt := "?", ""
		if r, ok := m.rows[m.sel]; ok {
			name, prompt = r.s.State.Name, promptLine(r.s.State)
		}
		fmt.Fprintf(&b, "answer %s (%s): %s█  (Enter answers, Esc cancels)", view.SafeArgs([]any{name, prompt, m.input})...)
	default:
		b.WriteString(view.OneLine(safetext.Field(m.status), max(m.width, 20)))
	}
	b.WriteString("\n" + m.keysLine(rows, sel))
	return b.String()
}

// row is one session's line; the selected one is marked and reversed.
func (m *dashModel) row(r dashRow, selected bool, now time.Time) string {
	st := r.s.State
	up := ""
	if st.StartedAt != 0 {
		up = view.Age(now.Sub(time.UnixMilli(st.StartedAt)))
	}
	activity := st.Activity
	if st.Lifecycle != "running" && st.Lifecycle != "" {
		activity = st.Lifecycle + "/" + activity
	}
	values := []string{
		st.Name, strings.Trim(st.Workspace+"/"+st.Role, "/"), st.Profile, activity,
		view.Dash(view.WaitingFor(st, now)), st.Health, fmt.Sprint(st.RestartCount), view.Dash(up), triggerCounts(st),
	}
	safetext.Fields(values) // the agent's words, before sup's colours
	cells := make([]string, len(values))
	for i, v := range values {
		cells[i] = pad(v, dashColumns[i].width)
	}
	if c, ok := activityColour[st.Activity]; ok {
		cells[3] = "\x1b[" + c + "m" + cells[3] + sgrReset
	}
	if st.Health != "" && st.Health != "healthy" {
		cells[5] = "\x1b[31m" + cells[5] + sgrReset
	}
	mark := "  "
	if selected {
		mark = sgrRev + ">" + sgrReset + " "
	}
	width := dashTableWidth()
	if m.showHosts() {
		cells = append([]string{pad(safetext.Field(broker.HostOf(r.s)), dashHostWidth)}, cells...)
		width += dashHostWidth + 1
	}
	line := mark + strings.Join(cells, " ")
	if room := m.width - 2 - width; room > 8 || m.width == 0 {
		summary := view.SummaryText(st)
		if summary == "" {
			summary = st.Reason
		}
		line += " " + view.OneLine(safetext.Field(summary), max(room-1, 8))
	}
	return line
}

// dashHostWidth is the HOST column's, shown once other hosts are in view.
const dashHostWidth = 12

// showHosts reports whether the table has a HOST column: when a row is
// another host's or another host does not answer.
func (m *dashModel) showHosts() bool {
	if len(m.hostDown) > 0 {
		return true
	}
	for _, r := range m.rows {
		if r.s.Host != "" {
			return true
		}
	}
	return false
}

func dashTableWidth() int {
	w := 0
	for _, c := range dashColumns {
		w += c.width + 1
	}
	return w
}

// triggerCounts is delivered/timeout/failed from state's counts.
func triggerCounts(st ipc.State) string {
	t := st.Triggers
	return fmt.Sprintf("%d/%d/%d", t[string(ipc.OutcomeDelivered)], t[string(ipc.OutcomeTimeout)], t[string(ipc.OutcomeFailed)])
}

// pad cuts s to n runes (with an ellipsis) or pads it with blanks.
func pad(s string, n int) string {
	s = view.OneLine(s, n)
	if k := len([]rune(s)); k < n {
		s += strings.Repeat(" ", n-k)
	}
	return s
}

// keysLine lists the keys; `a` is dimmed where the selected session's
// supervisor has no answer method.
func (m *dashModel) keysLine(rows []dashRow, sel int) string {
	answer := "a answer"
	if len(rows) == 0 || !rows[sel].answers() {
		answer = sgrDim + "a answer (not supported by this sup)" + sgrReset
	}
	return sgrDim + "enter jump · t trigger · r restart · s skip · " + sgrReset + answer + sgrDim + " · / filter · ? help · q quit" + sgrReset
}

const dashHelp = `sup dash: every session, live (from the supervisors' events)

  ↑/↓, k/j   select a session
  Enter      move your tmux client to its pane (another host's: a local window attached over ssh)
  t          trigger: type a prompt, Enter sends it (as sup trigger does)
  r          restart the agent (resuming its conversation)
  s          skip it in the stuck queue (cooldown as sup skip)
  a          answer its open prompt: type yes, no, always, 1-9 or text, Enter answers (as sup answer --expect does)
  /          filter by host, name, workspace, role, profile, activity or summary
  Esc        clear the filter
  ?          this help (any key closes it)
  q          quit

HOST is the session's host (shown once other hosts are configured); a
host that does not answer is a red line with the reason.
WAIT is how long it has waited on you; RST its restarts; UP its
supervisor's uptime; TRIG its triggers delivered/timed out/failed (a cancelled one is none of these).
`

// promptLine is an open prompt in one line: what it asks and the choices
// it takes.
func promptLine(st ipc.State) string {
	line := view.Dash(view.SummaryText(st))
	var opts []string
	for _, o := range st.PromptOptions {
		opts = append(opts, view.OptionText(st, o))
	}
	if len(opts) > 0 {
		line += " · " + strings.Join(opts, " · ")
	}
	if len(st.PromptChoices) > 0 {
		line += " · " + strings.Join(st.PromptChoices, "/")
	}
	return view.OneLine(safetext.Field(line), 100)
}
