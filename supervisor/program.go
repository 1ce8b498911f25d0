//go:build linux

package supervisor

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/classify"
	"github.com/sup-tmux/sup/supervisor/foreground"
	"github.com/sup-tmux/sup/supervisor/screen"
)

// lineLook is one look at a line-mode child (specs/detection.md, "Any
// program" and "Prompts of any program"): the pack's rules first — a
// question they read outranks the kernel's word — with the fact whether a
// program other than the login shell reads the terminal (`program:`),
// then the foreground process. A program reading its terminal with no
// rule for its screen is ready with its last line as summary, and a
// screen the model reader may read (modelLook, after the observe).
// skip: the model already read this screen; the caller observes nothing
// (the reading stands, applied by modelLook here).
func (w *watcher) lineLook(busyWindow time.Duration, poll *time.Duration) (res classify.Result, at time.Time, again time.Duration, snap screen.Snapshot, program, skip bool) {
	s, c, pack := w.s, w.c, w.pack
	facts, err := foreground.Sample(c.Master())
	if err != nil {
		facts = foreground.Facts{Wait: foreground.Unknown, Call: err.Error()}
	}
	program = facts.Wait == foreground.Reading && !w.atLoginShell(facts)
	// The screen is copied only when something reads it: a rule, or the
	// model for a program at its terminal. An idle `sleep` under the shell
	// profile copied its whole screen at every look (specs/performance.md,
	// "Idle fleet").
	if pack.HasRules() || program {
		snap = w.snapshot()
	}
	// Nothing is read from half a frame or a desynced screen (specs/
	// screen.md): the kernel's verdict below needs no screen.
	readable := !snap.InFrame && !snap.Desynced
	if pack.HasRules() && readable {
		if res = pack.ClassifyFacts(snap, classify.Facts{Program: program}); res.Matched {
			return res, w.noteScreen(res, pack, snap), 0, snap, false, false
		}
	}
	res, again = w.lineVerdict(facts, busyWindow, poll)
	program = program && res.Activity == activity.Ready && readable
	if program {
		res.Rule = strings.TrimPrefix(activity.ProgramRule, "screen:")
		res.Summary = classify.Salient(snap)
		if _, read := s.model.look(snap); read != nil {
			// Read before: the reading stands in for the kernel's ready.
			w.noteScreen(classify.Result{}, nil, screen.Snapshot{})
			if wait := w.modelLook(snap, res.Summary); wait > 0 {
				again = wait
			}
			return res, time.Time{}, again, snap, true, true
		}
	}
	return res, w.noteScreen(res, nil, screen.Snapshot{}), again, snap, program, false
}

// snapshot is the child's screen for a line-mode look: the last copy while
// the model has applied nothing and been fed nothing since (the screen of
// an idle program does not change between its looks), else a new one.
func (w *watcher) snapshot() screen.Snapshot {
	m := w.v.model
	key := snapKey{m.Changes(), m.Stats().FedBytes}
	if w.snapOK && key == w.snapKey {
		return w.snap
	}
	// The key is read before the copy: a change during it makes the next
	// look copy again.
	w.snap, w.snapKey, w.snapOK = m.Snapshot(), key, true
	return w.snap
}

// snapKey says which screen a snapshot copied (see screen.Model.Changes).
type snapKey struct {
	applied uint64
	fed     int64
}

// atLoginShell reports whether the foreground process group facts show
// is the login shell at its own prompt: the child is an interactive shell
// (loginShell, from its command line at spawn), leads the foreground
// group, and is still that shell (not a program it exec'ed).
func (w *watcher) atLoginShell(facts foreground.Facts) bool {
	if w.loginShell == "" || facts.Pgrp != w.c.PID() {
		return false
	}
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(w.c.PID()) + "/comm")
	return err != nil || strings.TrimSpace(string(comm)) == w.loginShell
}

// interactiveShell is the shell argv starts when it starts one for the
// human to type into — a shell (named in /etc/shells, or a common one)
// with options only, no script or -c command — else "".
func interactiveShell(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	name := filepath.Base(argv[0])
	if !isShell(name) {
		return ""
	}
	for _, a := range argv[1:] {
		if a == "-c" || !strings.HasPrefix(a, "-") {
			return ""
		}
	}
	if len(name) > 15 {
		name = name[:15] // /proc/PID/comm's length
	}
	return name
}

// commonShells are shells known without /etc/shells.
var commonShells = []string{"sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "tcsh", "csh", "ash", "busybox", "nu", "elvish", "xonsh", "pwsh"}

// isShell reports whether name is a shell: a common one or the base name
// of a line of /etc/shells.
func isShell(name string) bool {
	for _, sh := range commonShells {
		if name == sh {
			return true
		}
	}
	f, err := os.Open("/etc/shells")
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") && filepath.Base(l) == name {
			return true
		}
	}
	return false
}
