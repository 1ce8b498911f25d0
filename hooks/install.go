//go:build linux

package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sup-tmux/sup/internal/atomicfile"
	"golang.org/x/sys/unix"
)

// Options tune Prepare.
type Options struct {
	// Sup is the sup executable the hooks run; DefaultSup() when empty.
	Sup string
	// Force replaces a Codex notify that runs another program.
	Force bool
}

// Change is one file an install writes.
type Change struct {
	Path    string // the file, as the agent names it
	Kind    string // KindHooks or KindNotify
	Exists  bool   // false: the file is created
	Old     []byte // the current content (nil when absent)
	New     []byte
	Summary string // what changes, for people
	scope   Scope
}

// Plan is what installing into one target takes. Prepare makes it without
// writing anything; Apply writes it.
type Plan struct {
	Target  Target
	Sup     string   // the sup executable the hooks run
	Command string   // the command line of the Claude-style hooks
	Changes []Change // files to write, in order
	Current []string // files that already hold sup's entries as they should be
	Notes   []string // what the user needs to know
}

// Installed reports whether the target already holds everything.
func (p *Plan) Installed() bool { return len(p.Changes) == 0 }

// Prepare reads the target's files and works out what installing sup's
// hooks changes. A file that cannot be parsed is a *SyntaxError; a Codex
// notify of another program is a *NotifyConflictError unless o.Force.
func Prepare(env Env, t Target, o Options) (*Plan, error) {
	if o.Sup == "" {
		sup, err := DefaultSup()
		if err != nil {
			return nil, err
		}
		o.Sup = sup
	}
	files, err := env.files(t)
	if err != nil {
		return nil, err
	}
	p := &Plan{Target: t, Sup: o.Sup, Command: Command(o.Sup, t.Agent)}
	hooksChanged := false
	for _, f := range files {
		old, exists, err := readFile(f.path)
		if err != nil {
			return nil, err
		}
		var (
			updated []byte
			summary string
		)
		switch f.kind {
		case KindHooks:
			updated, summary, err = prepareHooks(f, old, p.Command)
			if updated != nil {
				hooksChanged = true
			}
		case KindNotify:
			updated, summary, err = prepareNotify(f.path, old, NotifyArgv(o.Sup), o.Force)
		}
		if err != nil {
			return nil, err
		}
		if updated == nil {
			p.Current = append(p.Current, f.path)
			continue
		}
		p.Changes = append(p.Changes, Change{Path: f.path, Kind: f.kind, Exists: exists, Old: old, New: updated, Summary: summary, scope: t.Scope})
	}
	p.Notes = notes(t, o.Sup, hooksChanged)
	return p, nil
}

// readFile reads a settings file; a missing one reads as empty.
func readFile(path string) (data []byte, exists bool, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

func prepareHooks(f file, old []byte, command string) ([]byte, string, error) {
	doc, err := parseJSON(f.path, old)
	if err != nil {
		return nil, "", err
	}
	res, err := f.spec.merge(f.path, doc, command)
	if err != nil {
		return nil, "", err
	}
	if !res.changed() {
		return nil, "", nil
	}
	out := doc.encode(detectIndent(old))
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		out = bytes.TrimSuffix(out, []byte("\n"))
	}
	var parts []string
	if len(res.added) > 0 {
		parts = append(parts, "add "+strings.Join(res.added, ", "))
	}
	if len(res.updated) > 0 {
		parts = append(parts, "point "+strings.Join(res.updated, ", ")+" at "+command)
	}
	if len(res.deduped) > 0 {
		parts = append(parts, "drop duplicate sup entries of "+strings.Join(res.deduped, ", "))
	}
	return out, strings.Join(parts, "; "), nil
}

func prepareNotify(path string, old []byte, argv []string, force bool) ([]byte, string, error) {
	st, err := readNotify(path, old)
	if err != nil {
		return nil, "", err
	}
	var summary string
	switch {
	case st.present && slices.Equal(st.argv, argv):
		return nil, "", nil
	case !st.present:
		summary = "set notify = " + tomlArray(argv)
	case st.ours():
		summary = "point notify at " + argv[0] + " (was " + st.text + ")"
	case !force:
		return nil, "", &NotifyConflictError{Path: path, Current: st.text}
	default:
		summary = "replace notify = " + st.text + " (--force)"
	}
	out, err := setNotify(old, argv)
	if err != nil {
		return nil, "", &SyntaxError{Path: path, Msg: "cannot edit notify: " + err.Error()}
	}
	// The edit is textual: check it says what it should before anyone
	// writes it.
	if got, err := readNotify(path, out); err != nil || !slices.Equal(got.argv, argv) {
		return nil, "", fmt.Errorf("%s: cannot set notify here (it is not a plain root key); set it by hand to %s", path, tomlArray(argv))
	}
	return out, summary, nil
}

// notes are what the user must know after installing into t.
func notes(t Target, sup string, hooksChanged bool) []string {
	var n []string
	switch t.Agent {
	case Claude:
		if t.Scope == Project && filepath.IsAbs(sup) {
			n = append(n, "The hooks run "+sup+", a path on this machine; "+filepath.Join(".claude", "settings.json")+
				" is often committed, and others' Claude Code would run that path too.")
		}
	case Codex:
		if hooksChanged {
			n = append(n, `Codex runs new or changed hooks.json hooks only once trusted: its next start shows "Hooks need review" - choose "Trust all and continue" (or review them with /hooks). Until then they do not run.`)
		}
		if t.Scope == Project {
			n = append(n, "Codex ignores notify in a project's config.toml, so only hooks.json is written; "+
				"Codex loads a project's hooks only when it trusts the project. Codex runs the hooks of the user's "+
				"and the project's hooks.json both: install in one of the two.")
		} else {
			n = append(n, "notify reports finished turns whether or not the hooks are trusted.")
		}
	case Gemini:
		n = append(n, "Gemini CLI runs hooks only while its hooks system is enabled (hooksConfig.enabled, on by default); `/hooks panel` in Gemini CLI shows whether it is.")
		if t.Scope == Project {
			n = append(n, "Gemini CLI loads a project's hooks only in a folder it trusts, and warns once at its next start that project hooks were detected.")
		}
	}
	return n
}

// Written is a file Apply wrote, and its backup ("" for a new file).
type Written struct {
	Path   string
	Backup string
}

// Apply writes the plan's changes: for each file that exists, a backup
// <file>.sup-backup-<time> beside it, then the new content atomically
// (a temporary file renamed over it) with the file's mode kept. A file
// that changed since Prepare read it is not written. A symlinked settings
// file is written through the link, a dangling one included (its target is
// created, in a directory that must exist). Before writing anything it
// checks every file can be written: a read-only one is a *ReadOnlyError
// and nothing is written. A write that fails leaves the file as it was and
// removes the backup it took.
func (p *Plan) Apply(now time.Time) ([]Written, error) {
	for _, c := range p.Changes {
		if err := writable(c.Path); err != nil {
			return nil, err
		}
	}
	var done []Written
	for _, c := range p.Changes {
		w, err := c.apply(now)
		if err != nil {
			return done, err
		}
		done = append(done, w)
	}
	return done, nil
}

func (c Change) apply(now time.Time) (Written, error) {
	w := Written{Path: c.Path}
	real := c.Path
	mode := fs.FileMode(0o600)
	dirMode := fs.FileMode(0o700)
	if c.scope == Project {
		mode, dirMode = 0o644, 0o755
	}
	cur, exists, err := readFile(c.Path)
	if err != nil {
		return w, err
	}
	if exists != c.Exists || !bytes.Equal(cur, c.Old) {
		return w, fmt.Errorf("%s changed while sup was preparing its edit; nothing written to it, run again", c.Path)
	}
	if real, err = linkTarget(c.Path); err != nil {
		return w, err
	}
	if exists {
		fi, err := os.Stat(real)
		if err != nil {
			return w, err
		}
		mode = fi.Mode().Perm()
		if w.Backup, err = backup(c.Path, cur, mode, now); err != nil {
			return w, err
		}
	} else if real == c.Path { // a dangling link's directory must exist: writable checked it
		if err := os.MkdirAll(filepath.Dir(c.Path), dirMode); err != nil {
			return w, err
		}
	}
	// Durable: an agent CLI reads its settings at start, and a crash
	// right after an install must not leave it an empty file.
	if err := atomicfile.Write(real, c.New, atomicfile.Options{Mode: mode, Durable: true}); err != nil {
		if w.Backup != "" {
			os.Remove(w.Backup) // Best effort: it is a copy of the file, which is unchanged.
			w.Backup = ""
		}
		return w, fmt.Errorf("%w (the file is as it was; no backup kept)", err) // err names real
	}
	return w, nil
}

// ReadOnlyError is a settings file sup will not write: it is read-only, or
// a dangling symlink into a directory that does not exist.
type ReadOnlyError struct {
	Path string
	Why  string
}

func (e *ReadOnlyError) Error() string { return e.Path + " " + e.Why + " (nothing written)" }

// writable checks that path (followed through symlinks) may be written:
// an existing file must have its owner's write bit and be writable by us
// (root included: a file made read-only is a statement, not an accident),
// and a dangling link's target must be in an existing directory.
func writable(path string) error {
	real, err := linkTarget(path)
	if err != nil {
		return err
	}
	via := ""
	if real != path {
		via = " through the symlink to " + real
	}
	fi, err := os.Stat(real)
	if errors.Is(err, fs.ErrNotExist) {
		if real == path {
			return nil // created, with its directory
		}
		dir := filepath.Dir(real)
		if di, err := os.Stat(dir); err != nil || !di.IsDir() {
			return &ReadOnlyError{Path: path, Why: fmt.Sprintf("is a symlink to %s, whose directory %s does not exist; "+
				"sup writes through a dangling symlink but creates no directory at its far end: create %s, or remove the link", real, dir, dir)}
		}
		return nil
	}
	if err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); perm&0o200 == 0 || unix.Access(real, unix.W_OK) != nil {
		return &ReadOnlyError{Path: path, Why: fmt.Sprintf("is read-only%s (mode %#o); sup leaves it alone: "+
			"make it writable (chmod u+w %s) and run again, or add the entries `sup hooks install --dry-run` shows by hand", via, perm, real)}
	}
	return nil
}

// linkTarget follows path's symlinks, as the kernel would, to the file
// they name, which need not exist (filepath.EvalSymlinks fails on a
// dangling link). A path that is no symlink is itself.
func linkTarget(path string) (string, error) {
	p := path
	for range 40 { // the kernel's MAXSYMLINKS
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Mode()&fs.ModeSymlink == 0) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		t, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = t
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// BackupSuffix starts the name suffix of backups: <file>.sup-backup-<time>.
const BackupSuffix = ".sup-backup-"

// backup writes data to a new file <path>.sup-backup-<time> (…-2, -3 when
// taken) with mode.
func backup(path string, data []byte, mode fs.FileMode, now time.Time) (string, error) {
	base := path + BackupSuffix + now.Format("20060102-150405")
	for i := 1; ; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(data)
		if err2 := f.Close(); err == nil {
			err = err2
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return name, nil
	}
}
