package tmuxkeys

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Install appends one source-file line to the user's tmux.conf (after a
// missing final newline), keeps what was there, and adds nothing the
// second time.
func TestInstallTwice(t *testing.T) {
	cfg, home := filepath.Join(t.TempDir(), "sup"), t.TempDir()
	conf := filepath.Join(home, ".tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g mouse on"), 0o644); err != nil {
		t.Fatal(err)
	}
	homeDir := func() (string, error) { return home, nil }
	in, err := Install(Snippet("/opt/my sup"), cfg, homeDir)
	if err != nil || in.Added != "source-file "+filepath.Join(cfg, "tmux.conf") || in.Conf != conf {
		t.Fatalf("first install: %+v, %v", in, err)
	}
	if in, err = Install(Snippet("/opt/my sup"), cfg, homeDir); err != nil || in.Added != "" {
		t.Fatalf("second install: %+v, %v", in, err)
	}
	b, _ := os.ReadFile(conf)
	if want := "set -g mouse on\n" + "source-file " + filepath.Join(cfg, "tmux.conf") + "\n"; string(b) != want {
		t.Errorf("tmux.conf %q, want %q", b, want)
	}
	keys, _ := os.ReadFile(in.Keys)
	if !strings.Contains(string(keys), `'/opt/my sup' next --client`) {
		t.Errorf("bindings do not run the quoted sup:\n%s", keys)
	}
}
