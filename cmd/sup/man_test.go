//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// TestManPage: `sup man` is a page man(1) reads without a warning, and
// it holds every visible command and flag of the tree.
func TestManPage(t *testing.T) {
	manBin, err := exec.LookPath("man")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("man is not installed (.ci/run installs man-db)")
		}
		t.Skip("man is not installed (apt-get install man-db)")
	}
	page := filepath.Join(t.TempDir(), "sup.1")
	app := newApp(nil)
	var roff bytes.Buffer
	if err := writeMan(&roff, app); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, roff.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(manBin, "--warnings", "-E", "UTF-8", "-l", page)
	cmd.Env = append(os.Environ(), "MANWIDTH=200", "MANPAGER=cat", "PAGER=cat", "MAN_KEEP_FORMATTING=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("man -l: %v: %s", err, stderr.String())
	}
	text := stdout.String()
	var walk func(cmds []*cli.Command, parent string)
	walk = func(cmds []*cli.Command, parent string) {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			name := parent + " " + c.Name
			if !strings.Contains(text, name) {
				t.Errorf("the man page lacks %q", name)
			}
			for _, f := range c.VisibleFlags() {
				if n := f.Names()[0]; n != "help" && !strings.Contains(text, dashed(n)) {
					t.Errorf("the man page lacks %s's flag %s", name, dashed(n))
				}
			}
			walk(c.Commands, name)
		}
	}
	walk(app.Commands, "sup")
	for _, want := range []string{"EXIT STATUS", "ENVIRONMENT", "SUP_RUNTIME_DIR", "sup route"} {
		if !strings.Contains(text, want) {
			t.Errorf("the man page lacks %q", want)
		}
	}
}
