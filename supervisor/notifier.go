//go:build linux

package supervisor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/internal/tmux"
	"github.com/sup-tmux/sup/supervisor/notify"
)

// The session's notifier (specs/broker.md, "Notifications"): one
// goroutine that asks the pure policy (package notify) when its session
// has waited long enough with nobody looking, and then tells the human
// through tmux, the desktop and the user's command. No daemon: each
// supervisor notifies for its own session.

// tmuxTimeout bounds each tmux call the notifier makes.
const tmuxTimeout = 2 * time.Second

// pokeNotify tells the notifier that a fact it decides on changed.
func (s *Session) pokeNotify() {
	select {
	case s.notifyKick <- struct{}{}:
	default:
	}
}

// runNotify is the notifier's loop, until done is closed.
func (s *Session) runNotify(done <-chan struct{}) {
	cfg := s.Plan().Config.Notify
	if !cfg.Enabled() {
		return
	}
	p := notify.NewPolicy(cfg)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		f := s.notifyFacts()
		fire, next := p.Decide(f, s.paneWatched)
		if fire {
			s.sendNotification(cfg, f)
			next = p.Sent(f.WaitingSince, f.Now)
		}
		wait := time.Hour
		if !next.IsZero() {
			wait = max(time.Until(next), 0)
		}
		timer.Reset(wait)
		select {
		case <-s.notifyKick:
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

func (s *Session) notifyFacts() notify.Facts {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.act.State(now)
	return notify.Facts{Now: now, WaitingSince: st.WaitingSince, SkipUntil: st.SkipUntil}
}

// tmuxServer is the session's own tmux server (from $TMUX).
func (s *Session) tmuxServer() tmux.Server {
	return tmux.Server{Socket: s.tmuxSock, Timeout: tmuxTimeout}
}

// tmuxClient is one attached client of the session's tmux server.
type tmuxClient struct{ name, tty, window string }

// tmuxClients lists the attached clients and the window of the session's
// pane.
func (s *Session) tmuxClients() (clients []tmuxClient, paneWindow string, err error) {
	if s.tmuxSock == "" || s.tmuxPane == "" {
		return nil, "", nil // outside tmux: nobody to look, nobody to tell there
	}
	out, err := s.tmuxServer().Exec(context.Background(), tmux.QueryCmd(s.tmuxPane, "#{window_id}"),
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
func (s *Session) paneWatched() bool {
	clients, win, err := s.tmuxClients()
	if err != nil {
		s.log.Warn("notify_tmux_failed", "err", err)
		return false
	}
	for _, c := range clients {
		if c.window == win {
			return true
		}
	}
	return false
}

// sendNotification tells the human, each way the config asks; failures
// are logged, never fatal.
func (s *Session) sendNotification(cfg notify.Config, f notify.Facts) {
	s.mu.Lock()
	st := s.act.State(f.Now)
	id := s.readPrompt(f.Now).id
	name, sessionID := s.plan.Name, s.plan.SessionID
	s.mu.Unlock()
	waited := f.Now.Sub(f.WaitingSince)
	// The name, reason and summary are the agent's words: one line each,
	// no control byte, before tmux, the desktop or the user's command.
	name, reason, summary := safetext.Field(name), safetext.Field(st.Reason), safetext.Field(st.Summary)
	what := reason
	if summary != "" {
		what += ": " + summary
	}
	text := fmt.Sprintf("⚠ %s waits (%s, %s) — prefix+Tab", name, what, waited.Round(time.Second))
	s.log.Info("notify", "waited_ms", waited.Milliseconds(), "reason", st.Reason, "prompt_id", id,
		"tmux", cfg.Tmux, "desktop", cfg.Desktop, "command", len(cfg.Command) > 0)
	var clients []tmuxClient
	if cfg.Tmux || cfg.Desktop {
		var err error
		if clients, _, err = s.tmuxClients(); err != nil {
			s.log.Warn("notify_tmux_failed", "err", err)
		}
	}
	if cfg.Tmux && len(clients) > 0 {
		// tmux.DisplayCmd escapes the text: a #(…) in a summary is shown,
		// never run.
		var cmds []tmux.Cmd
		for _, c := range clients {
			cmds = append(cmds, tmux.DisplayCmd(c.name, text))
		}
		if _, err := s.tmuxServer().Exec(context.Background(), cmds...); err != nil {
			s.log.Warn("notify_tmux_failed", "err", err)
		}
	}
	if cfg.Desktop {
		s.desktopNotify(clients, "sup: "+name+" waits", what)
	}
	if len(cfg.Command) > 0 {
		env := []string{
			"SUP_SESSION=" + sessionID, "SUP_NAME=" + name, "SUP_REASON=" + reason, "SUP_SUMMARY=" + summary,
			"SUP_WAITING_MS=" + strconv.FormatInt(waited.Milliseconds(), 10), "SUP_PROMPT_ID=" + id, "SUP_PANE=" + s.tmuxPane,
		}
		go s.runNotifyCommand(cfg, env)
	}
}

// desktopNotify uses notify-send (libnotify) when it exists; otherwise it
// writes an OSC 777 notification (and OSC 9, for terminals that know only
// that one) to every attached client's terminal.
func (s *Session) desktopNotify(clients []tmuxClient, title, body string) {
	if path, err := exec.LookPath("notify-send"); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), tmuxTimeout)
		defer cancel()
		if err := exec.CommandContext(ctx, path, "-a", "sup", title, body).Run(); err != nil {
			s.log.Warn("notify_desktop_failed", "err", err)
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
			s.log.Warn("notify_desktop_failed", "tty", c.tty, "err", err)
			continue
		}
		tty.WriteString(seq) // Best effort: the client may be detaching.
		tty.Close()
	}
}

// runNotifyCommand runs the user's command without a shell, bounded by
// its timeout; a failure is logged.
func (s *Session) runNotifyCommand(cfg notify.Config, env []string) {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.CommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.Command[0], cfg.Command[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.log.Warn("notify_command_failed", "argv0", cfg.Command[0], "err", err, "output", strings.TrimSpace(string(out[:min(len(out), 512)])))
		return
	}
	s.log.Info("notify_command", "argv0", cfg.Command[0])
}
