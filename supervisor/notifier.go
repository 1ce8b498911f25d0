//go:build linux

package supervisor

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/sup-tmux/sup/internal/config"
	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/internal/tmux"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/notify"
)

// The session's notifier (specs/broker.md, "Notifications"): one
// goroutine that asks the pure policy (package notify) when its session
// has waited long enough with nobody looking, and then tells the human
// through tmux, the desktop and the user's command. No daemon: each
// supervisor notifies for its own session.

// tmuxTimeout bounds each tmux call the notifier makes.
const tmuxTimeout = 2 * time.Second

// notifier is the session's notifier. It keeps no facts of its own: it
// reads the session's through waiting and notice and holds no lock.
type notifier struct {
	kick     chan struct{} // a fact it decides on changed
	tmuxSock string        // the session's tmux server ("" outside tmux)
	tmuxPane string
	log      *slog.Logger
	// waiting is what the policy decides on; notice what a notification
	// says (the session's waitFacts and notice).
	waiting func(now time.Time) notify.Facts
	notice  func(now time.Time) notice
}

// notice is what a notification says about the session.
type notice struct {
	st              activity.State
	promptID        string
	name, sessionID string
}

func newNotifier(s *Session) *notifier {
	return &notifier{kick: make(chan struct{}, 1), tmuxSock: s.tmuxSock, tmuxPane: s.tmuxPane, log: s.log,
		waiting: s.waitFacts, notice: s.notice}
}

// poke tells the notifier that a fact it decides on changed.
func (n *notifier) poke() {
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// run is the notifier's loop under cfg, until done is closed.
func (n *notifier) run(cfg config.Notify, done <-chan struct{}) {
	if !cfg.Enabled() {
		return
	}
	p := notify.NewPolicy(cfg)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		f := n.waiting(time.Now())
		fire, next := p.Decide(f, n.paneWatched)
		if fire {
			n.send(cfg, f)
			next = p.Sent(f.WaitingSince, f.Now)
		}
		wait := time.Hour
		if !next.IsZero() {
			wait = max(time.Until(next), 0)
		}
		timer.Reset(wait)
		select {
		case <-n.kick:
		case <-timer.C:
		case <-done:
			return
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// tmuxServer is the session's own tmux server (from $TMUX).
func (n *notifier) tmuxServer() tmux.Server {
	return tmux.Server{Socket: n.tmuxSock, Timeout: tmuxTimeout}
}

// tmuxClient is one attached client of the session's tmux server.
type tmuxClient struct{ name, tty, window string }

// tmuxClients lists the attached clients and the window of the session's
// pane.
func (n *notifier) tmuxClients() (clients []tmuxClient, paneWindow string, err error) {
	if n.tmuxSock == "" || n.tmuxPane == "" {
		return nil, "", nil // outside tmux: nobody to look, nobody to tell there
	}
	out, err := n.tmuxServer().Exec(context.Background(), tmux.QueryCmd(n.tmuxPane, "#{window_id}"),
		tmux.Raw("list-clients", "-F", "#{client_name}\t#{client_tty}\t#{window_id}"))
	if err != nil {
		return nil, "", err
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	paneWindow = lines[0]
	for _, l := range lines[1:] {
		if f := strings.Split(l, "\t"); len(f) == 3 {
			clients = append(clients, tmuxClient{name: f[0], tty: f[1], window: f[2]})
		}
	}
	return clients, paneWindow, nil
}

// paneWatched reports whether an attached client shows the session's pane
// (its current window is the pane's). An error counts as not watched: a
// notification too many beats a missed one.
func (n *notifier) paneWatched() bool {
	clients, win, err := n.tmuxClients()
	if err != nil {
		n.log.Warn("notify_tmux_failed", "err", err)
		return false
	}
	for _, c := range clients {
		if c.window == win {
			return true
		}
	}
	return false
}

// send tells the human, each way the config asks; failures are logged,
// never fatal.
func (n *notifier) send(cfg config.Notify, f notify.Facts) {
	no := n.notice(f.Now)
	st, id, name, sessionID := no.st, no.promptID, no.name, no.sessionID
	waited := f.Now.Sub(f.WaitingSince)
	// The name, reason and summary are the agent's words: one line each,
	// no control byte, before tmux, the desktop or the user's command.
	name, reason, summary := safetext.Field(name), safetext.Field(st.Reason), safetext.Field(st.Summary)
	what := reason
	if summary != "" {
		what += ": " + summary
	}
	text := fmt.Sprintf("⚠ %s waits (%s, %s) — prefix+Tab", name, what, waited.Round(time.Second))
	n.log.Info("notify", "waited_ms", waited.Milliseconds(), "reason", st.Reason, "prompt_id", id,
		"tmux", cfg.Tmux, "desktop", cfg.Desktop, "command", len(cfg.Command) > 0)
	var clients []tmuxClient
	if cfg.Tmux || cfg.Desktop {
		var err error
		if clients, _, err = n.tmuxClients(); err != nil {
			n.log.Warn("notify_tmux_failed", "err", err)
		}
	}
	if cfg.Tmux && len(clients) > 0 {
		// tmux.DisplayCmd escapes the text: a #(…) in a summary is shown,
		// never run.
		var cmds []tmux.Cmd
		for _, c := range clients {
			cmds = append(cmds, tmux.DisplayCmd(c.name, text))
		}
		if _, err := n.tmuxServer().Exec(context.Background(), cmds...); err != nil {
			n.log.Warn("notify_tmux_failed", "err", err)
		}
	}
	if cfg.Desktop {
		n.desktop(clients, "sup: "+name+" waits", what)
	}
	if len(cfg.Command) > 0 {
		env := []string{
			"SUP_SESSION=" + sessionID, "SUP_NAME=" + name, "SUP_REASON=" + reason, "SUP_SUMMARY=" + summary,
			"SUP_WAITING_MS=" + strconv.FormatInt(waited.Milliseconds(), 10), "SUP_PROMPT_ID=" + id, "SUP_PANE=" + n.tmuxPane,
		}
		go n.command(cfg, env)
	}
}

// desktop uses notify-send (libnotify) when it exists; otherwise it
// writes an OSC 777 notification (and OSC 9, for terminals that know only
// that one) to every attached client's terminal.
func (n *notifier) desktop(clients []tmuxClient, title, body string) {
	if path, err := exec.LookPath("notify-send"); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), tmuxTimeout)
		defer cancel()
		if err := exec.CommandContext(ctx, path, "-a", "sup", title, body).Run(); err != nil {
			n.log.Warn("notify_desktop_failed", "err", err)
		}
		return
	}
	// One line, no control byte (the OSC must not end early or carry
	// another sequence), and no ; (it would end the OSC's field).
	clean := func(s string) string { return strings.ReplaceAll(safetext.Field(s), ";", " ") }
	seq := "\x1b]777;notify;" + clean(title) + ";" + clean(body) + "\x07\x1b]9;" + clean(title+": "+body) + "\x07"
	for _, c := range clients {
		tty, err := os.OpenFile(c.tty, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			n.log.Warn("notify_desktop_failed", "tty", c.tty, "err", err)
			continue
		}
		tty.WriteString(seq) // Best effort: the client may be detaching.
		tty.Close()
	}
}

// command runs the user's command without a shell, bounded by
// its timeout; a failure is logged.
func (n *notifier) command(cfg config.Notify, env []string) {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.CommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.Command[0], cfg.Command[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		n.log.Warn("notify_command_failed", "argv0", cfg.Command[0], "err", err, "output", strings.TrimSpace(string(out[:min(len(out), 512)])))
		return
	}
	n.log.Info("notify_command", "argv0", cfg.Command[0])
}

// waitFacts are the facts the notifier's policy decides on.
func (s *Session) waitFacts(now time.Time) notify.Facts {
	st := s.agent.state(now)
	return notify.Facts{Now: now, WaitingSince: st.WaitingSince, SkipUntil: st.SkipUntil}
}

// notice is what a notification at now says.
func (s *Session) notice(now time.Time) notice {
	n := s.owner.load()
	v, open, pl := n.view(now), n.open, n.run.plan
	return notice{st: v.st, promptID: open.id, name: pl.Name, sessionID: pl.SessionID}
}
