package plan

import (
	"cmp"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sup-tmux/sup/internal/paths"

	"go.yaml.in/yaml/v3"

	"github.com/sup-tmux/sup/internal/config"
)

//go:embed profiles/*.yaml
var builtinProfiles embed.FS

// AgentSessionPlaceholder is replaced in resume_args by the agent's own
// session id, learned from its hooks.
const AgentSessionPlaceholder = "{agent_session_id}"

// Profile says how to run one kind of agent.
type Profile struct {
	Name    string   `yaml:"-"`
	Source  string   `yaml:"-"` // "builtin" or the user file's path
	Command []string `yaml:"command"`
	// Commands are the program names (a command's basename) that pick this
	// profile when `sup start DOC -- CMD` names neither --profile nor a
	// frontmatter profile (specs/supervisor.md, "Which profile").
	Commands   []string `yaml:"commands"`
	ResumeArgs []string `yaml:"resume_args"`
	// ResumeIDPattern is the agent's conversation id format (a regular
	// expression, anchored by sup): an id a hook reports is stored and
	// used only when it matches (specs/security.md, "Hook data is
	// data"). Empty: DefaultResumeIDPattern.
	ResumeIDPattern string `yaml:"resume_id_pattern"`
	// HeadlessResume are the arguments, after command, that continue a
	// conversation without a terminal, for the broker's last routing
	// fallback (no tmux): {agent_session_id} and {prompt} are replaced.
	HeadlessResume []string `yaml:"headless_resume"`
	EnvPassthrough []string `yaml:"env_passthrough"`
	// SubmitDelay separates pasted text from the Enter that submits it:
	// agents read an Enter arriving with a paste as a newline.
	SubmitDelay time.Duration `yaml:"submit_delay"`
	// Envelope wraps a trigger's prompt in the [BRIDGE_TRIGGER …] lines
	// an agent reads as one message (specs/triggers.md). A shell would
	// run those lines as commands, so it is off there; unset, it is on
	// exactly when the profile has a classify: section (an agent).
	Envelope *bool `yaml:"envelope"`
	// BusyWindow is, for a profile without screen rules, how recent the
	// child's output must be for the session to count as busy whatever
	// its foreground process does (specs/detection.md, "Any program").
	// 0: the default, 1s.
	BusyWindow time.Duration `yaml:"busy_window"`
	// UnknownAfter: a running agent's screen that no classify rule reads
	// and that stays quiet this long is a question (reason unrecognized,
	// specs/detection.md "Fallback"); 0: 3s. Profiles with a pack only.
	UnknownAfter time.Duration `yaml:"unknown_after"`
	// Classify reads the agent's screen (specs/detection.md, "Classifier
	// packs"), kept as written and compiled by the supervisor
	// (supervisor.CompilePack). A user profile's classify: section
	// replaces the built-in pack whole (rules are never merged); an empty
	// `classify:` removes it. nil: no screen rules.
	Classify *PackSource `yaml:"classify"`
	// Answers are the keys that answer the agent's prompts, per dialog
	// kind (specs/detection.md, "Answering a prompt"). A user profile's
	// answers: section overrides the built-in one per dialog kind.
	Answers Answers `yaml:"answers"`
	// ModelExamples are few-shot examples for the model reader: a
	// recorded screen and the reading it should get, sent before the
	// screen asked about (specs/detection.md, "The model reader").
	ModelExamples []config.ModelExample `yaml:"model_examples"`
	// Questions is the wording of the rule that tells a finished turn
	// asking the human something (reason asked; specs/detection.md,
	// "Questions"). A user profile's questions: section replaces it whole;
	// an empty `questions:` turns it off. nil: no turn asks.
	Questions *config.Questions `yaml:"questions"`
	// StallAfter: a busy session with no hook event and no change of its
	// screen outside StatusLines this long is stalled, waiting on the human
	// (reason stalled; specs/detection.md, "Stalled"). 0: DefaultStallAfter;
	// a negative value turns it off.
	StallAfter time.Duration `yaml:"stall_after"`
	// StatusLines are patterns (RE2) of the screen lines that are the
	// agent's own spinner and status: their changes (elapsed time, token
	// counters, rotating tips) are not progress.
	StatusLines []string `yaml:"status_lines"`
}

// DefaultStallAfter is StallAfter's default.
const DefaultStallAfter = 5 * time.Minute

// StallThreshold is StallAfter with its default applied; 0: off.
func (p Profile) StallThreshold() time.Duration {
	switch {
	case p.StallAfter < 0:
		return 0
	case p.StallAfter == 0:
		return DefaultStallAfter
	}
	return p.StallAfter
}

// PackSource is a profile's `classify:` section as written. The plan does
// not compile it: the classifier needs the screen emulator, which the
// broker and every other importer of the plan must not pull in.
type PackSource struct {
	Node yaml.Node
	// Origin is where the section was read, the prefix of its compile
	// errors: "built-in profile claude" or "profile /path/claude.yaml".
	Origin string
}

// UnmarshalYAML keeps the section's node; LoadProfile sets Origin.
func (s *PackSource) UnmarshalYAML(n *yaml.Node) error {
	*s = PackSource{Node: *n}
	return nil
}

var profileName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// globalSelectors resume "the last conversation", which may belong to another
// document: a restart must name the exact session or start fresh.
var globalSelectors = []string{"--continue", "-c", "--last", "--resume-last"}

// LoadProfile returns the named profile: the built-in one overlaid field by
// field with $XDG_CONFIG_HOME/sup/profiles/NAME.yaml when that file exists, or
// the user file alone for a name sup does not ship.
func LoadProfile(configDir, name string) (Profile, error) {
	if !profileName.MatchString(name) {
		return Profile{}, fmt.Errorf("profile %q: name must match %s", name, profileName)
	}
	p := Profile{Name: name, Source: "builtin"}
	builtin, berr := builtinProfiles.ReadFile("profiles/" + name + ".yaml")
	if berr == nil {
		if err := decodeYAML(builtin, &p); err != nil {
			return Profile{}, fmt.Errorf("built-in profile %s: %w", name, err)
		}
		if p.Classify != nil {
			p.Classify.Origin = "built-in profile " + name
		}
	}
	userPath := paths.Profile(configDir, name)
	user, uerr := os.ReadFile(userPath)
	switch {
	case uerr == nil:
		p.Source = userPath
		if err := decodeYAML(user, &p); err != nil {
			return Profile{}, fmt.Errorf("profile %s: %w", userPath, err)
		}
		if p.Classify != nil && p.Classify.Origin == "" { // the user file has its own section
			p.Classify.Origin = "profile " + userPath
		}
	case !errors.Is(uerr, fs.ErrNotExist):
		return Profile{}, fmt.Errorf("read profile: %w", uerr)
	case berr != nil:
		return Profile{}, fmt.Errorf("unknown profile %q (available: %s)", name, strings.Join(ProfileNames(configDir), ", "))
	}
	if err := p.validate(); err != nil {
		return Profile{}, fmt.Errorf("profile %s (%s): %w", name, p.Source, err)
	}
	return p, nil
}

// ProfileNames lists the built-in and user profile names, sorted.
func ProfileNames(configDir string) []string {
	seen := map[string]bool{}
	entries, _ := fs.ReadDir(builtinProfiles, "profiles")
	user, _ := os.ReadDir(paths.ProfilesDir(configDir)) // Best effort: a missing dir has no profiles.
	for _, e := range append(entries, user...) {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok && profileName.MatchString(name) {
			seen[name] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (p Profile) validate() error {
	if len(p.Command) == 0 || p.Command[0] == "" {
		return errors.New("command must be a non-empty list")
	}
	if err := p.Answers.validate(); err != nil {
		return err
	}
	for i, e := range p.ModelExamples {
		if err := e.Validate(); err != nil {
			return fmt.Errorf("model_examples[%d]: %v", i, err)
		}
	}
	if err := p.Questions.Validate(); err != nil {
		return err
	}
	if p.StallAfter > 0 && p.StallAfter < time.Second {
		return fmt.Errorf("stall_after %s: must be at least 1s (the default is %s; a negative value such as -1s turns it off)", p.StallAfter, DefaultStallAfter)
	}
	for i, pat := range p.StatusLines {
		if _, err := regexp.Compile(pat); err != nil {
			return fmt.Errorf("status_lines[%d] %q: %v", i, pat, err)
		}
	}
	if p.SubmitDelay < 0 || p.SubmitDelay > 5*time.Second {
		return fmt.Errorf("submit_delay %s: must be between 0s and 5s", p.SubmitDelay)
	}
	if p.BusyWindow < 0 || p.BusyWindow > time.Minute {
		return fmt.Errorf("busy_window %s: must be between 0s (the default, 1s) and 1m", p.BusyWindow)
	}
	if p.UnknownAfter != 0 && (p.UnknownAfter < 500*time.Millisecond || p.UnknownAfter > time.Minute) {
		return fmt.Errorf("unknown_after %s: must be a duration between 500ms and 1m, such as 3s (the default)", p.UnknownAfter)
	}
	if _, err := compileIDPattern(p.ResumeIDPattern); err != nil {
		return fmt.Errorf("resume_id_pattern %q: %v", p.ResumeIDPattern, err)
	}
	if len(p.ResumeArgs) > 0 && !containsPlaceholder(p.ResumeArgs) {
		return fmt.Errorf("resume_args must contain %s", AgentSessionPlaceholder)
	}
	if len(p.HeadlessResume) > 0 && (!containsPlaceholder(p.HeadlessResume) || !containsString(p.HeadlessResume, PromptPlaceholder)) {
		return fmt.Errorf("headless_resume must contain %s and %s", AgentSessionPlaceholder, PromptPlaceholder)
	}
	for _, a := range append(append([]string{}, p.ResumeArgs...), p.HeadlessResume...) {
		for _, g := range globalSelectors {
			if a == g {
				return fmt.Errorf("resume_args must not use the global selector %s: it may resume another document's conversation", a)
			}
		}
	}
	return nil
}

// ProfileForCommand is the profile a command picks when neither --profile
// nor the frontmatter names one: the first profile (in name order, the
// user's overlays applied) whose commands list the program's basename;
// else shell, the rules for any program. A profile that does not load is
// passed over here; naming it reports its error.
func ProfileForCommand(configDir string, command []string) string {
	if len(command) == 0 {
		return ""
	}
	base := filepath.Base(command[0])
	for _, name := range ProfileNames(configDir) {
		p, err := LoadProfile(configDir, name)
		if err == nil && slices.Contains(p.Commands, base) {
			return name
		}
	}
	return "shell"
}

// EnvelopeOn says whether triggers to this profile's agent are wrapped in
// the envelope when the request does not say (Envelope's rule).
func (p Profile) EnvelopeOn() bool {
	if p.Envelope != nil {
		return *p.Envelope
	}
	return p.Classify != nil
}

func containsPlaceholder(args []string) bool { return containsString(args, AgentSessionPlaceholder) }

func containsString(args []string, s string) bool {
	for _, a := range args {
		if strings.Contains(a, s) {
			return true
		}
	}
	return false
}

// PromptPlaceholder is replaced in headless_resume by the prompt.
const PromptPlaceholder = "{prompt}"

// HeadlessArgv is the command line that continues conversation id with
// prompt and no terminal, or false when the profile cannot.
func (p Profile) HeadlessArgv(id, prompt string, env map[string]string) ([]string, bool) {
	if len(p.HeadlessResume) == 0 || id == "" || p.CheckAgentSessionID(id) != nil {
		return nil, false
	}
	argv, _ := p.Argv(nil, "", env)
	for _, a := range p.HeadlessResume {
		a = strings.ReplaceAll(a, AgentSessionPlaceholder, id)
		argv = append(argv, strings.ReplaceAll(a, PromptPlaceholder, prompt))
	}
	return argv, true
}

// Argv builds the command line: the profile's command expanded against the
// child's env (or the override, literally), plus resume_args when an agent session id is known. Without
// one the agent starts fresh; sup never guesses which conversation to resume.
func (p Profile) Argv(override []string, agentSessionID string, env map[string]string) (argv []string, resumed bool) {
	if len(override) > 0 {
		// Taken literally: the user's shell already expanded it, and a
		// `$x` meant for `sh -c` must reach sh.
		argv = append(argv, override...)
	} else {
		for _, a := range p.Command {
			argv = append(argv, expandWithDefault(a, env))
		}
	}
	if agentSessionID == "" || len(p.ResumeArgs) == 0 || p.CheckAgentSessionID(agentSessionID) != nil {
		return argv, false // an id not of the agent's format never becomes argv
	}
	for _, a := range p.ResumeArgs {
		argv = append(argv, strings.ReplaceAll(a, AgentSessionPlaceholder, agentSessionID))
	}
	return argv, true
}

// expandWithDefault expands $VAR, ${VAR} and ${VAR:-default}.
func expandWithDefault(s string, env map[string]string) string {
	return os.Expand(s, func(name string) string {
		if n, def, ok := strings.Cut(name, ":-"); ok {
			if v := env[n]; v != "" {
				return v
			}
			return def
		}
		return env[name]
	})
}

// DefaultResumeIDPattern is the id format of a profile that names none:
// one token of letters, digits and . _ : - that starts with a letter or
// digit, at most 128 bytes. Never an option (no leading -), never a path
// (no /), never a second word.
const DefaultResumeIDPattern = `[A-Za-z0-9][A-Za-z0-9._:-]{0,127}`

// UUIDPattern is the conversation id of Claude Code, Codex and Gemini CLI.
const UUIDPattern = `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`

var idPatterns sync.Map // pattern → *regexp.Regexp

// compileIDPattern anchors pattern (empty: the default) and compiles it.
func compileIDPattern(pattern string) (*regexp.Regexp, error) {
	pattern = cmp.Or(pattern, DefaultResumeIDPattern)
	if re, ok := idPatterns.Load(pattern); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(`^(?:` + pattern + `)$`)
	if err != nil {
		return nil, err
	}
	idPatterns.Store(pattern, re)
	return re, nil
}

// CheckAgentSessionID says why id is not a conversation id of this
// profile's agent (nil when it is): it must match resume_id_pattern, and
// whatever the pattern, never start with - (an option), hold a control
// character or exceed 256 bytes.
func (p Profile) CheckAgentSessionID(id string) error {
	re, err := compileIDPattern(p.ResumeIDPattern)
	if err != nil {
		return fmt.Errorf("profile %s: resume_id_pattern: %v", p.Name, err)
	}
	switch {
	case len(id) > 256:
		return fmt.Errorf("agent session id of %d bytes: longer than any agent's", len(id))
	case strings.HasPrefix(id, "-"):
		return fmt.Errorf("agent session id %q starts with -: it would read as an option", id)
	case strings.IndexFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
		return fmt.Errorf("agent session id %q holds a control character", id)
	case !re.MatchString(id):
		return fmt.Errorf("agent session id %q does not match profile %s's resume_id_pattern %s", id, p.Name, cmp.Or(p.ResumeIDPattern, DefaultResumeIDPattern))
	}
	return nil
}
