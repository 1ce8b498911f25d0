//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v3"
	"golang.org/x/term"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/shellquote"
	"github.com/sup-tmux/sup/internal/tmux"
	"github.com/sup-tmux/sup/supervisor/store"
)

// demoSession is the demo's tmux session, named as the broker names a
// workspace's session (broker.TmuxSessionName).
const demoSession = "agents_demo"

// demoAgents are the demo's three sessions: one soon stuck on a
// confirmation, one ready, one busy for a while.
var demoAgents = []struct{ role, first, think string }{
	{"deployer", "deploy the staging build", "2s"},
	{"reviewer", "", "3s"},
	{"coder", "refactor the parser", "45s"},
}

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "open a tmux session with three supervised demo agents and the queue's keys (needs only tmux)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "socket", Value: "sup-demo", Sources: cli.EnvVars("SUP_DEMO_SOCKET"),
				Usage: "the private tmux server's socket name (tmux -L NAME)"},
			&cli.BoolFlag{Name: "stop", Usage: "end the demo: its tmux server, agents and files"},
			&cli.BoolFlag{Name: "no-attach", Usage: "print the queue and how to attach instead of attaching"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			if _, err := exec.LookPath("tmux"); err != nil {
				return fmt.Errorf("demo: tmux is not installed (sup needs it: apt-get install tmux, brew install tmux)")
			}
			d := demo{socket: cmd.String("socket"), dir: filepath.Join(store.StateDir(os.Getenv), "demo")}
			if d.socket == "" || strings.ContainsAny(d.socket, "/ ") {
				return fmt.Errorf("demo: --socket %q: give a plain tmux socket name such as sup-demo", d.socket)
			}
			if cmd.Bool("stop") {
				return d.stop(ctx)
			}
			if err := d.start(ctx); err != nil {
				return err
			}
			return d.show(ctx, cmd.Bool("no-attach"))
		},
	}
}

type demo struct {
	socket string // tmux -L name
	dir    string // documents and the key snippet
}

// server is the demo's private tmux server: its own even when sup demo
// runs inside another tmux, and the same whatever the user's ~/.tmux.conf
// says.
func (d demo) server() tmux.Server {
	return tmux.Server{Name: d.socket, Config: os.DevNull, Env: tmux.WithoutTmuxEnv(os.Environ()), Timeout: 10 * time.Second}
}

// socketFlag repeats a non-default --socket in the commands it suggests.
func (d demo) socketFlag() string {
	if d.socket == "sup-demo" {
		return ""
	}
	return " --socket " + d.socket
}

func (d demo) running(ctx context.Context) bool {
	_, err := d.server().Run(ctx, "has-session", "-t", "="+demoSession)
	return err == nil
}

func (d demo) start(ctx context.Context) error {
	if d.running(ctx) {
		fmt.Printf("the demo is already running on tmux -L %s\n", d.socket)
		return nil
	}
	if err := os.MkdirAll(d.dir, 0o700); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	self := selfPath()
	keys := filepath.Join(d.dir, "tmux.conf")
	if err := os.WriteFile(keys, []byte(tmuxSnippet(self)), 0o644); err != nil {
		return fmt.Errorf("demo: write key bindings: %w", err)
	}
	var panes []string
	for _, a := range demoAgents {
		doc := filepath.Join(d.dir, a.role+".md")
		fm := fmt.Sprintf("---\nsup:\n  profile: demo\n  workspace: demo\n  role: %s\n  name: %s\n  command: [%q, demo-agent, --name, %s, --think, %s",
			a.role, a.role, self, a.role, a.think)
		if a.first != "" {
			fm += fmt.Sprintf(", --first, %q", a.first)
		}
		fm += "]\n---\n# " + a.role + "\n\nA document of sup's demo (sup demo --stop removes it).\n"
		if err := os.WriteFile(doc, []byte(fm), 0o644); err != nil {
			return fmt.Errorf("demo: write %s: %w", doc, err)
		}
		panes = append(panes, shellquote.Quote(self)+" start "+shellquote.Quote(doc))
	}
	// Every word is sup's own (the agents' commands are shell-quoted).
	win := demoSession + ":agents"
	set := func(option string, value tmux.Format) tmux.Cmd {
		return tmux.SetOptionCmd([]string{"-g"}, option, value)
	}
	if _, err := d.server().Exec(ctx,
		tmux.NewWindowCmd(tmux.Window{NewSession: true, Session: demoSession, Name: "agents", Width: 200, Height: 50, Detached: true, Command: panes[0]}),
		tmux.Authored("split-window", "-h", "-t", win, panes[1]),
		tmux.Authored("split-window", "-v", "-t", win, panes[2]),
		tmux.Raw("select-layout", "-t", win, "main-vertical"),
		tmux.Raw("source-file", keys),
		set("status", "on"),
		set("status-interval", "2"),
		set("status-right-length", "80"),
		set("status-right", tmux.Format("#("+shellquote.Quote(self)+" status-line) ")),
		set("pane-border-status", "top"),
		set("pane-border-format", " #{pane_title} "),
	); err != nil {
		return fmt.Errorf("demo: start tmux: %w", err)
	}
	return d.waitSessions(ctx, len(demoAgents))
}

// demoSessions are the live sessions of the demo's documents.
func (d demo) sessions(ctx context.Context) ([]broker.Session, error) {
	dir, err := runtimeDir()
	if err != nil {
		return nil, err
	}
	res, err := broker.Discover(ctx, dir, broker.FanoutTimeout)
	var mine []broker.Session
	for _, s := range res.Sessions {
		if filepath.Dir(s.State.Document) == d.dir {
			mine = append(mine, s)
		}
	}
	return mine, err
}

func (d demo) waitSessions(ctx context.Context, n int) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		s, err := d.sessions(ctx)
		if err != nil {
			return err
		}
		if len(s) == n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("demo: %d of %d sessions came up within 15s; see tmux -L %s attach", len(s), n, d.socket)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (d demo) show(ctx context.Context, noAttach bool) error {
	// Wait until the deployer's first task reaches its confirmation and
	// the reviewer waits (about 2 s; a loaded machine takes longer), so
	// the listing shows what the text below says.
	var q []broker.Entry
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var err error
		f, err := fleet()
		if err != nil {
			return err
		}
		if q, err = stuckQueue(ctx, f, nil); err != nil {
			return err
		}
		if len(q) >= 2 || time.Now().After(deadline) {
			break
		}
	}
	sessions, _ := d.sessions(ctx) // Best effort: the listing is a courtesy.
	printSessions(os.Stdout, sessions, time.Now())
	fmt.Println()
	printQueue(os.Stdout, q, time.Now(), false)
	fmt.Printf(`
Three demo agents run under sup in tmux -L %[1]s: deployer asks to run a
command (y/n), reviewer waits for a task, coder is busy. The status line
shows how many wait on you. Keys (prefix is C-b):
  prefix Tab   jump to the session that has waited longest
  prefix g     pick from the queue (live preview; Enter jumps, s skips)
  prefix S     skip the head for a while
Answer in the pane itself (y, or type a task and Enter); the queue follows.
Stop it all with: %[3]s demo --stop%[2]s
%[4]s`, d.socket, d.socketFlag(), shellName(), pathNote())
	attach := []string{"tmux", "-L", d.socket, "attach-session", "-t", demoSession}
	switch {
	case noAttach || !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())):
		fmt.Printf("Attach with: %s\n", strings.Join(attach, " "))
		return nil
	case os.Getenv("TMUX") != "":
		fmt.Printf("You are inside tmux; attach from another terminal, or run: TMUX= %s\n", strings.Join(attach, " "))
		return nil
	}
	fmt.Println("Attaching (detach with prefix d)…")
	c := exec.CommandContext(ctx, attach[0], attach[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := c.Run(); err != nil {
		if !d.running(ctx) {
			// `sup demo --stop` from another shell ended the server under
			// this client: tmux says "[server exited]" and exits 1. The
			// demo ended as asked; that is no error.
			fmt.Println("the demo was stopped")
			return nil
		}
		return fmt.Errorf("demo: attach: %w", err)
	}
	return nil
}

// stop ends the demo's tmux server (its panes' supervisors end their
// agents and remove their sockets on the hangup) and its files.
func (d demo) stop(ctx context.Context) error {
	if _, err := d.server().Run(ctx, "kill-server"); err != nil && d.running(ctx) {
		return fmt.Errorf("demo: %w", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := d.sessions(ctx)
		if err != nil {
			return err
		}
		if len(s) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("demo: %d demo sessions still answer 10s after their tmux server ended", len(s))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := os.RemoveAll(d.dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("demo: remove %s: %w", d.dir, err)
	}
	fmt.Println("the demo is stopped")
	return nil
}
