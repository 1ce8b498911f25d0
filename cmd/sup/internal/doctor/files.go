//go:build linux

package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor"
)

// checkConfig loads config.yaml and every user profile with sup's own
// loaders, so a failure reads exactly as `sup start` would say it (with
// file:line).
func checkConfig(ctx context.Context, o *Options) []Finding {
	var out []Finding
	path := paths.ConfigFile(o.ConfigDir)
	if _, err := plan.LoadConfig(o.ConfigDir); err != nil {
		out = append(out, Finding{Check: "config", Severity: Problem, Subject: path, Message: err.Error(),
			Fix: "edit " + path + " (keys: specs/supervisor.md)"})
	} else if _, err := os.Stat(path); err == nil {
		out = append(out, Finding{Check: "config", Severity: OK, Subject: path, Message: path + " loads"})
	}
	users, _ := filepath.Glob(filepath.Join(paths.ProfilesDir(o.ConfigDir), "*.yaml")) // Best effort: the pattern is valid.
	for _, p := range users {
		name := strings.TrimSuffix(filepath.Base(p), ".yaml")
		if _, _, err := supervisor.LoadProfile(o.ConfigDir, name); err != nil {
			out = append(out, Finding{Check: "profile", Severity: Problem, Subject: p, Message: err.Error(),
				Fix: "edit " + p})
			continue
		}
		out = append(out, Finding{Check: "profile", Severity: OK, Subject: p, Message: "profile " + name + " loads"})
	}
	return out
}

// checkDisk measures the session logs and the audit against their caps;
// with o.Fix it prunes the ended sessions' logs the limits allow.
func checkDisk(ctx context.Context, o *Options) []Finding {
	lim := o.Limits
	var out []Finding
	u, err := store.Logs(o.StateDir)
	if err != nil {
		return []Finding{{Check: "logs", Severity: Warning, Subject: o.StateDir, Message: err.Error()}}
	}
	live := func(id string) bool { return ipc.SessionLive(o.RuntimeDir, id) }
	plan, err := store.PlanPrune(o.StateDir, lim.Log, o.Now, live)
	if err != nil {
		return []Finding{{Check: "logs", Severity: Warning, Subject: o.StateDir, Message: err.Error()}}
	}
	f := Finding{Check: "logs", Severity: OK, Subject: o.StateDir,
		Message: fmt.Sprintf("session logs: %s in %s (cap %s; ended sessions kept %d days)",
			mb(u.Bytes), plural(u.Sessions, "session"), lim.Log.MaxTotal, lim.Log.KeepDays)}
	if len(plan) > 0 {
		var freed int64
		for _, r := range plan {
			freed += r.Bytes
		}
		f.Severity, f.Fixable = Warning, true
		f.Message += fmt.Sprintf("; %s of ended sessions' logs are past the limits", plural(len(plan), "file"))
		f.Fix = fmt.Sprintf("sup doctor --fix prunes them (%s; the next sup start does too)", mb(freed))
		if o.Fix {
			done, err := store.PruneLogs(o.StateDir, lim.Log, o.Now, live)
			var n int64
			for _, r := range done {
				n += r.Bytes
			}
			f.Fixed = fmt.Sprintf("pruned %s (%s)", plural(len(done), "log file"), mb(n))
			if err != nil {
				f.Fixed += "; " + err.Error()
			}
		}
	}
	out = append(out, f)
	return append(out, auditFinding(o))
}

func auditFinding(o *Options) Finding {
	lim := o.Limits.Audit
	a, err := store.AuditUsage(o.StateDir)
	if err != nil {
		return Finding{Check: "audit", Severity: Warning, Subject: o.StateDir, Message: err.Error()}
	}
	f := Finding{Check: "audit", Severity: OK, Subject: o.StateDir,
		Message: fmt.Sprintf("audit: %s in %s (rotates at %s, keeps %d)", mb(a.Bytes), plural(a.Files, "file"), lim.MaxSize, lim.Keep)}
	if a.Rotated > lim.Keep {
		f.Severity = Info
		f.Message += fmt.Sprintf("; %d rotated files, more than audit.keep: the next rotation removes the oldest", a.Rotated)
	}
	return f
}

func mb(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/float64(store.MiB))
}
