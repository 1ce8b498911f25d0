//go:build linux

package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/shellquote"
	"github.com/sup-tmux/sup/internal/tmux"
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

// Demo is one demo: its private tmux server and its documents.
type Demo struct {
	Socket     string // tmux -L name
	Dir        string // documents and the key snippet
	Self       string // this sup binary's path, which the panes and the agents run
	Keys       string // the tmux key bindings to source (sup's snippet)
	RuntimeDir string // where its supervisors' sockets are, checked
}

// server is the demo's private tmux server: its own even when sup demo
// runs inside another tmux, and the same whatever the user's ~/.tmux.conf
// says.
func (d Demo) server() tmux.Server {
	return tmux.Server{Name: d.Socket, Config: os.DevNull, Env: tmux.WithoutTmuxEnv(os.Environ()), Timeout: 10 * time.Second}
}

// SocketFlag repeats a non-default --socket in the commands it suggests.
func (d Demo) SocketFlag() string {
	if d.Socket == "sup-demo" {
		return ""
	}
	return " --socket " + d.Socket
}

func (d Demo) Running(ctx context.Context) bool {
	_, err := d.server().Run(ctx, "has-session", "-t", "="+demoSession)
	return err == nil
}

func (d Demo) Start(ctx context.Context) error {
	if d.Running(ctx) {
		fmt.Printf("the demo is already running on tmux -L %s\n", d.Socket)
		return nil
	}
	if err := os.MkdirAll(d.Dir, 0o700); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	self := d.Self
	keys := filepath.Join(d.Dir, "tmux.conf")
	if err := os.WriteFile(keys, []byte(d.Keys), 0o644); err != nil {
		return fmt.Errorf("demo: write key bindings: %w", err)
	}
	var panes []string
	for _, a := range demoAgents {
		doc := filepath.Join(d.Dir, a.role+".md")
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

// Sessions are the live sessions of the demo's documents.
func (d Demo) Sessions(ctx context.Context) ([]broker.Listing, error) {
	res, err := broker.Discover(ctx, d.RuntimeDir, broker.FanoutTimeout)
	var mine []broker.Listing
	for _, s := range res.Sessions {
		if filepath.Dir(s.State.Document) == d.Dir {
			mine = append(mine, s)
		}
	}
	return mine, err
}

func (d Demo) waitSessions(ctx context.Context, n int) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		s, err := d.Sessions(ctx)
		if err != nil {
			return err
		}
		if len(s) == n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("demo: %d of %d sessions came up within 15s; see tmux -L %s attach", len(s), n, d.Socket)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop ends the demo's tmux server (its panes' supervisors end their
// agents and remove their sockets on the hangup) and its files.
//
// find: the user named no server (no --socket): the demo is wherever its
// sessions run (their tmux_socket), else the default name's server. With
// a server named that holds no demo while the demo runs elsewhere, Stop
// names the servers that hold it and ends nothing (specs/broker.md, "The
// demo").
func (d Demo) Stop(ctx context.Context, find bool) error {
	mine, err := d.Sessions(ctx)
	if err != nil {
		return err
	}
	var servers []string // the tmux servers (socket paths) the demo's sessions run in
	for _, s := range mine {
		if sock := s.State.TmuxSocket; sock != "" && !slices.Contains(servers, sock) {
			servers = append(servers, sock)
		}
	}
	targets := []tmux.Server{d.server()}
	switch {
	case find && len(servers) > 0:
		targets = nil
		for _, sock := range servers {
			targets = append(targets, tmux.Server{Socket: sock, Config: os.DevNull, Env: tmux.WithoutTmuxEnv(os.Environ()), Timeout: 10 * time.Second})
		}
	case !d.Running(ctx) && len(servers) > 0:
		var flags []string
		for _, sock := range servers {
			flags = append(flags, "sup demo --stop --socket "+shellquote.Join(filepath.Base(sock)))
		}
		return fmt.Errorf("demo: no demo runs on tmux -L %s; its sessions run in %s: %s (or sup demo --stop alone finds it)",
			d.Socket, strings.Join(servers, ", "), strings.Join(flags, "; "))
	}
	for _, srv := range targets {
		if _, err := srv.Run(ctx, "has-session", "-t", "="+demoSession); err != nil {
			continue // not this server's, or gone: nothing to end
		}
		if _, err := srv.Run(ctx, "kill-session", "-t", "="+demoSession); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		// The demo's own server ends with its last session; a server
		// that holds other sessions (the demo was started in it) stays.
		if out, err := srv.Run(ctx, "list-sessions", "-F", "#{session_name}"); err == nil && strings.TrimSpace(out) == "" {
			_, _ = srv.Run(ctx, "kill-server") // Best effort: it exits by itself once empty.
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := d.Sessions(ctx)
		if err != nil {
			return err
		}
		if len(s) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("demo: %d demo sessions still answer 10s after their tmux session ended: sup ls shows where they run", len(s))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := os.RemoveAll(d.Dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("demo: remove %s: %w", d.Dir, err)
	}
	fmt.Println("the demo is stopped")
	return nil
}

// Attach attaches the terminal to the demo's session; without a terminal,
// with noAttach or inside tmux it says how instead.
func (d Demo) Attach(ctx context.Context, noAttach bool) error {
	attach := []string{"tmux", "-L", d.Socket, "attach-session", "-t", demoSession}
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
		if !d.Running(ctx) {
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
