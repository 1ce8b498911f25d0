//go:build linux

package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// The screen corpus: raw pty recordings of the real agents, each ending at
// a labelled moment, for table tests of a screen classifier. Layout and
// meaning are in testdata/corpus/README.md; `SUP_RECORD_CORPUS=1 go test
// -run TestRecordCorpus ./internal/testing/agenttest/` records it again.

// CorpusIndex is the index file's name inside the corpus directory.
const CorpusIndex = "corpus.json"

// MinCorpusEntries is the fewest recordings a valid corpus holds.
const MinCorpusEntries = 12

// The activities a truthful detector reports for a recording's last
// screen (testdata/corpus/README.md says how each moment was labelled).
const (
	ActivityReady             = "ready"              // waiting for the human's next prompt
	ActivityBusy              = "busy"               // working on a turn, making progress
	ActivityNeedsConfirmation = "needs_confirmation" // a dialog waits on the human
	ActivityError             = "error"              // the model API fails (retrying, or the turn failed)
)

// Activities lists every valid expected activity.
var Activities = []string{ActivityReady, ActivityBusy, ActivityNeedsConfirmation, ActivityError}

// The agents the corpus covers, as CorpusEntry.Agent names them.
const (
	CorpusClaude = "claude"
	CorpusCodex  = "codex"
	CorpusGemini = "gemini"
)

// corpusAgents lists them, with their npm packages.
var corpusAgents = map[string]string{
	CorpusClaude: "@anthropic-ai/claude-code",
	CorpusCodex:  "@openai/codex",
	CorpusGemini: "@google/gemini-cli",
}

// Corpus is the index file, corpus.json.
type Corpus struct {
	Recordings []CorpusEntry `json:"recordings"`
}

// CorpusEntry describes one recording.
type CorpusEntry struct {
	// File is the recording, relative to the corpus directory:
	// <agent>/<label>.raw.
	File string `json:"file"`
	// Agent is CorpusClaude, CorpusCodex or CorpusGemini; AgentVersion the CLI's
	// version that was recorded.
	Agent        string `json:"agent"`
	AgentVersion string `json:"agent_version"`
	// Renderer is Claude Code's renderer: "fullscreen" (the alternate
	// screen) or "classic" (the normal screen, with scrollback); empty for
	// Codex and Gemini CLI.
	Renderer string `json:"renderer,omitempty"`
	// Cols and Rows are the pane's size while recording; replay the file
	// into a terminal of that size.
	Cols int `json:"cols"`
	Rows int `json:"rows"`
	// Activity is what a truthful detector says about the last screen:
	// one of Activities.
	Activity string `json:"activity"`
	// Draft is the unsent text in the input box at the end; "" when the
	// box is empty (or shows a placeholder) or no input box is shown.
	Draft string `json:"draft"`
	// Marker is text the last screen shows (after the recording is
	// replayed into a terminal of Cols x Rows): a sanity check that the
	// file holds the moment.
	Marker string `json:"marker"`
	// Description says in a line what the moment is and how it was
	// reached.
	Description string `json:"description"`
}

// Label is the entry's file name without directory and extension.
func (e CorpusEntry) Label() string {
	return filepath.Base(e.File[:len(e.File)-len(filepath.Ext(e.File))])
}

// corpusFileRE is the shape of CorpusEntry.File.
var corpusFileRE = regexp.MustCompile(`^(claude|codex|gemini)/[a-z0-9_]+\.raw$`)

// CorpusDir returns testdata/corpus at the module root.
func CorpusDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(testutil.ModuleRoot(t), "testdata", "corpus")
}

// LoadCorpus reads and checks the corpus in dir (see CheckCorpus),
// failing the test if it is not valid.
func LoadCorpus(t testing.TB, dir string) Corpus {
	t.Helper()
	c, err := ReadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckCorpus(dir, c); err != nil {
		t.Fatal(err)
	}
	return c
}

// ReadCorpus parses dir's index file, rejecting unknown fields.
func ReadCorpus(dir string) (Corpus, error) {
	var c Corpus
	f, err := os.Open(filepath.Join(dir, CorpusIndex))
	if err != nil {
		return c, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return c, nil
}

// CheckCorpus checks c's entries against the corpus format and the files
// in dir: at least MinCorpusEntries, every agent, every field valid, every
// file present (and no two entries naming one), non-empty and at most
// MaxRecording bytes. It does not replay the recordings.
func CheckCorpus(dir string, c Corpus) error {
	if len(c.Recordings) < MinCorpusEntries {
		return fmt.Errorf("corpus: %d recordings, want at least %d", len(c.Recordings), MinCorpusEntries)
	}
	agents := map[string]int{}
	files := map[string]bool{}
	for i, e := range c.Recordings {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("corpus: recording %d (%s): %s", i, e.File, fmt.Sprintf(format, args...))
		}
		if !corpusFileRE.MatchString(e.File) {
			return bad("file is not <claude|codex|gemini>/<label>.raw")
		}
		if files[e.File] {
			return bad("listed twice")
		}
		files[e.File] = true
		if filepath.Dir(e.File) != e.Agent {
			return bad("agent %q, but the file is under %s/", e.Agent, filepath.Dir(e.File))
		}
		agents[e.Agent]++
		if e.AgentVersion == "" {
			return bad("no agent_version")
		}
		switch {
		case e.Agent == CorpusClaude && e.Renderer != "fullscreen" && e.Renderer != "classic":
			return bad("renderer %q, want fullscreen or classic", e.Renderer)
		case e.Agent != CorpusClaude && e.Renderer != "":
			return bad("renderer %q for %s", e.Renderer, e.Agent)
		}
		if e.Cols < 20 || e.Rows < 5 || e.Cols > 1000 || e.Rows > 1000 {
			return bad("pane size %dx%d", e.Cols, e.Rows)
		}
		valid := false
		for _, a := range Activities {
			valid = valid || e.Activity == a
		}
		if !valid {
			return bad("activity %q, want one of %v", e.Activity, Activities)
		}
		if e.Marker == "" || e.Description == "" {
			return bad("no marker or description")
		}
		info, err := os.Stat(filepath.Join(dir, e.File))
		switch {
		case err != nil:
			return bad("%v", err)
		case !info.Mode().IsRegular():
			return bad("not a regular file")
		case info.Size() == 0:
			return bad("empty")
		case info.Size() > MaxRecording:
			return bad("%d bytes, over the %d limit", info.Size(), MaxRecording)
		}
	}
	for _, a := range []string{CorpusClaude, CorpusCodex, CorpusGemini} {
		if agents[a] == 0 {
			return fmt.Errorf("corpus: no %s recording", a)
		}
	}
	return nil
}

// AgentVersion returns the version of the agent CLI (CorpusClaude,
// CorpusCodex, CorpusGemini) installed under AgentsDir, from its npm
// package.json.
func AgentVersion(t testing.TB, agent string) string {
	t.Helper()
	pkg := corpusAgents[agent]
	if pkg == "" {
		t.Fatalf("AgentVersion: unknown agent %q", agent)
	}
	return packageVersion(t, filepath.Join(AgentsDir(t), "node_modules", pkg, "package.json"), "")
}

// PinnedAgentVersion returns the version .agents/package.json pins for
// agent (whatever SUP_AGENTS selects).
func PinnedAgentVersion(t testing.TB, agent string) string {
	t.Helper()
	pkg := corpusAgents[agent]
	if pkg == "" {
		t.Fatalf("PinnedAgentVersion: unknown agent %q", agent)
	}
	return packageVersion(t, filepath.Join(testutil.ModuleRoot(t), ".agents", "package.json"), pkg)
}

// packageVersion reads an npm package.json: its version, or with dep set
// the version its dependencies pin for dep.
func packageVersion(t testing.TB, path, dep string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Version      string            `json:"version"`
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	v := p.Version
	if dep != "" {
		v = p.Dependencies[dep]
	}
	if v == "" {
		t.Fatalf("%s: no version for %q", path, dep)
	}
	return v
}
