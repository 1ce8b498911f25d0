//go:build linux

// Package doctor checks a sup installation and says what to do: runtime
// dir and sockets, stale files, tmux, the agent CLIs and their hooks,
// config and profile files, and the disk the logs and the audit take.
// `sup doctor` prints its findings; with fix it does only the safe repairs
// (removing stale sockets and queue files, pruning ended sessions' logs).
package doctor

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/internal/store"
)

// Severity ranks a finding.
type Severity string

// The severities. Only a problem makes `sup doctor` exit 1.
const (
	OK      Severity = "ok"
	Info    Severity = "info"    // worth knowing, nothing to do
	Warning Severity = "warning" // sup works, but less well than it could
	Problem Severity = "problem" // something is broken or left behind
)

// Finding is one line of the report.
type Finding struct {
	Check    string   `json:"check"` // path, runtime_dir, socket, queue_file, tmux, agent, hooks, config, profile, logs, audit, model
	Severity Severity `json:"severity"`
	Subject  string   `json:"subject"` // the path or name the finding is about
	Message  string   `json:"message"`
	Fix      string   `json:"fix,omitempty"`     // what to do
	Fixable  bool     `json:"fixable,omitempty"` // `sup doctor --fix` does it
	Fixed    string   `json:"fixed,omitempty"`   // what --fix did
}

// Options is where and how to check. Zero fields are filled by Run from
// Getenv.
type Options struct {
	Getenv     func(string) string
	RuntimeDir string
	StateDir   string
	ConfigDir  string
	ProjectDir string       // whose project hook settings to check ("" : none)
	Limits     store.Limits // the caps the logs and audit are measured against
	Now        time.Time
	Fix        bool
	// Timeout bounds each external command (tmux, `AGENT --version`).
	Timeout time.Duration
	// Executable is the running sup ("": the path check is skipped).
	Executable string
}

func (o *Options) fill() {
	if o.RuntimeDir == "" {
		o.RuntimeDir = paths.RuntimeDir(o.Getenv)
	}
	if o.StateDir == "" {
		o.StateDir = paths.StateDir(o.Getenv)
	}
	if o.ConfigDir == "" {
		o.ConfigDir = paths.ConfigDir(o.Getenv)
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Timeout <= 0 {
		o.Timeout = 3 * time.Second
	}
	o.Limits = o.Limits.WithDefaults()
}

// check is one group of findings; they run concurrently (the agents'
// --version alone take a few hundred ms each).
type check func(ctx context.Context, o *Options) []Finding

// Run runs every check and returns the findings in a stable order: by
// check, then subject.
func Run(ctx context.Context, o Options) []Finding {
	o.fill()
	checks := []check{checkPath, checkRuntime, checkCaller, checkTmux, checkAgents, checkConfig, checkDisk, checkModel}
	results := make([][]Finding, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = c(ctx, &o)
		}()
	}
	wg.Wait()
	var all []Finding
	for _, r := range results {
		all = append(all, r...)
	}
	return all
}

// HasProblem says whether any finding is a problem (exit 1).
func HasProblem(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Problem && f.Fixed == "" {
			return true
		}
	}
	return false
}

// Print writes one line per finding and a closing verdict.
func Print(w io.Writer, fs []Finding) {
	counts := map[Severity]int{}
	for _, f := range fs {
		// Messages carry file names from the runtime dir and the queue
		// (which any agent can create) and agents' version output: each
		// string is one safetext.Field (specs/security.md, "Untrusted
		// text").
		line := fmt.Sprintf("%-8s %-11s %s", f.Severity, safetext.Field(f.Check), safetext.Field(f.Message))
		switch {
		case f.Fixed != "":
			line += " — fixed: " + safetext.Field(f.Fixed)
		case f.Fix != "":
			line += " — fix: " + safetext.Field(f.Fix)
		}
		fmt.Fprintln(w, line)
		if f.Fixed == "" {
			counts[f.Severity]++
		}
	}
	if counts[Problem]+counts[Warning] == 0 {
		fmt.Fprintln(w, "all is well")
		return
	}
	var parts []string
	for _, s := range []Severity{Problem, Warning} {
		if n := counts[s]; n > 0 {
			parts = append(parts, plural(n, string(s)))
		}
	}
	fmt.Fprintln(w, strings.Join(parts, ", "))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// sortBySubject orders a check's findings by subject, so output is stable.
func sortBySubject(fs []Finding) []Finding {
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Subject < fs[j].Subject })
	return fs
}
