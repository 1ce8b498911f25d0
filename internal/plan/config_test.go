//go:build linux

package plan

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/crash"
	"github.com/sup-tmux/sup/internal/config"
	"github.com/sup-tmux/sup/internal/store"
)

func unitWriteConfig(t *testing.T, content string) (configDir, path string) {
	t.Helper()
	configDir = t.TempDir()
	path = filepath.Join(configDir, "config.yaml")
	unitWriteFile(t, path, content)
	return configDir, path
}

func TestUnitConfigDefaults(t *testing.T) {
	d := DefaultConfig()
	if d.DefaultProfile != "claude" || d.StopGrace != 5*time.Second {
		t.Errorf("DefaultConfig = %+v; want default_profile claude, stop_grace 5s", d)
	}
	cfg, err := LoadConfig(t.TempDir())
	if err != nil {
		t.Fatalf("LoadConfig without a file: %v", err)
	}
	if !reflect.DeepEqual(cfg, d) {
		t.Errorf("LoadConfig without a file = %+v, want %+v", cfg, d)
	}
	if got, want := cfg.Crash.Policy(), crash.DefaultPolicy(); got != want {
		t.Errorf("default crash policy = %+v, want %+v", got, want)
	}
	if cfg.Socket != (SocketConfig{}) {
		t.Errorf("default socket = %+v, want zero (the ipc defaults)", cfg.Socket)
	}
	// A missing config dir is the same as a missing file.
	if cfg, err := LoadConfig(filepath.Join(t.TempDir(), "does", "not", "exist")); err != nil || !reflect.DeepEqual(cfg, d) {
		t.Errorf("LoadConfig(missing dir) = %+v, %v", cfg, err)
	}
	for _, content := range []string{"", "# only a comment\n", "\n\n"} {
		dir, _ := unitWriteConfig(t, content)
		if cfg, err := LoadConfig(dir); err != nil || !reflect.DeepEqual(cfg, d) {
			t.Errorf("LoadConfig(%q) = %+v, %v; want the defaults", content, cfg, err)
		}
	}
}

func TestUnitConfigOverrides(t *testing.T) {
	dir, _ := unitWriteConfig(t, `
default_profile: codex
stop_grace: 1500ms
crash:
  flap_window: 2m
  flap_threshold: 4
  transient_delay: 3s
  flapping_delay: 1m
  stable_after: 90s
  halt_after: 7
  history_size: 20
socket:
  max_frame_bytes: 65536
  max_clients: 8
activity:
  quiet_window: 10s
  ready_debounce: 250ms
queue:
  skip_cooldown: 90s
notify:
  after: 30s
  tmux: false
  command: [ntfy, publish, sup]
`)
	cfg, err := LoadConfig(dir)
	if err != nil {
		t.Fatalf("LoadConfig: %v", err)
	}
	want := Config{
		DefaultProfile: "codex",
		StopGrace:      1500 * time.Millisecond,
		Crash: CrashConfig{
			FlapWindow: 2 * time.Minute, FlapThreshold: 4, TransientDelay: 3 * time.Second,
			FlappingDelay: time.Minute, StableAfter: 90 * time.Second, HaltAfter: 7, HistorySize: 20,
		},
		Socket:   SocketConfig{MaxFrameBytes: 65536, MaxClients: 8},
		Activity: ActivityConfig{QuietWindow: 10 * time.Second, ReadyDebounce: 250 * time.Millisecond},
		Queue:    QueueConfig{SkipCooldown: 90 * time.Second},
		Notify:   config.Notify{After: 30 * time.Second, Command: []string{"ntfy", "publish", "sup"}, CommandTimeout: 10 * time.Second},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("LoadConfig =\n%+v\nwant\n%+v", cfg, want)
	}
	wantPolicy := crash.Policy{
		FlapWindow: 2 * time.Minute, FlapThreshold: 4, TransientDelay: 3 * time.Second,
		FlappingDelay: time.Minute, StableAfter: 90 * time.Second, HaltAfter: 7, HistorySize: 20,
	}
	if got := cfg.Crash.Policy(); got != wantPolicy {
		t.Errorf("Policy = %+v, want %+v", got, wantPolicy)
	}
}

func TestUnitConfigPartial(t *testing.T) {
	dir, _ := unitWriteConfig(t, "crash:\n  halt_after: 2\n")
	cfg, err := LoadConfig(dir)
	if err != nil {
		t.Fatalf("LoadConfig: %v", err)
	}
	if cfg.DefaultProfile != "claude" || cfg.StopGrace != 5*time.Second {
		t.Errorf("untouched fields lost their defaults: %+v", cfg)
	}
	p := cfg.Crash.Policy()
	want := crash.DefaultPolicy()
	want.HaltAfter = 2
	if p != want {
		t.Errorf("Policy = %+v, want %+v", p, want)
	}
}

func TestUnitConfigLimits(t *testing.T) {
	dir, _ := unitWriteConfig(t, "log: {max_size: 1KB}\naudit:\n  max_size: 2KB\n  keep: 3\n")
	cfg, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := store.Limits{Log: store.LogConfig{MaxSize: store.KiB}, Audit: store.AuditConfig{MaxSize: 2 * store.KiB, Keep: 3}}
	if cfg.Limits != want {
		t.Errorf("limits %+v, want %+v", cfg.Limits, want)
	}
	if d := DefaultConfig().Limits.WithDefaults(); d.Log.MaxSize != 10*store.MiB || d.Audit.Keep != 12 {
		t.Errorf("default limits %+v", d)
	}
}

func TestUnitConfigErrors(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		contains []string
	}{
		{"unknown top-level key", "default_profle: codex\n", []string{"default_profle"}},
		{"unknown crash key", "crash:\n  halt_afterr: 3\n", []string{"halt_afterr"}},
		{"unknown socket key", "socket:\n  max_client: 3\n", []string{"max_client"}},
		{"unknown policy key", "policy:\n  agent_trigers: any\n", []string{"agent_trigers", "under policy", "valid: agent_triggers, grants"}},
		{"bad agent_triggers", "policy:\n  agent_triggers: team\n", []string{"policy: agent_triggers \"team\"", "workspace (the default), own, any and none"}},
		{"unknown grant key", "policy:\n  grants:\n    - {agent: c, allows: [answer]}\n", []string{"allows", "valid: agent, allow, targets"}},
		{"bad grant action", "policy:\n  grants:\n    - {agent: c, allow: [approve]}\n", []string{"grants[0] (c)", "valid actions are answer"}},
		{"bad duration", "stop_grace: 5 parsecs\n", []string{"line 1", "5 parsecs"}},
		{"duration without unit", "stop_grace: 5\n", []string{"5"}},
		{"bad crash duration", "crash:\n  flap_window: soon\n", []string{"soon"}},
		{"zero stop_grace", "stop_grace: 0s\n", []string{"stop_grace", "positive"}},
		{"negative stop_grace", "stop_grace: -1s\n", []string{"stop_grace"}},
		{"negative halt_after", "crash:\n  halt_after: -1\n", []string{"crash", "HaltAfter"}},
		{"negative flap_threshold", "crash:\n  flap_threshold: -2\n", []string{"crash", "FlapThreshold"}},
		{"negative history_size", "crash:\n  history_size: -3\n", []string{"crash", "HistorySize"}},
		{"negative flap_window", "crash:\n  flap_window: -1s\n", []string{"crash", "FlapWindow"}},
		{"negative transient_delay", "crash:\n  transient_delay: -5s\n", []string{"crash", "TransientDelay"}},
		{"negative max_clients", "socket:\n  max_clients: -1\n", []string{"socket", "-1"}},
		{"negative max_frame_bytes", "socket:\n  max_frame_bytes: -10\n", []string{"socket", "-10"}},
		{"count is not a number", "crash:\n  halt_after: many\n", []string{"many"}},
		{"crash not a map", "crash: 5\n", nil},
		{"bad default_profile", "default_profile: Bad Name\n", []string{"default_profile", "Bad Name"}},
		{"empty default_profile", "default_profile: \"\"\n", []string{"default_profile"}},
		{"malformed YAML", "default_profile: [codex\n", nil},
		{"top level is a list", "- default_profile\n", nil},
		{"negative log.max_size", "log: {max_size: -1}\n", []string{"log.max_size -1B", "between 1KB and 64GB"}},
		{"log.max_size not a size", "log:\n  max_size: ten\n", []string{`size "ten"`, "KB, MB or GB"}},
		{"tiny audit.max_size", "audit:\n  max_size: 10\n", []string{"audit.max_size 10B", "between 1KB"}},
		{"unknown log key", "log:\n  max_sise: 1KB\n", []string{"max_sise"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, path := unitWriteConfig(t, tt.content)
			cfg, err := LoadConfig(dir)
			if err == nil {
				t.Fatalf("LoadConfig(%q) = %+v; want an error", tt.content, cfg)
			}
			msg := err.Error()
			if !strings.Contains(msg, path) {
				t.Errorf("error %q: want it to name %s", msg, path)
			}
			for _, c := range tt.contains {
				if !strings.Contains(msg, c) {
					t.Errorf("error %q: want it to contain %q", msg, c)
				}
			}
		})
	}
}
