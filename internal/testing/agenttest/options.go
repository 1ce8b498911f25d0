//go:build linux

package agenttest

import "github.com/sup-tmux/sup/internal/testing/testutil"

// Options are the knobs of a sandbox and of a Start helper; the With*
// functions set them. Fields an agent does not have are ignored by it.
type Options struct {
	Cols, Rows int               // the pane's size; default testutil.DefaultCols x DefaultRows
	Trust      []string          // directories the agent trusts (no trust dialog there)
	Untrusted  bool              // Start helpers: leave the project dir untrusted, so the trust dialog shows
	Env        map[string]string // added to the pane's environment, after the sandbox's
	SupConfig  string            // $XDG_CONFIG_HOME/sup/config.yaml for sup start
	// BeforeStart run in order once the agent's pane exists, before sup
	// starts in it (the pane waits on a tmux channel meanwhile): to attach
	// a recorder to the pane, or change the sandbox or project first.
	BeforeStart []func(*Agent)

	// FirstRun makes the sandbox a new user's: only the API key is
	// approved (and the switches that keep the agent offline set);
	// onboarding, folder trust and every first-start offer are left for
	// the agent to ask. Implies Untrusted.
	FirstRun bool

	// ClaudeAutoModeOffer leaves hasSeenAutoDefaultNudge out of
	// ~/.claude.json, so Claude Code asks "Make auto mode your default
	// permission mode?" before its prompt.
	ClaudeAutoModeOffer bool

	// ClaudeUnapprovedKey leaves the API key out of customApiKeyResponses,
	// so Claude Code asks whether to use it.
	ClaudeUnapprovedKey bool
	// ClaudeSettings are merged over the top level of
	// ~/.claude/settings.json (e.g. "hooks").
	ClaudeSettings map[string]any
}

// Option sets a field of Options.
type Option func(*Options)

// WithSize makes the agent's pane cols x rows.
func WithSize(cols, rows int) Option {
	return func(o *Options) { o.Cols, o.Rows = cols, rows }
}

// WithTrust adds directories the agent trusts.
func WithTrust(dirs ...string) Option {
	return func(o *Options) { o.Trust = append(o.Trust, dirs...) }
}

// WithoutTrust leaves a Start helper's project directory untrusted, so the
// agent shows its trust dialog there.
func WithoutTrust() Option {
	return func(o *Options) { o.Untrusted = true }
}

// WithEnv adds key=value to the pane's environment. sup passes it on to the
// agent only if its allow-list or the document's env_passthrough names it;
// the Start helpers pass every name given here.
func WithEnv(key, value string) Option {
	return func(o *Options) {
		if o.Env == nil {
			o.Env = map[string]string{}
		}
		o.Env[key] = value
	}
}

// WithSupConfig writes yaml as sup's config.yaml (crash policy, grace).
func WithSupConfig(yaml string) Option {
	return func(o *Options) { o.SupConfig = yaml }
}

// WithBeforeStart runs f with the agent's pane made but sup not yet started
// in it; see Options.BeforeStart.
func WithBeforeStart(f func(*Agent)) Option {
	return func(o *Options) { o.BeforeStart = append(o.BeforeStart, f) }
}

// WithFirstRun makes the sandbox a new user's (Options.FirstRun): the
// agent shows every first-run screen.
func WithFirstRun() Option {
	return func(o *Options) { o.FirstRun, o.Untrusted = true, true }
}

// WithClaudeAutoModeOffer makes Claude Code offer auto mode as the
// default permission mode at start (Options.ClaudeAutoModeOffer).
func WithClaudeAutoModeOffer() Option {
	return func(o *Options) { o.ClaudeAutoModeOffer = true }
}

// WithClaudeUnapprovedKey makes Claude Code ask about the API key.
func WithClaudeUnapprovedKey() Option {
	return func(o *Options) { o.ClaudeUnapprovedKey = true }
}

// WithClaudeSettings merges settings over ~/.claude/settings.json's top
// level.
func WithClaudeSettings(settings map[string]any) Option {
	return func(o *Options) { mergeSettings(&o.ClaudeSettings, settings) }
}

// mergeSettings sets settings' keys in *dst, making the map if need be.
func mergeSettings(dst *map[string]any, settings map[string]any) {
	if *dst == nil {
		*dst = map[string]any{}
	}
	for k, v := range settings {
		(*dst)[k] = v
	}
}

// NewOptions applies opts over the defaults.
func NewOptions(opts ...Option) Options {
	o := Options{Cols: testutil.DefaultCols, Rows: testutil.DefaultRows}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}
