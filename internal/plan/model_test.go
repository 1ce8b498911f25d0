//go:build linux

package plan

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUnitConfigModel: the model: section loads, its env_file is relative
// to config.yaml, and a key in it is refused with a pointer to key_env.
func TestUnitConfigModel(t *testing.T) {
	dir, _ := unitWriteConfig(t, "model:\n  endpoint: https://openrouter.ai/api/v1\n  name: openai/gpt-4o-mini\n  key_env: OPENROUTER_API_KEY\n  env_file: keys.env\n  budget: 30\n")
	cfg, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Model.Enabled() || cfg.Model.Budget != 30 || cfg.Model.EnvFile != filepath.Join(dir, "keys.env") {
		t.Fatalf("model: %+v", cfg.Model)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir, _ = unitWriteConfig(t, "model:\n  endpoint: http://127.0.0.1:11434/v1\n  name: llama\n  key_env: K\n  env_file: ~/model.env\n")
	if cfg, err := LoadConfig(dir); err != nil || cfg.Model.EnvFile != filepath.Join(home, "model.env") {
		t.Fatalf("~ in env_file: %q %v", cfg.Model.EnvFile, err)
	}
	for yaml, want := range map[string]string{
		"model:\n  endpoint: http://127.0.0.1:8080/v1\n  name: m\n  key: sk-live-123\n": "never goes in config.yaml",
		"model:\n  endpoint: localhost:8080\n  name: m\n":                               "want an http(s) base URL",
		"model:\n  endpoint: http://h/v1\n  name: m\n  redact: ['(']\n":                 "redact[0]",
		"model:\n  endpoint: http://h/v1\n  nmae: m\n":                                  "unknown key nmae",
	} {
		dir, path := unitWriteConfig(t, yaml)
		_, err := LoadConfig(dir)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: %v, want %q naming the file", yaml, err, want)
		}
	}
}

// TestUnitProfileModelExamples: a profile's few-shot examples load and are
// checked against the reply contract.
func TestUnitProfileModelExamples(t *testing.T) {
	dir := t.TempDir()
	unitWriteFile(t, filepath.Join(dir, "profiles", "mycli.yaml"), `command: [mycli]
model_examples:
  - screen: "Overwrite config.toml? (y/N)"
    reply: {state: NEEDS_CONFIRMATION, summary: "Overwrite config.toml?", actions_needed: [{label: "yes", key: "y"}, {label: "no", key: "N"}]}
`)
	p, err := LoadProfile(dir, "mycli")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.ModelExamples) != 1 || p.ModelExamples[0].Reply.Actions[1].Key != "N" {
		t.Fatalf("examples: %+v", p.ModelExamples)
	}
	unitWriteFile(t, filepath.Join(dir, "profiles", "bad.yaml"), "command: [x]\nmodel_examples:\n  - screen: x\n    reply: {state: IDLE}\n")
	if _, err := LoadProfile(dir, "bad"); err == nil || !strings.Contains(err.Error(), "model_examples[0]") || !strings.Contains(err.Error(), "READY") {
		t.Fatalf("bad example: %v", err)
	}
}
