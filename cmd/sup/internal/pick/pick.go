//go:build linux

package pick

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/view"
	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/ipc"
)

// pickRefresh is how often the picker re-reads the queue and the preview.
const pickRefresh = time.Second

// Run is `sup pick` on the terminal until the user chooses a session
// (returned) or quits (nil). Without a fleet, fleetErr is the status line:
// a config.yaml that does not load is told in the popup rather than by one
// that closes at once.
func Run(ctx context.Context, f *broker.Fleet, fleetErr error) (*broker.Entry, error) {
	m := &pickModel{ctx: ctx, fleet: f, fleetErr: fleetErr}
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx))
	if _, err := p.Run(); err != nil {
		return nil, fmt.Errorf("pick: %w", err)
	}
	return m.chosen, nil
}

// pickModel is the picker's state: the queue of every host as last read,
// the selected session (kept by host and id across refreshes: two hosts
// may hold the same id) and its screen.
type pickModel struct {
	ctx           context.Context
	fleet         *broker.Fleet
	fleetErr      error // why there is no fleet
	queue         []broker.Entry
	hostErrs      []error // the hosts that did not answer the last read
	loading       bool    // a read is under way: a slow host must not pile them up
	selID         string  // sessionKey of the selected entry
	preview       string
	status        string // the last error or what a key did
	toHead        bool   // select the head at the next read (after a skip)
	width, height int
	chosen        *broker.Entry
}

// sessionKey names a session across hosts: its host and its id.
func sessionKey(s broker.Listing) string { return broker.HostOf(s) + ":" + s.State.SessionID }

type (
	queueMsg struct {
		q        []broker.Entry
		hostErrs []error
		err      error
	}
	previewMsg struct {
		id, text string
		err      error
	}
	skippedMsg struct {
		name string
		err  error
	}
	answeredMsg struct {
		name, choice string
		next         string // the session to select after a successful answer
		err          error
	}
	tickMsg struct{}
)

func (m *pickModel) Init() tea.Cmd {
	m.loading = true
	return tea.Batch(m.loadQueue, tick())
}

func tick() tea.Cmd { return tea.Tick(pickRefresh, func(time.Time) tea.Msg { return tickMsg{} }) }

func (m *pickModel) loadQueue() tea.Msg {
	if m.fleetErr != nil {
		return queueMsg{err: m.fleetErr}
	}
	q, hostErrs, err := m.fleet.Queue(m.ctx, time.Now)
	return queueMsg{q, hostErrs, err}
}

func (m *pickModel) loadPreview(e broker.Entry) tea.Cmd {
	return func() tea.Msg {
		var r ipc.ScreenResult
		err := m.fleet.Call(m.ctx, e.Listing, ipc.MethodScreen, nil, &r)
		return previewMsg{sessionKey(e.Listing), r.Text, err}
	}
}

func (m *pickModel) selected() (int, bool) {
	for i, e := range m.queue {
		if sessionKey(e.Listing) == m.selID {
			return i, true
		}
	}
	return 0, len(m.queue) > 0
}

func (m *pickModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tickMsg:
		if m.loading {
			return m, tick()
		}
		m.loading = true
		return m, tea.Batch(m.loadQueue, tick())
	case queueMsg:
		m.loading = false
		if msg.err != nil {
			m.status = msg.err.Error()
		}
		m.queue, m.hostErrs = msg.q, msg.hostErrs
		if m.toHead {
			m.toHead = false
			if h, ok := broker.Head(m.queue); ok {
				m.selID = sessionKey(h.Listing)
			}
		}
		if i, ok := m.selected(); ok {
			m.selID = sessionKey(m.queue[i].Listing)
			return m, m.loadPreview(m.queue[i])
		}
		m.selID, m.preview = "", ""
	case previewMsg:
		if msg.id == m.selID {
			m.preview = msg.text
			if msg.err != nil {
				m.preview = "(no screen: " + msg.err.Error() + ")"
			}
		}
	case skippedMsg:
		m.status = "skipped " + msg.name
		m.toHead = true
		if msg.err != nil {
			m.status = fmt.Sprintf("skip %s: %v", msg.name, msg.err)
		}
		m.loading = true
		return m, m.loadQueue
	case answeredMsg:
		m.status = fmt.Sprintf("answered %s: %s", msg.name, msg.choice)
		if msg.err != nil {
			m.status = fmt.Sprintf("answer %s: %v", msg.name, msg.err)
		} else if msg.next != "" {
			m.selID = msg.next // on to the next waiting session
		}
		m.loading = true
		return m, m.loadQueue
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil
}

func (m *pickModel) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if mm, cmd, ok := view.EachKey(m, k, m.key); ok {
		return mm, cmd
	}
	i, ok := m.selected()
	switch k.String() {
	case "q", "esc", "ctrl+c":
		return m, tea.Quit
	case "up", "k":
		if ok && i > 0 {
			m.selID = sessionKey(m.queue[i-1].Listing)
			return m, m.loadPreview(m.queue[i-1])
		}
	case "down", "j":
		if ok && i+1 < len(m.queue) {
			m.selID = sessionKey(m.queue[i+1].Listing)
			return m, m.loadPreview(m.queue[i+1])
		}
	case "enter":
		if ok {
			e := m.queue[i]
			m.chosen = &e
			return m, tea.Quit
		}
	case "s":
		if ok {
			e := m.queue[i]
			return m, func() tea.Msg {
				_, err := m.fleet.Skip(m.ctx, e.Listing, 0)
				return skippedMsg{e.State.Name, err}
			}
		}
	default:
		if choice, isAnswer := answerKey(k.String()); isAnswer && ok {
			next := ""
			if len(m.queue) > 1 {
				next = sessionKey(m.queue[(i+1)%len(m.queue)].Listing)
			}
			return m, m.answer(m.queue[i], choice, next)
		}
	}
	return m, nil
}

// answerKey maps the picker's answer keys to choices: y, n, a, 1–9.
func answerKey(k string) (string, bool) {
	switch k {
	case "y":
		return "yes", true
	case "n":
		return "no", true
	case "a":
		return "always", true
	}
	if len(k) == 1 && k[0] >= '1' && k[0] <= '9' {
		return k, true
	}
	return "", false
}

// answer answers e's prompt — the one the picker shows, by its id — with
// choice, then selects next.
func (m *pickModel) answer(e broker.Entry, choice, next string) tea.Cmd {
	if e.State.PromptID == "" {
		m.status = e.State.Name + " shows no prompt to answer"
		return nil
	}
	if e.State.Reason == "asked" && choice == "always" {
		// A question's answer is typed as the human's turn: "always"
		// would be a word the human never meant (specs/detection.md,
		// "A question is answered like a prompt").
		m.status = e.State.Name + " asked a question: y, n or a digit types that word; other text with sup answer " + e.State.Name + " TEXT"
		return nil
	}
	m.status = fmt.Sprintf("answering %s: %s…", e.State.Name, choice)
	return func() tea.Msg {
		_, err := m.fleet.Answer(m.ctx, e.Listing, ipc.AnswerParams{Choice: choice, Expect: e.State.PromptID, Requester: "pick:" + view.CurrentUser()})
		return answeredMsg{e.State.Name, choice, next, err}
	}
}

func (m *pickModel) View() string {
	var b strings.Builder
	b.WriteString("sup queue · ↑↓ choose · enter jump · s skip · y/n/a/1-9 answer · q quit\n\n")
	now := time.Now()
	sel, _ := m.selected()
	if len(m.queue) == 0 {
		b.WriteString("  nothing waits on you\n")
	}
	sessions := make([]broker.Listing, len(m.queue))
	for i, e := range m.queue {
		sessions[i] = e.Listing
	}
	hosts := view.AnyRemote(sessions)
	for i, e := range m.queue {
		st := safetext.Copy(e.State) // the agent's words, before sup's marks
		mark := "  "
		if i == sel {
			mark = "> "
		}
		if hosts {
			// The host first, as in sup queue: the same name may run on two.
			mark += fmt.Sprintf("%-12s ", view.OneLine(safetext.Field(broker.HostOf(e.Listing)), 12))
		}
		line := fmt.Sprintf("%s%-16s %-18s %6s  %s", mark, view.OneLine(st.Name, 16), view.OneLine(view.Dash(st.Reason), 18), view.WaitingFor(st, now), view.OneLine(view.SummaryText(st), 60))
		if e.Cooling {
			line = "\x1b[2m" + line + "  (skipped)\x1b[0m"
		}
		b.WriteString(line + "\n")
	}
	for _, err := range m.hostErrs {
		b.WriteString(view.OneLine(safetext.Field(err.Error()), 100) + "\n")
	}
	if m.status != "" {
		b.WriteString("\n" + view.OneLine(safetext.Field(m.status), 100) + "\n")
	}
	prompt := ""
	if len(m.queue) > 0 {
		prompt = promptBlock(m.queue[sel].State, m.width, m.height/2)
	}
	used := strings.Count(b.String(), "\n") + 1 + strings.Count(prompt, "\n")
	if m.preview != "" {
		b.WriteString(strings.Repeat("─", max(m.width, 20)) + "\n")
		b.WriteString(fitPreview(safetext.Text(m.preview), m.width, m.height-used-1))
	}
	b.WriteString(prompt)
	return b.String()
}

// promptBlock shows the selected session's open prompt under the preview:
// what it asks (the whole command, every line, in at most detailRows
// rows: view.DetailBlock) and the answers it takes; "" when it shows none.
func promptBlock(st ipc.State, width, detailRows int) string {
	if st.PromptID == "" {
		return ""
	}
	w := max(width, 40)
	detail := st.PromptDetail // before Copy, which would make it one capped line
	st = safetext.Copy(st)
	var b strings.Builder
	b.WriteString("\n" + strings.Repeat("─", w) + "\n")
	b.WriteString(view.OneLine("prompt: "+view.Dash(view.SummaryText(st)), w) + "\n")
	for _, row := range view.DetailBlock(detail, w, detailRows, st.Name) {
		b.WriteString(row + "\n")
	}
	var opts []string
	for _, o := range st.PromptOptions {
		opts = append(opts, view.OptionText(st, o))
	}
	if len(opts) > 0 {
		b.WriteString(view.OneLine(strings.Join(opts, " · "), w) + "\n")
	}
	var keys []string
	for _, c := range st.PromptChoices {
		switch c {
		case "yes", "no", "always":
			keys = append(keys, c[:1]+" "+c)
		default:
			if strings.HasPrefix(c, "1-") { // 1-9, or 1-N for a dialog the model read
				keys = append(keys, c+" option")
			}
		}
	}
	if len(keys) == 0 {
		b.WriteString("no answer keys for this dialog: enter to jump to it")
	} else {
		b.WriteString("answer: " + strings.Join(keys, " · "))
	}
	return b.String()
}

// fitPreview keeps the bottom rows of a screen (where prompts are) that fit
// in rows lines of width columns.
func fitPreview(text string, width, rows int) string {
	lines := strings.Split(strings.TrimRight(text, "\n "), "\n")
	if rows < 1 {
		return ""
	}
	if len(lines) > rows {
		lines = lines[len(lines)-rows:]
	}
	for i, l := range lines {
		if r := []rune(l); width > 0 && len(r) > width {
			lines[i] = string(r[:width])
		}
	}
	return strings.Join(lines, "\n")
}
