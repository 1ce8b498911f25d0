package plan

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sup-tmux/sup/internal/paths"
)

// Options are the inputs of `sup start` that do not change across restarts.
type Options struct {
	Document      string   // DOC as given
	CWD           string   // --cwd
	Profile       string   // --profile
	Name          string   // --name
	Workspace     string   // --workspace
	Role          string   // --role
	Command       []string // after --
	InvocationDir string   // where sup was started; --cwd is relative to it
	Environ       []string // sup's own environment
	SessionID     string   // empty: a new one
	ResumeID      string   // --resume-id: the agent conversation the first spawn resumes
	SocketPath    string   // exported to the child as SUP_SOCKET; may be empty
}

// Plan is everything `sup start` resolved for the session. It is resolved
// once and kept for the supervisor's life: a restart or respawn runs the same
// plan, so an agent that rewrites its own document cannot relabel itself or
// change what it runs (specs/security.md, "Fixed at start").
type Plan struct {
	SessionID   string
	Document    string // absolute
	Name        string
	Workspace   string
	Role        string
	Profile     Profile
	Config      Config
	CWD         string
	CWDSource   CWDSource
	Env         []EnvVar
	Command     []string // the override, from -- or the frontmatter; empty: the profile's
	Frontmatter Frontmatter
}

// NewSessionID returns a random 12-hex-digit id: short enough to type a
// prefix of and to keep socket paths far below the 108-byte limit.
func NewSessionID() string {
	var b [6]byte
	rand.Read(b[:]) // Never fails on Linux (crypto/rand panics if it cannot read).
	return hex.EncodeToString(b[:])
}

// Resolve reads the document and the configuration and resolves the plan.
func Resolve(o Options) (*Plan, error) {
	doc, err := absDocument(o.Document, o.InvocationDir)
	if err != nil {
		return nil, err
	}
	fm, err := ReadFrontmatter(doc)
	if err != nil {
		return nil, fmt.Errorf("frontmatter: %w", err)
	}
	configDir := paths.ConfigDir(LookupIn(o.Environ))
	cfg, err := LoadConfig(configDir)
	if err != nil {
		return nil, err
	}
	command := o.Command
	if len(command) == 0 {
		command = fm.Command
	}
	// A command given picks its own profile (claude, codex, gemini, else
	// shell); default_profile is for the profile's own command.
	// Only when neither names one: ProfileForCommand parses every profile
	// (yaml, rules compiled), half of `sup start --profile P`'s resolving.
	profileName := cmp.Or(o.Profile, fm.Profile)
	if profileName == "" {
		profileName = cmp.Or(ProfileForCommand(configDir, command), cfg.DefaultProfile)
	}
	profile, err := LoadProfile(configDir, profileName)
	if err != nil {
		return nil, err
	}
	cwd, source, err := ResolveCWD(CWDInput{Flag: o.CWD, InvocationDir: o.InvocationDir, Frontmatter: fm.CWD, FrontmatterAt: fm.CWDLine, Document: doc})
	if err != nil {
		return nil, fmt.Errorf("resolve cwd: %w", err)
	}
	id := o.SessionID
	if id == "" {
		id = NewSessionID()
	}
	// Labels the user gave are refused when unsafe; a name derived from
	// the document's file name is made safe (specs/security.md).
	for _, l := range []struct{ what, v string }{
		{"--name", o.Name}, {"--workspace", o.Workspace}, {"--role", o.Role},
		{"frontmatter sup.name", fm.Name}, {"frontmatter sup.workspace", fm.Workspace}, {"frontmatter sup.role", fm.Role},
	} {
		if err := CheckLabel(l.what, l.v); err != nil {
			return nil, err
		}
	}
	name := cmp.Or(o.Name, fm.Name, SafeLabel(cmp.Or(strings.TrimSuffix(filepath.Base(doc), filepath.Ext(doc)), filepath.Base(doc))))
	supVars := map[string]string{"SUP_SESSION": id, "SUP_DOCUMENT": doc, "SUP_NAME": name, "PWD": cwd}
	if o.SocketPath != "" {
		supVars["SUP_SOCKET"] = o.SocketPath
	}
	env, err := BuildEnv(EnvInput{
		Parent:             o.Environ,
		ProfilePassthrough: profile.EnvPassthrough,
		DocPassthrough:     fm.EnvPassthrough,
		Overlay:            fm.Env,
		OverlayOrder:       fm.EnvOrder,
		Sup:                supVars,
	})
	if err != nil {
		return nil, fmt.Errorf("build env: %w", err)
	}
	return &Plan{
		SessionID:   id,
		Document:    doc,
		Name:        name,
		Workspace:   cmp.Or(o.Workspace, fm.Workspace),
		Role:        cmp.Or(o.Role, fm.Role),
		Profile:     profile,
		Config:      cfg,
		CWD:         cwd,
		CWDSource:   source,
		Env:         env,
		Command:     command,
		Frontmatter: fm,
	}, nil
}

// Argv resolves the command line for a spawn and checks that the program
// exists in the child's PATH, so a typo fails with its name, not a bare ENOENT.
func (p *Plan) Argv(agentSessionID string) (argv []string, resumed bool, err error) {
	env := map[string]string{}
	for _, v := range p.Env {
		env[v.Name] = v.Value
	}
	argv, resumed = p.Profile.Argv(p.Command, agentSessionID, env)
	if argv[0] == "" {
		return nil, false, fmt.Errorf("profile %s: command expands to an empty program name", p.Profile.Name)
	}
	path, err := lookPath(argv[0], env["PATH"], p.CWD)
	if err != nil {
		hint := ""
		if len(p.Command) == 0 {
			// sup start DOC with no command runs the profile's agent:
			// say how to run something else (issue 32).
			hint = " (install it, or run another program: sup start DOC -- bash, or --profile shell)"
		}
		return nil, false, fmt.Errorf("command %q (profile %s): %w%s", argv[0], p.Profile.Name, err, hint)
	}
	argv[0] = path
	return argv, resumed, nil
}

func absDocument(doc, invocationDir string) (string, error) {
	if doc == "" {
		return "", errors.New("missing DOC: sup start needs the path of the session's document")
	}
	if !filepath.IsAbs(doc) {
		doc = filepath.Join(invocationDir, doc)
	}
	doc = filepath.Clean(doc)
	info, err := os.Stat(doc)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("document does not exist: %s", doc)
		}
		return "", fmt.Errorf("document: %w", err)
	}
	if info.IsDir() {
		return "", fmt.Errorf("document is a directory, not a file: %s", doc)
	}
	return doc, nil
}

// lookPath finds prog like exec.LookPath, but in the child's PATH (which the
// user may have changed in the frontmatter) and relative to the child's cwd.
func lookPath(prog, path, cwd string) (string, error) {
	if strings.Contains(prog, "/") {
		if !filepath.IsAbs(prog) {
			prog = filepath.Join(cwd, prog)
		}
		if err := executable(prog); err != nil {
			return "", err
		}
		return prog, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		candidate := filepath.Join(dir, prog)
		if executable(candidate) == nil {
			return candidate, nil
		}
	}
	return "", fmt.Errorf("not found in PATH (%s)", path)
}

func executable(p string) error {
	info, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("does not exist: %s", p)
		}
		return err
	}
	if info.IsDir() || info.Mode()&0o111 == 0 {
		return fmt.Errorf("not an executable file: %s", p)
	}
	return nil
}

// LookupIn is os.Getenv over an environment list ("K=V" strings), such as
// Options.Environ.
func LookupIn(environ []string) func(string) string {
	m := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return func(k string) string { return m[k] }
}
