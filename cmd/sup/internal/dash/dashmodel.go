//go:build linux

package dash

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/view"
)

// dashModel is `sup dash`'s state, changed only by Update: the sessions as
// broker.Watch (this host) and broker.SSH.WatchHost (each other host) last
// reported them, the hosts that do not answer, the selection (kept by
// host and socket: two hosts may use the same socket path), the filter,
// an input line and the last outcome. Its I/O (jump, trigger,
// restart, skip) goes through dashActions as tea.Cmds, and its clock is
// injected, so a test drives it with messages alone.
type dashModel struct {
	rows       map[string]dashRow // by rowKey
	sel        string             // rowKey of the selected row
	hostDown   map[string]string  // the hosts that do not answer: why
	filter     string
	mode       dashMode
	input      string // the filter or trigger text being typed
	status     string
	dir        string // the runtime dir, for the "gone" banner
	dirMissing bool
	help       bool
	width      int
	height     int
	now        func() time.Time
	act        dashActions
	tickGen    int // the age timer that counts; older ones are ignored
}

// dashRow is one session and what its supervisor answers.
type dashRow struct {
	s       broker.Listing
	methods []string
}

// rowKey names a row: its host and socket.
func rowKey(s broker.Listing) string { return s.Host + "\x00" + s.Socket }

// answers reports whether the row's supervisor takes answers: hello says
// so on this host; another host's rows come without hello (relay.list),
// so `a` is offered and an older sup refuses it itself.
func (r dashRow) answers() bool {
	return r.methods == nil && r.s.Host != "" || slices.Contains(r.methods, answerMethod)
}

type dashMode int

const (
	dashBrowse dashMode = iota
	dashFilter
	dashTrigger
	dashAnswer
)

// dashActions are the dashboard's side effects, each returning a line for
// the status bar.
type dashActions struct {
	jump    func(broker.Listing) (string, error)
	trigger func(broker.Listing, string) (string, error)
	restart func(broker.Listing) (string, error)
	skip    func(broker.Listing) (string, error)
	// answer answers the session's prompt — the one its state shows — with
	// a choice (yes, no, always, 1-9 or text).
	answer func(broker.Listing, string) (string, error)
}

type (
	// changeMsg is one broker.Watch change.
	changeMsg broker.Change
	// actionMsg is an action's outcome.
	actionMsg struct {
		what string
		err  error
	}
	// ageTickMsg redraws the ages when one of them changes.
	ageTickMsg struct{ gen int }
)

// answerMethod is the supervisor method `a` needs: the key is offered
// only where hello lists it (an older sup lacks it).
const answerMethod = "answer"

func newDashModel(dir string, now func() time.Time, act dashActions) *dashModel {
	return &dashModel{rows: map[string]dashRow{}, hostDown: map[string]string{}, dir: dir, now: now, act: act}
}

func (m *dashModel) Init() tea.Cmd { return nil }

// visible is the rows that pass the filter, sorted by name then id.
func (m *dashModel) visible() []dashRow {
	var out []dashRow
	f := strings.ToLower(m.filter)
	for _, r := range m.rows {
		st := r.s.State
		hay := strings.ToLower(strings.Join([]string{r.s.Host, st.Name, st.SessionID, st.Workspace, st.Role, st.Profile, st.Activity, st.Lifecycle, st.Summary}, " "))
		if f == "" || strings.Contains(hay, f) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].s.State, out[j].s.State
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if out[i].s.Host != out[j].s.Host {
			return out[i].s.Host < out[j].s.Host
		}
		return a.SessionID < b.SessionID
	})
	return out
}

// selected is the selected visible row's index; the first row when the
// selection is filtered out or gone.
func (m *dashModel) selected(rows []dashRow) (int, bool) {
	for i, r := range rows {
		if rowKey(r.s) == m.sel {
			return i, true
		}
	}
	return 0, len(rows) > 0
}

func (m *dashModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case changeMsg:
		m.apply(broker.Change(msg))
		return m, m.ageTick()
	case ageTickMsg:
		if msg.gen == m.tickGen {
			return m, m.ageTick()
		}
	case actionMsg:
		m.status = msg.what
		if msg.err != nil {
			m.status = msg.err.Error()
		}
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil
}

func (m *dashModel) apply(c broker.Change) {
	switch c.Kind {
	case broker.SessionUpdated:
		m.rows[rowKey(c.Session)] = dashRow{s: c.Session, methods: c.Methods}
	case broker.SessionGone:
		delete(m.rows, rowKey(c.Session))
	case broker.DirMissing:
		m.dirMissing = true
	case broker.DirPresent:
		m.dirMissing = false
	case broker.HostUp:
		delete(m.hostDown, c.Host)
	case broker.HostDown:
		m.hostDown[c.Host] = c.Err.Error()
	}
}

// ageTick schedules the next redraw for when a shown age (waiting,
// uptime) changes: once a second while one is under a minute, else once a
// minute or less often. No age shown, no timer: an idle dashboard sleeps.
func (m *dashModel) ageTick() tea.Cmd {
	m.tickGen++
	now := m.now()
	next := time.Duration(0)
	for _, r := range m.rows {
		for _, since := range []int64{r.s.State.WaitingSince, r.s.State.StartedAt} {
			if since == 0 {
				continue
			}
			if d := ageChangesIn(now.Sub(time.UnixMilli(since))); next == 0 || d < next {
				next = d
			}
		}
	}
	if next == 0 {
		return nil
	}
	gen := m.tickGen
	return tea.Tick(next, func(time.Time) tea.Msg { return ageTickMsg{gen} })
}

// ageChangesIn is how long until view.Age(d) shows another value.
func ageChangesIn(d time.Duration) time.Duration {
	unit := time.Minute
	switch {
	case d < 0:
		return -d
	case d < time.Minute:
		unit = time.Second
	case d >= 48*time.Hour:
		unit = 24 * time.Hour
	}
	return unit - d%unit
}

func (m *dashModel) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if mm, cmd, ok := view.EachKey(m, k, m.key); ok {
		return mm, cmd
	}
	if m.mode != dashBrowse {
		return m.inputKey(k)
	}
	if m.help {
		// Any key closes the help, q included (as the help says);
		// only ctrl+c quits from it.
		m.help = false
		if k.String() != "ctrl+c" {
			return m, nil
		}
	}
	rows := m.visible()
	i, ok := m.selected(rows)
	var cur broker.Listing
	if ok {
		cur = rows[i].s
	}
	switch k.String() {
	case "q", "ctrl+c":
		return m, tea.Quit
	case "esc":
		m.filter, m.status = "", ""
	case "?":
		m.help = true
	case "up", "k":
		if ok && i > 0 {
			m.sel = rowKey(rows[i-1].s)
		}
	case "down", "j":
		if ok && i+1 < len(rows) {
			m.sel = rowKey(rows[i+1].s)
		}
	case "/":
		m.mode, m.input = dashFilter, m.filter
	case "t":
		if ok {
			m.sel = rowKey(cur)
			m.mode, m.input = dashTrigger, ""
		}
	case "enter":
		if ok {
			return m, m.run(func() (string, error) { return m.act.jump(cur) })
		}
	case "r":
		if ok {
			return m, m.run(func() (string, error) { return m.act.restart(cur) })
		}
	case "s":
		if ok {
			return m, m.run(func() (string, error) { return m.act.skip(cur) })
		}
	case "a":
		if ok {
			switch {
			case !rows[i].answers():
				m.status = fmt.Sprintf("answer: not supported by the sup running %s (its supervisor has no %q method)", cur.State.Name, answerMethod)
			case cur.State.PromptID == "":
				m.status = fmt.Sprintf("answer: %s shows no prompt (activity %s)", cur.State.Name, cur.State.Activity)
			default:
				m.sel = rowKey(cur)
				m.mode, m.input = dashAnswer, ""
			}
		}
	}
	return m, nil
}

// run is an action as a command; the status bar says it is under way.
func (m *dashModel) run(f func() (string, error)) tea.Cmd {
	m.status = "…"
	return func() tea.Msg {
		what, err := f()
		return actionMsg{what, err}
	}
}

// inputKey edits the filter or trigger line: Enter applies, Esc cancels.
func (m *dashModel) inputKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch k.Type {
	case tea.KeyEsc, tea.KeyCtrlC:
		m.mode, m.input = dashBrowse, ""
	case tea.KeyEnter:
		mode, text := m.mode, m.input
		m.mode, m.input = dashBrowse, ""
		if mode == dashFilter {
			m.filter = text
			return m, nil
		}
		row, ok := m.rows[m.sel]
		if !ok {
			m.status = "the session is gone"
			return m, nil
		}
		if mode == dashAnswer {
			if strings.TrimSpace(text) == "" {
				m.status = "answer: no choice (type yes, no, always, 1-9 or text, then Enter)"
				return m, nil
			}
			return m, m.run(func() (string, error) { return m.act.answer(row.s, text) })
		}
		if strings.TrimSpace(text) == "" {
			m.status = "trigger: nothing to send (type the prompt, then Enter)"
			return m, nil
		}
		return m, m.run(func() (string, error) { return m.act.trigger(row.s, text) })
	case tea.KeyBackspace:
		if r := []rune(m.input); len(r) > 0 {
			m.input = string(r[:len(r)-1])
		}
	case tea.KeyRunes, tea.KeySpace:
		m.input += string(k.Runes)
	}
	return m, nil
}
