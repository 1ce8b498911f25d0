//go:build linux

package store

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestLimitsYAMLAndDefaults(t *testing.T) {
	var c Limits
	src := "log:\n  max_size: 64KB\n  keep_days: 7\n  max_total: 1048576\naudit:\n  max_size: 1MiB\n  keep: 3\n"
	if err := yaml.Unmarshal([]byte(src), &c); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := Limits{Log: LogConfig{MaxSize: 64 * KiB, KeepDays: 7, MaxTotal: MiB}, Audit: AuditConfig{MaxSize: MiB, Keep: 3}}
	if c != want {
		t.Errorf("got %+v, want %+v", c, want)
	}
	d := Limits{}.WithDefaults()
	if d.Log.MaxSize != 10*MiB || d.Log.KeepDays != 30 || d.Log.MaxTotal != 200*MiB || d.Audit.MaxSize != 50*MiB || d.Audit.Keep != 12 || d.Audit.KeepDays != 0 {
		t.Errorf("defaults %+v", d)
	}
	if s := (10 * MiB).String(); s != "10MB" {
		t.Errorf("String %q", s)
	}
}

func TestLimitsErrorsNameKeyAndRange(t *testing.T) {
	for _, tc := range []struct {
		c    Limits
		want string
	}{
		{Limits{Log: LogConfig{MaxSize: 100}}, "log.max_size 100B: must be between 1KB and 64GB"},
		{Limits{Log: LogConfig{MaxSize: -1}}, "log.max_size -1B: must be between 1KB and 64GB"},
		{Limits{Log: LogConfig{KeepDays: -1}}, "log.keep_days -1: must be between 1 and 3650"},
		{Limits{Log: LogConfig{MaxTotal: 1}}, "log.max_total 1B: must be between 1KB"},
		{Limits{Log: LogConfig{MaxSize: 8 * MiB, MaxTotal: 10 * MiB}}, "log.max_total 10MB: must be at least twice log.max_size (8MB)"},
		{Limits{Audit: AuditConfig{MaxSize: 65 * GiB}}, "audit.max_size 65GB: must be between"},
		{Limits{Audit: AuditConfig{Keep: 20000}}, "audit.keep 20000: must be between 1 and 10000"},
		{Limits{Audit: AuditConfig{KeepDays: -3}}, "audit.keep_days -3"},
	} {
		err := tc.c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want %q", tc.c, err, tc.want)
		}
	}
	var s Size
	if err := s.UnmarshalText([]byte("-1")); err != nil || s != -1 {
		t.Errorf(`"-1": %v, %v; want -1 kept for Validate to name the key`, s, err)
	}
	for _, bad := range []string{"ten", "-", "5TB", "1.5MB"} {
		if err := s.UnmarshalText([]byte(bad)); err == nil || !strings.Contains(err.Error(), "unit KB, MB or GB") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}
