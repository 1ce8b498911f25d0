package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestParseKey: a key is the one keypress a human would make on the
// screen — one printable character or one named key; two keys, words,
// control and non-ASCII characters are refused with the reason.
func TestParseKey(t *testing.T) {
	for in, want := range map[string]string{"y": "y", "2": "2", "Enter": "\r", " ENTER ": "\r", "esc": "\x1b", "Escape": "\x1b",
		"Tab": "\t", "Up": "\x1b[A", "down": "\x1b[B", "Left": "\x1b[D", "Right": "\x1b[C", "Space": " ", "?": "?"} {
		got, err := ParseKey(in)
		if err != nil || got != want {
			t.Errorf("ParseKey(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for bad, reason := range map[string]string{
		"": "empty key", "  ": "empty key",
		"Up Enter": "2 keys", "1 Enter": "2 keys", "down Down ENTER": "3 keys", "rm -rf ~ Enter": "4 keys",
		"yes": "neither one printable character", "\x03": "neither", "\x1b[A": "neither", "C-c": "neither", "é": "not an ASCII character",
	} {
		_, err := ParseKey(bad)
		if err == nil || !strings.Contains(err.Error(), reason) {
			t.Errorf("ParseKey(%q) = %v; want an error saying %q", bad, err, reason)
		}
	}
}

func TestModelValidate(t *testing.T) {
	ok := Model{Endpoint: "http://127.0.0.1:1/v1", Name: "m", KeyEnv: "MODEL_KEY"}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg  Model
		want string
	}{
		{Model{Endpoint: "http://x/v1", Name: "m", Key: "sk-123"}, "never goes in config.yaml"},
		{Model{Endpoint: "ftp://x", Name: "m"}, "endpoint"},
		{Model{Endpoint: "http://x/v1"}, "name"},
		{Model{Endpoint: "http://x/v1", Name: "m", KeyEnv: "sk-ant-xyz"}, "key_env"},
		{Model{Endpoint: "http://x/v1", Name: "m", EnvFile: ".env"}, "env_file needs key_env"},
		{Model{Name: "m"}, "endpoint is empty"},
		{Model{Endpoint: "http://x/v1", Name: "m", Budget: 100000}, "budget"},
	} {
		if err := c.cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want %q", c.cfg, err, c.want)
		}
	}
}

func TestLoadKey(t *testing.T) {
	dir := t.TempDir()
	env := filepath.Join(dir, ".env")
	os.WriteFile(env, []byte("# keys\nOTHER=1\nexport MODEL_KEY=\"k-from-file\"\n"), 0o600)
	none := func(string) (string, bool) { return "", false }
	cfg := Model{Endpoint: "http://x/v1", Name: "m", KeyEnv: "MODEL_KEY", EnvFile: env}
	if k, err := cfg.LoadKey(none); err != nil || k != "k-from-file" {
		t.Fatalf("from file: %q %v", k, err)
	}
	if k, err := cfg.LoadKey(func(string) (string, bool) { return "k-env", true }); err != nil || k != "k-env" {
		t.Fatalf("from env: %q %v", k, err)
	}
	cfg.EnvFile = ""
	if _, err := cfg.LoadKey(none); err == nil || !strings.Contains(err.Error(), "MODEL_KEY is not set") {
		t.Fatalf("missing: %v", err)
	}
}

func TestNotifyValidate(t *testing.T) {
	if err := DefaultNotify().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mod  func(*Notify)
		want string
	}{
		{func(c *Notify) { c.After = 0 }, "after 0s: must be a positive duration such as 15s"},
		{func(c *Notify) { c.Repeat = -time.Second }, "repeat -1s: must be a positive duration such as 5m, or 0 for no reminders"},
		{func(c *Notify) { c.Repeat = time.Millisecond }, "repeat 1ms: at least 1s"},
		{func(c *Notify) { c.CommandTimeout = 0 }, "command_timeout 0s: must be a positive duration such as 10s"},
		{func(c *Notify) { c.Command = []string{""} }, "command: the first element is the program to run; it is empty"},
	} {
		cfg := DefaultNotify()
		c.mod(&cfg)
		if err := cfg.Validate(); err == nil || len(err.Error()) < len(c.want) || err.Error()[:len(c.want)] != c.want {
			t.Errorf("%+v: %v, want %s", cfg, err, c.want)
		}
	}
}

func TestTriggerValidate(t *testing.T) {
	if err := (Trigger{}).WithDefaults().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg  Trigger
		want string
	}{
		{Trigger{AckTimeout: -1}, "ack_timeout -1ns: must be a positive duration"},
		{Trigger{RateLimit: -1}, "rate_limit -1: must be a positive number"},
		{Trigger{Retries: -2}, "retries -2: must be 0 or more"},
		{Trigger{AckMarker: "ACK"}, `ack_marker "ACK": must contain {id}`},
	} {
		if err := c.cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want %q", c.cfg, err, c.want)
		}
	}
}

// TestQuestionsValidate: a bad pattern is named by its field, index and
// text; a nil section (no rule) is valid.
func TestQuestionsValidate(t *testing.T) {
	var none *Questions
	if err := none.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q    Questions
		want string
	}{
		{Questions{Ask: []string{`should I`}, Choice: []string{"ok", "(unclosed"}}, `questions.choice[1] "(unclosed"`},
		{Questions{Option: "["}, `questions.option "["`},
		{Questions{OptionLead: []string{"a**"}}, `questions.option_lead[0]`},
	} {
		if err := c.q.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want %q", c.q, err, c.want)
		}
	}
}

// TestModelExampleValidate: an example's reply is held to the contract
// the model's replies are (a state of States, one-line summary, one key).
func TestModelExampleValidate(t *testing.T) {
	ok := ModelExample{Screen: "Continue? (y/n)", Reply: ModelReply{State: StateNeedsConfirmation, Summary: "Continue?", Actions: []ModelAction{{Label: "Yes", Key: "y"}}}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		e    ModelExample
		want string
	}{
		{ModelExample{Reply: ok.Reply}, "screen: empty"},
		{ModelExample{Screen: "x", Reply: ModelReply{State: "WAITING"}}, `reply: state "WAITING": valid states are READY`},
		{ModelExample{Screen: "x", Reply: ModelReply{State: StateReady, Summary: "a\nb"}}, "summary is not one line"},
		{ModelExample{Screen: "x", Reply: ModelReply{State: StateReady, Actions: []ModelAction{{Label: "go", Key: "Up Enter"}}}}, "actions_needed[0] (go): key \"Up Enter\": 2 keys"},
	} {
		if err := c.e.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want %q", c.e, err, c.want)
		}
	}
}
