//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/sup-tmux/sup/internal/testutil"
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
	fake := testutil.BuildPackage(t, "./testdata/fakeagent")
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		// Programs run only with exec: a script line never calls sup as a
		// builtin by accident, and reads like the shell command it is.
		RequireExplicitExec: true,
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
			env.Setenv("PATH", filepath.Dir(fake)+string(os.PathListSeparator)+env.Getenv("PATH"))
			// sup demo's tmux server: private to the script, and killed
			// after it whatever happened.
			demo := fmt.Sprintf("sup-demo-test-%d-%s", os.Getpid(), filepath.Base(rt))
			env.Setenv("SUP_DEMO_SOCKET", demo)
			env.Defer(func() { _ = exec.Command("tmux", "-L", demo, "kill-server").Run() }) // Best effort: usually gone already.
			return nil
		},
	})
}
