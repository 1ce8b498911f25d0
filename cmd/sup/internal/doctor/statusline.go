//go:build linux

package doctor

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sup-tmux/sup/internal/shellquote"
	"github.com/sup-tmux/sup/internal/tmux"
)

// statusJob is a `#(PROG … status-line …)` in a tmux status option.
var statusJob = regexp.MustCompile(`#\(\s*([^\s)]+)[^)]*\bstatus-line\b`)

// checkStatusLine: a `#(sup status-line)` in the server's status-right or
// status-left runs with the tmux server's environment, not the shell's:
// when the server's PATH predates the install, the segment shows nothing
// and nobody says why (issue 32). Each PROG must resolve there.
func checkStatusLine(ctx context.Context, o *Options, srv tmux.Server) []Finding {
	var out []Finding
	for _, opt := range []string{"status-right", "status-left"} {
		v, err := srv.Run(ctx, "show-options", "-gv", opt)
		if err != nil {
			continue
		}
		m := statusJob.FindStringSubmatch(v)
		if m == nil {
			continue
		}
		prog := m[1]
		path := ""
		if env, err := srv.Run(ctx, "show-environment", "-g", "PATH"); err == nil {
			path, _ = strings.CutPrefix(strings.TrimSpace(env), "PATH=")
		}
		if found := resolve(prog, path); found != "" {
			out = append(out, Finding{Check: "tmux", Severity: OK, Subject: opt,
				Message: fmt.Sprintf("%s runs %s status-line (%s)", opt, prog, found)})
			continue
		}
		why := fmt.Sprintf("%s runs %s status-line, but the tmux server finds no %s (its PATH: %s): the segment shows nothing", opt, prog, prog, cmp.Or(path, "unset"))
		if strings.Contains(prog, "/") {
			why = fmt.Sprintf("%s runs %s status-line, which is not an executable file: the segment shows nothing", opt, prog)
		}
		self := cmp.Or(o.Executable, "/path/to/sup")
		fixed := strings.Replace(v, m[0], strings.Replace(m[0], prog, shellquote.Quote(self), 1), 1)
		out = append(out, Finding{Check: "tmux", Severity: Problem, Subject: opt, Message: why,
			Fix: fmt.Sprintf("name sup by its absolute path in ~/.tmux.conf: set-option -g %s %s (then tmux source-file ~/.tmux.conf)", opt, shellquote.Quote(fixed))})
	}
	return out
}

// resolve is prog's executable file as a shell with PATH path finds it;
// "" when none.
func resolve(prog, path string) string {
	if strings.Contains(prog, "/") {
		if executableFile(prog) {
			return prog
		}
		return ""
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, prog); executableFile(p) {
			return p
		}
	}
	return ""
}

func executableFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
