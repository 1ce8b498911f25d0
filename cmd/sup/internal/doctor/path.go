//go:build linux

package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// checkPath: the sup that runs is the one a shell finds as `sup`. A
// `make install` into a directory that is not on PATH (~/.local/bin on a
// fresh Debian) leaves every `sup …` a README shows failing with "sup: not
// found" while `make demo` itself worked.
func checkPath(_ context.Context, o *Options) []Finding {
	self := o.Executable
	if self == "" {
		return nil
	}
	onPath := lookPath(o, "sup")
	if onPath == "" {
		dir := filepath.Dir(self)
		return []Finding{{Check: "path", Severity: Warning, Subject: self,
			Message: fmt.Sprintf("sup is not on PATH (this one is %s): `sup …` in a shell says \"not found\"", self),
			Fix:     PathFix(dir)}}
	}
	a, errA := filepath.EvalSymlinks(onPath)
	b, errB := filepath.EvalSymlinks(self)
	if errA == nil && errB == nil && a != b {
		if sameFile(a, b) {
			return []Finding{{Check: "path", Severity: OK, Subject: onPath, Message: "sup on PATH is " + onPath}}
		}
		return []Finding{{Check: "path", Severity: Warning, Subject: onPath,
			Message: fmt.Sprintf("the sup on PATH is %s, not this one (%s): it may be another version", onPath, self),
			Fix:     fmt.Sprintf("put %s first on PATH, or reinstall (make install)", filepath.Dir(self))}}
	}
	return []Finding{{Check: "path", Severity: OK, Subject: onPath, Message: "sup on PATH is " + onPath}}
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// PathFix is the exact line that puts dir on PATH for login shells, in
// the form `make install` prints too: $HOME spelled as such when dir is
// under it, so the line is right on any machine it is copied to.
func PathFix(dir string) string {
	home := os.Getenv("HOME")
	shown := dir
	if home != "" && strings.HasPrefix(dir, home+"/") {
		shown = "$HOME" + strings.TrimPrefix(dir, home)
	}
	return fmt.Sprintf(`echo 'export PATH="%s:$PATH"' >> ~/.profile, then open a new shell (or run: export PATH="%s:$PATH")`, shown, dir)
}
