//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/internal/tmux"
	"github.com/sup-tmux/sup/ipc"
)

func TestMain(m *testing.M) {
	code := testscript.RunMain(m, map[string]func() int{
		"sup": func() int { return run(context.Background(), os.Args) },
	})
	testutil.RemoveBuilds()
	os.Exit(code)
}

// TestScripts runs the CLI specifications in testdata/script. Each script
// gets a private HOME, config, state and runtime dir, and fakeagent in PATH.
func TestScripts(t *testing.T) {
	t.Parallel()
	fake := testutil.FakeAgent(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		// Programs run only with exec: a script line never calls sup as a
		// builtin by accident, and reads like the shell command it is.
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"hold-port":       holdPort,
			"stale-socket":    staleSocket,
			"fake-model":      fakeModel,
			"waitfor":         waitFor,
			"wait-activity":   waitActivity,
			"wait-session":    waitSession,
			"wait-screen":     waitScreen,
			"exits":           exits,
			"wait-pane-title": waitPaneTitle,
		},
		Setup: func(env *testscript.Env) error {
			// Socket paths must stay under 108 bytes; $WORK is long.
			rt, err := os.MkdirTemp("", "sup-rt-")
			if err != nil {
				return err
			}
			env.Defer(func() { os.RemoveAll(rt) })
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, "config"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, "state"))
			env.Setenv("SUP_RUNTIME_DIR", rt)
			// A script's environment is testscript's own few variables:
			// GORACE (testutil: no second of sleep at a race-built exit)
			// is carried over, or every sup a script runs pays it.
			if g := os.Getenv("GORACE"); g != "" {
				env.Setenv("GORACE", g)
			}
			env.Setenv("PATH", filepath.Dir(fake)+string(os.PathListSeparator)+env.Getenv("PATH"))
			// sup demo's tmux server: private to the script, and killed
			// after it whatever happened.
			demo := fmt.Sprintf("sup-demo-test-%d-%s", os.Getpid(), filepath.Base(rt))
			env.Setenv("SUP_DEMO_SOCKET", demo)
			env.Defer(func() {
				_, _ = tmux.Server{Name: demo}.Run(context.Background(), "kill-server") // Best effort: usually gone already.
				_ = os.Remove(testutil.TmuxSocketPath(demo))                            // Best effort: the dead server's socket file.
			})
			// CLEAN_PATH: sup and tmux only, for scripts that must not see
			// agent CLIs installed on the machine (doctor).
			var clean []string
			for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
				if _, err := os.Stat(filepath.Join(dir, "sup")); err == nil {
					clean = append(clean, dir) // testscript's sup
					break
				}
			}
			if len(clean) > 0 {
				env.Setenv("SUP_BIN", filepath.Join(clean[0], "sup"))
			}
			// NOSUP_PATH: tmux and the system, but no sup (not_on_path).
			nosup := []string{"/usr/bin", "/bin"}
			if tmux, err := exec.LookPath("tmux"); err == nil {
				clean = append(clean, filepath.Dir(tmux))
				nosup = append([]string{filepath.Dir(tmux)}, nosup...)
			}
			env.Setenv("NOSUP_PATH", strings.Join(nosup, string(os.PathListSeparator)))
			env.Setenv("CLEAN_PATH", strings.Join(clean, string(os.PathListSeparator)))
			return nil
		},
	})
}

// exits N PROG ARGS... runs PROG as exec does (its stdout and stderr for
// the next lines to match) and fails unless it exits with status N.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: status %q: %v", args[0], err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

// fakeModel [REPLY] starts the loopback model stand-in (once per script;
// $MODEL_URL is its base URL) and queues REPLY as its next chat answer.
func fakeModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: fake-model [REPLY]")
	}
	if ts.Getenv("MODEL_URL") == "" {
		fm, err := fakemodel.Start()
		if err != nil {
			ts.Fatalf("fake-model: %v", err)
		}
		ts.Defer(func() { fm.Close() })
		ts.Setenv("MODEL_URL", fm.URL)
		fakeModels.Store(fm.URL, fm)
	}
	if len(args) == 1 {
		fm, _ := fakeModels.Load(ts.Getenv("MODEL_URL"))
		fm.(*fakemodel.Server).Queue(fakemodel.Turn{Text: args[0]})
	}
}

// fakeModels are the scripts' running stand-ins by URL.
var fakeModels sync.Map

// staleSocket PATH leaves a socket file nobody listens on, as a SIGKILLed
// supervisor does.
func staleSocket(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: stale-socket PATH")
	}
	ts.Check(testutil.LeaveStaleSocket(ts.MkAbs(args[0])))
}

// holdPort is the script command `hold-port VAR`: it listens on a free
// loopback port for the rest of the script and sets $VAR to its address,
// so a script can show what a port in use does.
func holdPort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: hold-port VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	ts.Defer(func() { ln.Close() })
	ts.Setenv(args[0], ln.Addr().String())
}

// waitFor is the script command `waitfor GLOB`: it waits up to 10 s for a
// file matching GLOB (environment variables expanded by the script), so a
// script can wait for a background supervisor's socket.
func waitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfor GLOB")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m, _ := filepath.Glob(ts.MkAbs(args[0])); len(m) > 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfor %s: nothing matched in 10s", args[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitPaneTitle is the script command `wait-pane-title REGEXP`: it waits
// up to 15 s until a pane of the demo's tmux server ($SUP_DEMO_SOCKET)
// has a title matching REGEXP. A title is the agent's word about a phase
// that ends (the demo coder thinks for 45 s), so a script checks it while
// it lasts instead of after whatever came before it (a loaded run's 50 s).
func waitPaneTitle(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: wait-pane-title REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[0])
	if err != nil {
		ts.Fatalf("wait-pane-title: %v", err)
	}
	srv := tmux.Server{Name: ts.Getenv("SUP_DEMO_SOCKET")}
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, _ := srv.Run(context.Background(), "list-panes", "-a", "-F", "#{pane_title}")
		if re.MatchString(out) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("wait-pane-title %s: pane titles after 15s:\n%s", args[0], out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitScreen is the script command `wait-screen NAME REGEXP`: it waits up
// to 15 s until the screen of the session NAME matches REGEXP, for a step
// whose end is on the screen: `wait-activity NAME ready` can read a ready
// that a late hook of the turn before reports while the next turn runs
// (demo_verbs beside two busy loops: ready, with the agent still
// thinking on screen).
func waitScreen(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: wait-screen NAME REGEXP")
	}
	re, err := regexp.Compile(args[1])
	if err != nil {
		ts.Fatalf("wait-screen: %v", err)
	}
	last := ""
	if _, ok := waitListed(ts, args[0], func(s broker.Listing) bool {
		c, err := ipc.Dial(s.Socket, 2*time.Second)
		if err != nil {
			return false
		}
		defer c.Close()
		var sc ipc.ScreenResult
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if c.Call(ctx, ipc.MethodScreen, nil, &sc) == nil {
			last = sc.Text
		}
		return re.MatchString(last)
	}); !ok {
		ts.Fatalf("wait-screen %s %s: no match after 15s; last screen:\n%s", args[0], args[1], last)
	}
}

// waitActivity is the script command `wait-activity NAME ACTIVITY`: it
// waits up to 15 s until the session NAME reports ACTIVITY.
func waitActivity(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: wait-activity NAME ACTIVITY")
	}
	if last, ok := waitListed(ts, args[0], func(s broker.Listing) bool { return s.State.Activity == args[1] }); !ok {
		ts.Fatalf("wait-activity %s %s: still %q after 15s", args[0], args[1], last.Activity)
	}
}

// waitSession is the script command `wait-session NAME`: it waits up to
// 15 s until the session NAME answers. Its socket file appears a moment
// before it listens (bind, chmod, then listen), and a verb in between
// finds no session (trigger_errors after `waitfor *.sock`, run 78).
func waitSession(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: wait-session NAME")
	}
	if _, ok := waitListed(ts, args[0], func(broker.Listing) bool { return true }); !ok {
		ts.Fatalf("wait-session %s: no session %s answered in 15s", args[0], args[0])
	}
}

// waitListed lists the sessions every 50 ms for up to 15 s until ok
// accepts the one called name; it returns that session's last state.
func waitListed(ts *testscript.TestScript, name string, ok func(broker.Listing) bool) (ipc.State, bool) {
	deadline := time.Now().Add(15 * time.Second)
	var last ipc.State
	for {
		res, _ := broker.Discover(context.Background(), ts.Getenv("SUP_RUNTIME_DIR"), 2*time.Second)
		for _, s := range res.Sessions {
			if s.State.Name == name {
				last = s.State
				if ok(s) {
					return last, true
				}
			}
		}
		if time.Now().After(deadline) {
			return last, false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
