//go:build linux

package dash

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

var dashNow = time.UnixMilli(1_000_000)

func sessionAt(id, name, activity string, waitingSince int64) broker.Change {
	return broker.Change{Kind: broker.SessionUpdated, Methods: []string{"hello", "state"}, Session: broker.Listing{
		Socket: "/rt/" + id + ".sock",
		State: ipc.State{SessionID: id, Name: name, Activity: activity, Lifecycle: "running", Health: "healthy",
			WaitingSince: waitingSince, StartedAt: dashNow.Add(-90 * time.Minute).UnixMilli(), Summary: name + " summary"},
	}}
}

func keys(m *dashModel, ks ...string) []tea.Cmd {
	var cmds []tea.Cmd
	for _, k := range ks {
		var msg tea.KeyMsg
		switch k {
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "down":
			msg = tea.KeyMsg{Type: tea.KeyDown}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		_, cmd := m.Update(msg)
		cmds = append(cmds, cmd)
	}
	return cmds
}

// recorder is the dashboard's actions, writing down what they were asked.
type recorder struct{ calls []string }

func (r *recorder) actions() dashActions {
	rec := func(what string) func(broker.Listing) (string, error) {
		return func(s broker.Listing) (string, error) {
			r.calls = append(r.calls, what+" "+named(s))
			return what + " done", nil
		}
	}
	return dashActions{jump: rec("jump"), restart: rec("restart"), skip: rec("skip"),
		trigger: func(s broker.Listing, text string) (string, error) {
			r.calls = append(r.calls, "trigger "+named(s)+" "+text)
			return "delivered", nil
		},
		answer: func(s broker.Listing, choice string) (string, error) {
			r.calls = append(r.calls, "answer "+named(s)+" "+s.State.PromptID+" "+choice)
			return "answered", nil
		}}
}

// named is a session as the recorder writes it: host:name for another
// host's.
func named(s broker.Listing) string {
	if s.Host != "" {
		return s.Host + ":" + s.State.Name
	}
	return s.State.Name
}

func newTestDash(r *recorder) *dashModel {
	m := newDashModel("/rt", func() time.Time { return dashNow }, r.actions())
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 20})
	return m
}

// TestDashModelRows: sessions appear from changes, sorted, a stuck
// session's row shows its wait and summary, a gone one leaves, the
// runtime dir's absence is on screen until it is back.
func TestDashModelRows(t *testing.T) {
	m := newTestDash(&recorder{})
	m.Update(changeMsg(sessionAt("b", "bravo", "busy", 0)))
	m.Update(changeMsg(sessionAt("a", "alpha", "ready", 0)))
	v := m.View()
	if ia, ib := strings.Index(v, "alpha"), strings.Index(v, "bravo"); ia < 0 || ib < ia {
		t.Fatalf("want alpha then bravo:\n%s", v)
	}
	if !strings.Contains(testutil.ScreenRow(v, "alpha"), "1h30m") {
		t.Errorf("uptime missing: %q", testutil.ScreenRow(v, "alpha"))
	}
	m.Update(changeMsg(sessionAt("b", "bravo", "needs_confirmation", dashNow.Add(-42*time.Second).UnixMilli())))
	row := testutil.ScreenRow(m.View(), "bravo")
	for _, want := range []string{"\x1b[1;33mneeds_confirmation", "42s", "bravo summary"} {
		if !strings.Contains(row, want) {
			t.Errorf("bravo's row lacks %q: %q", want, row)
		}
	}
	if !strings.Contains(m.View(), "2 sessions · 1 waiting on you") {
		t.Errorf("header: %s", m.View())
	}
	m.Update(changeMsg(broker.Change{Kind: broker.SessionGone, Session: broker.Listing{Socket: "/rt/a.sock"}}))
	if strings.Contains(m.View(), "alpha") {
		t.Errorf("alpha is gone but listed:\n%s", m.View())
	}
	m.Update(changeMsg(broker.Change{Kind: broker.DirMissing}))
	if !strings.Contains(m.View(), "the runtime dir /rt is gone") {
		t.Errorf("no banner for the missing dir:\n%s", m.View())
	}
	m.Update(changeMsg(broker.Change{Kind: broker.DirPresent}))
	if strings.Contains(m.View(), "is gone") {
		t.Errorf("the dir is back but the banner stays:\n%s", m.View())
	}
}

// TestDashModelKeys: the filter, moving the selection, each action on
// the selected session, the trigger prompt, and `a` refused where the
// supervisor has no answer method.
func TestDashModelKeys(t *testing.T) {
	r := &recorder{}
	m := newTestDash(r)
	for _, c := range []broker.Change{sessionAt("a", "alpha", "ready", 0), sessionAt("b", "bravo", "busy", 0), sessionAt("c", "charlie", "busy", 0)} {
		m.Update(changeMsg(c))
	}
	run := func(cmds []tea.Cmd) {
		for _, c := range cmds {
			if c != nil {
				m.Update(c())
			}
		}
	}
	keys(m, "/char", "enter") // typed fast: one message of runes
	if v := m.View(); strings.Contains(v, "alpha") || !strings.Contains(v, `filter "char" (1 shown`) {
		t.Fatalf("filter char:\n%s", v)
	}
	run(keys(m, "enter"))
	keys(m, "esc", "down")
	run(keys(m, "r"))
	run(keys(m, "s"))
	keys(m, "t")
	if !strings.Contains(m.View(), "trigger bravo: █") {
		t.Fatalf("no trigger prompt:\n%s", m.View())
	}
	run(keys(m, "fix", " ", "it", "enter"))
	if !strings.Contains(m.View(), "delivered") {
		t.Errorf("the trigger's outcome is not shown:\n%s", m.View())
	}
	keys(m, "t", "esc") // cancelled: nothing sent
	want := "jump charlie|restart bravo|skip bravo|trigger bravo fix it"
	if got := strings.Join(r.calls, "|"); got != want {
		t.Fatalf("actions %q, want %q", got, want)
	}

	if !strings.Contains(m.View(), "a answer (not supported by this sup)") {
		t.Errorf("a is not marked unsupported:\n%s", m.View())
	}
	keys(m, "a")
	if !strings.Contains(m.View(), `answer: not supported by the sup running bravo (its supervisor has no "answer" method)`) {
		t.Errorf("a on a sup without answer:\n%s", m.View())
	}
	c := sessionAt("b", "bravo", "busy", 0)
	c.Methods = append(c.Methods, "answer")
	m.Update(changeMsg(c))
	if strings.Contains(m.View(), "not supported by this sup") {
		t.Errorf("bravo's sup answers, yet a is marked unsupported:\n%s", m.View())
	}
	keys(m, "a")
	if !strings.Contains(m.View(), "answer: bravo shows no prompt (activity busy)") {
		t.Errorf("a without a prompt:\n%s", m.View())
	}
	c.Session.State.Activity, c.Session.State.PromptID, c.Session.State.Summary = "needs_confirmation", "p1", "Bash: rm x"
	c.Session.State.PromptOptions = []ipc.PromptOption{{Choice: "1", Label: "Yes"}, {Choice: "2", Label: "No"}}
	c.Session.State.PromptChoices = []string{"yes", "no"}
	m.Update(changeMsg(c))
	keys(m, "a")
	if !strings.Contains(m.View(), "answer bravo (Bash: rm x · 1. Yes · 2. No · yes/no): █") {
		t.Fatalf("no answer prompt:\n%s", m.View())
	}
	run(keys(m, "yes", "enter"))
	if got := r.calls[len(r.calls)-1]; got != "answer bravo p1 yes" || !strings.Contains(m.View(), "answered") {
		t.Fatalf("answer sent %q:\n%s", got, m.View())
	}
	keys(m, "?")
	if !strings.Contains(m.View(), "Enter      move your tmux client") {
		t.Errorf("no help:\n%s", m.View())
	}
	keys(m, "x")
	if strings.Contains(m.View(), "Enter      move your tmux client") {
		t.Errorf("x did not close the help:\n%s", m.View())
	}
	// q in the help closes it, as the help says ("any key closes it"),
	// and does not quit; q outside it quits.
	keys(m, "?")
	if _, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")}); cmd != nil || strings.Contains(m.View(), "Enter      move your tmux client") {
		t.Errorf("q in the help: quit or left it open:\n%s", m.View())
	}
	if _, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")}); cmd == nil || cmd() != tea.Quit() {
		t.Error("q does not quit")
	}
}

// TestDashModelHosts: another host's rows come with a HOST column, keyed
// by host and socket (the same path on two hosts is two rows); the keys
// act on the remote session, `a` is offered without hello; a host that
// does not answer is a line with its reason beside the local rows, and
// its rows are gone until it is back.
func TestDashModelHosts(t *testing.T) {
	r := &recorder{}
	m := newTestDash(r)
	m.Update(changeMsg(sessionAt("a", "alpha", "ready", 0)))
	if strings.Contains(m.View(), "HOST") {
		t.Errorf("a HOST column with this host only:\n%s", m.View())
	}
	far := sessionAt("a", "alpha", "needs_confirmation", dashNow.Add(-5*time.Second).UnixMilli())
	far.Session.Host, far.Methods = "gpu", nil
	far.Session.State.PromptID = "p9"
	m.Update(changeMsg(far))
	v := m.View()
	if !strings.Contains(v, "HOST") || !strings.Contains(v, "2 sessions · 1 waiting on you") || !strings.Contains(v, "gpu          alpha") {
		t.Fatalf("want both alphas, the remote one with its host:\n%s", v)
	}
	run := func(cmds []tea.Cmd) {
		for _, c := range cmds {
			if c != nil {
				m.Update(c())
			}
		}
	}
	keys(m, "down")
	run(keys(m, "enter"))
	run(keys(m, "s"))
	run(keys(m, "a", "2", "enter"))
	run(keys(m, "t", "go", "enter"))
	if got, want := strings.Join(r.calls, "|"), "jump gpu:alpha|skip gpu:alpha|answer gpu:alpha p9 2|trigger gpu:alpha go"; got != want {
		t.Fatalf("actions %q, want %q", got, want)
	}

	m.Update(changeMsg(broker.Change{Kind: broker.SessionGone, Session: broker.Listing{Host: "gpu", Socket: "/rt/a.sock"}}))
	m.Update(changeMsg(broker.Change{Kind: broker.HostDown, Host: "gpu", Err: &broker.HostError{Host: "gpu", Status: broker.HostUnreachable, Reason: "no answer within 4s"}}))
	v = m.View()
	if !strings.Contains(v, "\x1b[31mhost gpu: unreachable: no answer within 4s") {
		t.Errorf("no line for the host that does not answer:\n%s", v)
	}
	if !strings.Contains(v, "1 sessions") || !strings.Contains(v, "ready") || strings.Contains(v, "needs_confirmation") {
		t.Errorf("the local row must stay, the remote one go:\n%s", v)
	}
	m.Update(changeMsg(broker.Change{Kind: broker.HostUp, Host: "gpu"}))
	if strings.Contains(m.View(), "unreachable") {
		t.Errorf("the host is back but its line stays:\n%s", m.View())
	}
}

// TestDashAgeTimer: the redraw timer fires when a shown age changes, not
// on a fixed period; with no ages shown there is none; an outdated timer
// schedules nothing.
func TestDashAgeTimer(t *testing.T) {
	for _, c := range []struct{ d, want time.Duration }{
		{0, time.Second}, {1500 * time.Millisecond, 500 * time.Millisecond}, {59 * time.Second, time.Second},
		{90 * time.Second, 30 * time.Second}, {3*time.Hour + 10*time.Second, 50 * time.Second},
		{50 * time.Hour, 22 * time.Hour}, {-2 * time.Second, 2 * time.Second},
	} {
		if got := ageChangesIn(c.d); got != c.want {
			t.Errorf("ageChangesIn(%v) = %v, want %v", c.d, got, c.want)
		}
	}
	m := newTestDash(&recorder{})
	if m.ageTick() != nil {
		t.Error("a timer with nothing on screen")
	}
	if _, cmd := m.Update(changeMsg(sessionAt("a", "alpha", "busy", 0))); cmd == nil {
		t.Error("no timer for alpha's uptime")
	}
	if _, cmd := m.Update(ageTickMsg{gen: m.tickGen - 1}); cmd != nil {
		t.Error("an outdated timer scheduled another")
	}
}
