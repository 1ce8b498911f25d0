package store

import (
	"fmt"
	"strconv"
	"strings"
)

// Size is a byte count written in config.yaml as a number of bytes or with
// a unit: 10MB, 512KiB, 1GB (KB/MB/GB are 1024-based, like KiB/MiB/GiB:
// nobody sizes a log in powers of ten).
type Size int64

// Byte sizes.
const (
	KiB Size = 1 << 10
	MiB Size = 1 << 20
	GiB Size = 1 << 30
)

var sizeUnits = []struct {
	suffix string
	mult   Size
}{
	{"KiB", KiB}, {"MiB", MiB}, {"GiB", GiB}, {"KB", KiB}, {"MB", MiB}, {"GB", GiB}, {"K", KiB}, {"M", MiB}, {"G", GiB}, {"B", 1},
}

// UnmarshalText reads "10MB", "512KiB" or a plain number of bytes. A
// negative number is kept, not refused here, so that Limits.Validate's
// error names the key it was written under.
func (s *Size) UnmarshalText(b []byte) error {
	text := strings.TrimSpace(string(b))
	num, mult := text, Size(1)
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(text, u.suffix); ok {
			num, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > int64(1<<50)/int64(mult) || n < -int64(1<<50)/int64(mult) {
		return fmt.Errorf("size %q: want a whole number of bytes, optionally with a unit KB, MB or GB (e.g. 10MB)", text)
	}
	*s = Size(n) * mult
	return nil
}

// String writes s with the largest unit that divides it.
func (s Size) String() string {
	for _, u := range []struct {
		suffix string
		mult   Size
	}{{"GB", GiB}, {"MB", MiB}, {"KB", KiB}} {
		if s >= u.mult && s%u.mult == 0 {
			return strconv.FormatInt(int64(s/u.mult), 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(s), 10) + "B"
}

// Limits is the `log:` and `audit:` sections of config.yaml. Zero fields
// take the defaults (WithDefaults).
type Limits struct {
	Log   LogConfig   `yaml:"log"`
	Audit AuditConfig `yaml:"audit"`
}

// LogConfig bounds the session logs.
type LogConfig struct {
	// MaxSize caps one <id>.log; at the cap it becomes <id>.log.1 (10MB).
	MaxSize Size `yaml:"max_size"`
	// KeepDays: an ended session's logs older than this are pruned (30).
	KeepDays int `yaml:"keep_days"`
	// MaxTotal caps all sessions' logs of the state dir together: ended
	// sessions' logs are pruned oldest first above it (200MB).
	MaxTotal Size `yaml:"max_total"`
}

// AuditConfig bounds the audit trail.
type AuditConfig struct {
	// MaxSize: audit.jsonl is rotated to a dated file at this size (50MB).
	MaxSize Size `yaml:"max_size"`
	// Keep is how many dated files are kept (12).
	Keep int `yaml:"keep"`
	// KeepDays, when set, also removes dated files last written longer ago
	// (0: by count only).
	KeepDays int `yaml:"keep_days"`
}

// Defaults of Limits.
const (
	DefaultLogMaxSize   = 10 * MiB
	DefaultLogKeepDays  = 30
	DefaultLogMaxTotal  = 200 * MiB
	DefaultAuditMaxSize = 50 * MiB
	DefaultAuditKeep    = 12
)

// Valid ranges. The minimum size is small so tests (and tiny disks) can use
// tiny caps; below 1 KiB a log would rotate at nearly every line (sup's
// slog records are 100–300 bytes).
const (
	MinSize      = 1 * KiB
	MaxSize      = 64 * GiB
	MaxKeepDays  = 3650
	MaxAuditKeep = 10000
)

// WithDefaults fills zero fields with the defaults.
func (c Limits) WithDefaults() Limits {
	if c.Log.MaxSize == 0 {
		c.Log.MaxSize = DefaultLogMaxSize
	}
	if c.Log.KeepDays == 0 {
		c.Log.KeepDays = DefaultLogKeepDays
	}
	if c.Log.MaxTotal == 0 {
		c.Log.MaxTotal = DefaultLogMaxTotal
	}
	if c.Audit.MaxSize == 0 {
		c.Audit.MaxSize = DefaultAuditMaxSize
	}
	if c.Audit.Keep == 0 {
		c.Audit.Keep = DefaultAuditKeep
	}
	return c
}

// Validate checks c as written in config.yaml (zero: the default). Each
// error names the key and its valid range.
func (c Limits) Validate() error {
	size := func(key string, v Size) error {
		if v != 0 && (v < MinSize || v > MaxSize) {
			return fmt.Errorf("%s %s: must be between %s and %s (or absent for the default)", key, v, MinSize, MaxSize)
		}
		return nil
	}
	count := func(key string, v, hi int) error {
		if v < 0 || v > hi {
			return fmt.Errorf("%s %d: must be between 1 and %d (or absent for the default)", key, v, hi)
		}
		return nil
	}
	if err := size("log.max_size", c.Log.MaxSize); err != nil {
		return err
	}
	if err := count("log.keep_days", c.Log.KeepDays, MaxKeepDays); err != nil {
		return err
	}
	if err := size("log.max_total", c.Log.MaxTotal); err != nil {
		return err
	}
	d := c.WithDefaults()
	if d.Log.MaxTotal < 2*d.Log.MaxSize {
		return fmt.Errorf("log.max_total %s: must be at least twice log.max_size (%s), what one session may hold", d.Log.MaxTotal, d.Log.MaxSize)
	}
	if err := size("audit.max_size", c.Audit.MaxSize); err != nil {
		return err
	}
	if err := count("audit.keep", c.Audit.Keep, MaxAuditKeep); err != nil {
		return err
	}
	return count("audit.keep_days", c.Audit.KeepDays, MaxKeepDays)
}
