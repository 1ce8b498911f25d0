//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestHooksInstallFailedWriteLeavesNoBackup: a user's settings file is a
// symlink to a file of theirs in a directory they may not create files in
// (a shared dotfiles dir): the backup beside the link is written, the
// atomic replace at the target fails (EACCES). sup says so, the file is
// unchanged, and neither the backup nor a temporary file is left. Runs as
// uid 65534 (setpriv), since root may create files anywhere.
func TestHooksInstallFailedWriteLeavesNoBackup(t *testing.T) {
	t.Parallel()
	setpriv := testutil.Setpriv(t)
	base, err := os.MkdirTemp("", "sup-hooks-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	sup := filepath.Join(base, "sup")
	data, err := os.ReadFile(testutil.Build(t).Sup)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sup, data, 0o755); err != nil {
		t.Fatal(err)
	}
	home, shared := filepath.Join(base, "home"), filepath.Join(base, "shared")
	claude := filepath.Join(home, ".claude")
	for _, d := range []string{claude, shared} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(shared, "claude.json")
	const orig = `{"model": "opus"}`
	if err := os.WriteFile(target, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(claude, "settings.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	// The user owns their home and the file; shared stays root's.
	for _, p := range []string{home, claude, target} {
		if err := os.Lchown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	os.Lchown(link, 65534, 65534)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
		sup, "hooks", "install", "claude", "--user", "--sup-path", "/opt/bin/sup")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err == nil {
		t.Fatalf("install through a link into a directory it cannot write succeeded:\n%s", stdout.String())
	}
	for _, want := range []string{"write " + target, "permission denied", "the file is as it was; no backup kept"} {
		if !strings.Contains(stderr.String(), want) {
			t.Fatalf("stderr %q does not say %q", stderr.String(), want)
		}
	}
	if got, _ := os.ReadFile(target); string(got) != orig {
		t.Fatalf("the settings file changed: %q", got)
	}
	for _, dir := range []string{claude, shared} {
		es, _ := os.ReadDir(dir)
		if len(es) != 1 {
			var names []string
			for _, e := range es {
				names = append(names, e.Name())
			}
			t.Fatalf("%s holds %v, want only the settings file (no backup, no temporary)", dir, names)
		}
	}
}
