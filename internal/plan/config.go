package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sup-tmux/sup/crash"
	"github.com/sup-tmux/sup/internal/caller"
	"github.com/sup-tmux/sup/internal/config"
	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/store"
)

// Config is $XDG_CONFIG_HOME/sup/config.yaml. Every number has a default, so
// the file is optional and may hold only what the user changes.
type Config struct {
	DefaultProfile string         `yaml:"default_profile"`
	StopGrace      time.Duration  `yaml:"stop_grace"` // SIGTERM → SIGKILL of the child's group
	Crash          CrashConfig    `yaml:"crash"`
	Socket         SocketConfig   `yaml:"socket"`
	Activity       ActivityConfig `yaml:"activity"`
	Trigger        config.Trigger `yaml:"trigger"` // delivery policy; zero fields: defaults (specs/triggers.md)
	Queue          QueueConfig    `yaml:"queue"`
	// Limits are the top-level log: and audit: sections, the caps on disk
	// (specs/supervisor.md, "Limits on disk"); zero fields: defaults.
	Limits store.Limits  `yaml:",inline"`
	Notify config.Notify `yaml:"notify"` // telling the human a session waits (specs/broker.md)
	// Hosts are the other machines the broker spans (specs/broker.md,
	// "Hosts"); the local host is always there and is not listed.
	Hosts []HostConfig `yaml:"hosts"`
	// Model is the opt-in model reader (specs/detection.md, "The model
	// reader"); off while its endpoint is empty.
	Model config.Model `yaml:"model"`
	// Policy is what agents may do through sup (specs/security.md, "Who
	// is calling"); the zero value is the default.
	Policy caller.Policy `yaml:"policy"`
}

// HostConfig is one remote host of the broker: reached with
// `ssh DESTINATION SUP relay`, ssh's options coming from ~/.ssh/config.
type HostConfig struct {
	Name string `yaml:"name"` // how sup names it: the host column, host:TARGET
	SSH  string `yaml:"ssh"`  // ssh's destination: [user@]host or a Host alias
	Sup  string `yaml:"sup"`  // sup's path on that host ("sup": its PATH)
}

// QueueConfig tunes this session's place in the stuck queue.
type QueueConfig struct {
	// SkipCooldown: after a skip the session is not eligible as queue head
	// for this long, unless a new stuck event arrives first (5m).
	SkipCooldown time.Duration `yaml:"skip_cooldown"`
}

// ActivityConfig tunes activity detection (zero: defaults).
type ActivityConfig struct {
	QuietWindow time.Duration `yaml:"quiet_window"` // keys within it make the operator busy (20s)
	HookHold    time.Duration `yaml:"hook_hold"`    // how long a hook outranks the screen (3s)
	// ReadyDebounce: the screen says ready only after output was quiet
	// this long (1s); needs_confirmation is never debounced.
	ReadyDebounce time.Duration `yaml:"ready_debounce"`
}

// CrashConfig is the YAML face of crash.Policy.
type CrashConfig struct {
	FlapWindow     time.Duration `yaml:"flap_window"`
	FlapThreshold  int           `yaml:"flap_threshold"`
	TransientDelay time.Duration `yaml:"transient_delay"`
	FlappingDelay  time.Duration `yaml:"flapping_delay"`
	StableAfter    time.Duration `yaml:"stable_after"`
	HaltAfter      int           `yaml:"halt_after"`
	HistorySize    int           `yaml:"history_size"`
}

// SocketConfig holds the control socket's limits.
type SocketConfig struct {
	MaxFrameBytes int `yaml:"max_frame_bytes"`
	MaxClients    int `yaml:"max_clients"`
}

// Policy converts the crash section to a crash.Policy (zero fields: defaults).
func (c CrashConfig) Policy() crash.Policy {
	return crash.Policy(c).WithDefaults()
}

// DefaultConfig is the configuration without a config file.
func DefaultConfig() Config {
	return Config{DefaultProfile: "claude", StopGrace: 5 * time.Second, Activity: ActivityConfig{ReadyDebounce: time.Second},
		Queue: QueueConfig{SkipCooldown: 5 * time.Minute}, Notify: config.DefaultNotify()}
}

// LoadConfig reads configDir/config.yaml; a missing file is the default.
// Unknown keys and bad values are errors naming the file, so a typo cannot
// silently leave a default in force.
func LoadConfig(configDir string) (Config, error) {
	cfg := DefaultConfig()
	path := paths.ConfigFile(configDir)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("read config: %w", err)
	}
	if err := decodeYAML(data, &cfg); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	if err := cfg.validate(); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	if f, ok := strings.CutPrefix(cfg.Model.EnvFile, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			cfg.Model.EnvFile = filepath.Join(home, f)
		}
	}
	if f := cfg.Model.EnvFile; f != "" && !filepath.IsAbs(f) {
		cfg.Model.EnvFile = filepath.Join(configDir, f) // relative to config.yaml, not to wherever sup runs
	}
	return cfg, nil
}

func (c Config) validate() error {
	if !profileName.MatchString(c.DefaultProfile) {
		return fmt.Errorf("default_profile %q: must be a profile name such as claude, codex, gemini or shell", c.DefaultProfile)
	}
	if c.StopGrace <= 0 {
		return fmt.Errorf("stop_grace %s: must be a positive duration such as 5s", c.StopGrace)
	}
	if err := crash.Policy(c.Crash).Validate(); err != nil {
		return fmt.Errorf("crash: %w", err)
	}
	if c.Activity.QuietWindow < 0 || c.Activity.HookHold < 0 || c.Activity.ReadyDebounce < 0 {
		return fmt.Errorf("activity: quiet_window, hook_hold and ready_debounce must be positive durations such as 1s")
	}
	if c.Queue.SkipCooldown <= 0 {
		return fmt.Errorf("queue: skip_cooldown %s: must be a positive duration such as 5m", c.Queue.SkipCooldown)
	}
	if err := c.Notify.Validate(); err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	if err := c.Trigger.Validate(); err != nil {
		return fmt.Errorf("trigger: %w", err)
	}
	if err := c.Policy.Validate(); err != nil {
		return err // its errors name the key (policy: grants[0] …)
	}
	if err := validateHosts(c.Hosts); err != nil {
		return err
	}
	if err := c.Model.Validate(); err != nil {
		return err // its errors name the key (model: key_env …)
	}
	if c.Socket.MaxFrameBytes < 0 || c.Socket.MaxClients < 0 {
		return fmt.Errorf("socket: max_frame_bytes and max_clients must be positive (got %s and %s)",
			strconv.Itoa(c.Socket.MaxFrameBytes), strconv.Itoa(c.Socket.MaxClients))
	}
	return c.Limits.Validate() // its errors name the key (log.max_size, …)
}
