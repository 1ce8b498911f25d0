//go:build linux

package tmux_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/internal/tmux"
)

func TestCaller(t *testing.T) {
	env := map[string]string{"TMUX": "/tmp/tmux-0/default,123,0"}
	if got := tmux.Caller(func(k string) string { return env[k] }).Socket; got != "/tmp/tmux-0/default" {
		t.Errorf("Caller = %q", got)
	}
	if got := tmux.Caller(func(string) string { return "" }); got.Socket != "" {
		t.Errorf("outside tmux Caller = %+v", got)
	}
}

// TestRawRefusesExpanding: the commands that expand an argument as a
// format cannot be built from plain strings.
func TestRawRefusesExpanding(t *testing.T) {
	srv := tmux.Server{Name: "sup-never-started"}
	for _, args := range [][]string{
		{"display-message", "x"}, {"display", "-p", "x"}, {"new-window", "-n", "x"}, {"new-session"},
		{"rename-window", "x"}, {"set-option", "-g", "status-right", "x"}, {"setw", "x"},
		{"split-window"}, {"run-shell", "x"}, {"respawn-pane", "-c", "/tmp", "x"},
		{"list-clients", ";", "display", "x"},
	} {
		if _, err := srv.Run(context.Background(), args...); err == nil || !strings.Contains(err.Error(), "tmux") {
			t.Errorf("Run(%q) = %v, want a refusal", args, err)
		}
	}
}

// TestHostileShownAsWritten: every builder that takes data shows the
// hostile corpus as written on a real tmux server, and no #(…) runs.
// TestSemicolonIsData: a word that ends in ";" (a name, a directory, a
// message from session data) is that text, not the end of a tmux command
// (found by the attack review: `sup route --role 'x;'` split new-window).
func TestSemicolonIsData(t *testing.T) {
	tm := testutil.NewTmux(t)
	srv := tmux.Server{Name: tm.Name, Env: tmux.WithoutTmuxEnv(os.Environ())}
	ctx := context.Background()
	for _, name := range []string{"x;", `a\;`, "two;;", "semi; colon"} {
		pane, err := srv.NewWindow(ctx, tmux.Window{Target: "main:", Name: name, Detached: true, Print: "#{pane_id}", Command: "sleep 30"})
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if got, err := srv.Query(ctx, pane, "#{window_name}"); err != nil || got != name {
			t.Errorf("window named %q, %v; want %q", got, err, name)
		}
		if got, err := srv.Exec(ctx, tmux.Authored("display-message", "-p", "--", tmux.Escape(name))); err != nil || got != name {
			t.Errorf("displayed %q, %v; want %q", got, err, name)
		}
	}
}

func TestHostileShownAsWritten(t *testing.T) {
	tm := testutil.NewTmux(t)
	srv := tmux.Server{Name: tm.Name, Env: tmux.WithoutTmuxEnv(os.Environ())}
	ctx := context.Background()
	touch := filepath.Join(t.TempDir(), "pwned")
	for _, h := range testutil.HostileFor(touch) {
		if h.Name == "bigline" {
			continue // beyond tmux's command size; the sanitiser caps fields first
		}
		// display-message -p prints what Display would show.
		got, err := srv.Exec(ctx, tmux.Authored("display-message", "-p", "--", tmux.Escape(h.Text)))
		if err != nil {
			t.Fatal(err)
		}
		// tmux keeps ##[ doubled in an expanded format so that the style
		// parser, which draws it, shows it as #[: either way, never a style.
		want := strings.ReplaceAll(h.Text, "#[", "##[")
		if got != want && !strings.ContainsAny(h.Text, "\x00\n\r\t\x1b\x7f\u009b\xff") {
			t.Errorf("%s: displayed as %q, want %q", h.Name, got, want)
		}
		if !strings.ContainsAny(h.Text, "\n") {
			pane, err := srv.NewWindow(ctx, tmux.Window{Target: "main:", Name: h.Text, Detached: true, Print: "#{pane_id}", Command: "sleep 30"})
			if err != nil {
				t.Fatalf("%s: %v", h.Name, err)
			}
			name, err := srv.Query(ctx, pane, "#{window_name}")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(h.Text, "#") && name != want {
				t.Errorf("%s: window named %q, want %q", h.Name, name, want)
			}
		}
	}
	sess := "ws #(touch " + touch + ") #{pane_id}"
	if _, err := srv.NewWindow(ctx, tmux.Window{NewSession: true, Session: sess, Name: "r#{pane_id}", Detached: true, Command: "sleep 30"}); err != nil {
		t.Fatal(err)
	}
	if out, _ := srv.Run(ctx, "list-sessions", "-F", "#{session_name}"); !strings.Contains(out, "ws #(touch") {
		t.Errorf("sessions %q, want one named as written", out)
	}
	cmd, err := tmux.SetUserOptionCmd("main:", "@sup_remote", "h:#(touch "+touch+")")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Exec(ctx, cmd); err != nil {
		t.Fatal(err)
	}
	if got, _ := srv.Query(ctx, "main:", "#{@sup_remote}"); got != "h:#(touch "+touch+")" {
		t.Errorf("user option read back %q", got)
	}
	if _, err := os.Stat(touch); err == nil {
		t.Fatal("a #(touch) ran")
	}
}

// TestStatusJobOutputEscaped: tmux scans a #() job's output in
// status-right for #[…] styles and draws ## as #, so sup status-line
// doubles every # of its line: an attached client shows the text as
// written (and, unescaped, does not: the style applies).
func TestStatusJobOutputEscaped(t *testing.T) {
	tm := testutil.NewTmux(t)
	script := filepath.Join(t.TempDir(), "line.sh")
	line := "next: a#[fg=red]b#{pane_id}c"
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s' '"+tmux.Escape(line)+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := tm.Server()
	if _, err := srv.Exec(context.Background(), tmux.SetOptionCmd([]string{"-g"}, "status-right-length", "80"),
		tmux.SetOptionCmd([]string{"-g"}, "status-right", tmux.Format("#("+script+")")),
		tmux.SetOptionCmd([]string{"-g"}, "status", "on")); err != nil {
		t.Fatal(err)
	}
	c := tm.AttachClient(t)
	testutil.WaitUntil(t, 10*time.Second, "the status line to show "+line, func() bool {
		return strings.Contains(c.Output(), line)
	})
}
