// Package tmuxkeys is `sup tmux-keys`: the tmux key bindings of the stuck
// queue, and their installation.
//
// Invariants:
//   - The bindings run sup by its absolute path, shell-quoted, so
//     run-shell's PATH never matters, and move only the client that
//     pressed the key (#{client_name}).
//   - Install writes the bindings to their own file and appends one
//     source-file line to ~/.tmux.conf unless it is there already: running
//     it twice changes nothing, and the user's file is appended to, never
//     rewritten.
package tmuxkeys

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/shellquote"
)

// Snippet is the tmux configuration that binds the queue's keys. sup
// is the absolute path of this binary, so run-shell's PATH never matters;
// run-shell expands #{client_name}, so the client that pressed the key is
// the one that moves.
func Snippet(sup string) string {
	q := shellquote.Quote(sup)
	return fmt.Sprintf(`# sup: the stuck queue's keys (written by sup tmux-keys; see specs/broker.md)
# prefix+Tab: jump to the session that has waited on you longest
bind-key Tab run-shell -b "%[1]s next --client '#{client_name}' --display"
# prefix+g: pick from the queue in a popup, with a live preview
bind-key g run-shell -b "tmux display-popup -c '#{client_name}' -w 90%% -h 80%% -E \"%[1]s pick --client '#{client_name}'\""
# prefix+S: skip the head for a while and jump to the next one
bind-key S run-shell -b "%[1]s skip --client '#{client_name}' --display"
# The status segment is yours to place, e.g.:
#   set-option -g status-right '#(%[1]s status-line) %%H:%%M'
#   set-option -g status-interval 5
`, q)
}

// Installed is what Install did: the bindings' file, the tmux.conf that
// sources it and the line it added ("" when it was there already).
type Installed struct {
	Keys, Conf, Added string
}

// Install writes snippet to configDir/tmux.conf and adds one source-file
// line for it to ~/.tmux.conf (home: os.UserHomeDir) unless it is there
// already.
func Install(snippet, configDir string, home func() (string, error)) (Installed, error) {
	if err := os.MkdirAll(configDir, 0o755); err != nil {
		return Installed{}, fmt.Errorf("tmux-keys: %w", err)
	}
	in := Installed{Keys: paths.TmuxKeys(configDir)}
	if err := os.WriteFile(in.Keys, []byte(snippet), 0o644); err != nil {
		return in, fmt.Errorf("tmux-keys: write %s: %w", in.Keys, err)
	}
	h, err := home()
	if err != nil {
		return in, fmt.Errorf("tmux-keys: find ~/.tmux.conf: %w", err)
	}
	in.Conf = filepath.Join(h, ".tmux.conf")
	line := "source-file " + shellquote.Quote(in.Keys)
	old, err := os.ReadFile(in.Conf)
	if err != nil && !os.IsNotExist(err) {
		return in, fmt.Errorf("tmux-keys: read %s: %w", in.Conf, err)
	}
	for _, l := range bytes.Split(old, []byte("\n")) {
		if strings.TrimSpace(string(l)) == line {
			return in, nil
		}
	}
	f, err := os.OpenFile(in.Conf, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return in, fmt.Errorf("tmux-keys: %w", err)
	}
	add := line + "\n"
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		add = "\n" + add
	}
	if _, err := f.WriteString(add); err != nil {
		f.Close()
		return in, fmt.Errorf("tmux-keys: append to %s: %w", in.Conf, err)
	}
	if err := f.Close(); err != nil {
		return in, fmt.Errorf("tmux-keys: append to %s: %w", in.Conf, err)
	}
	in.Added = line
	return in, nil
}
