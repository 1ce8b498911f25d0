package crash

import (
	"strings"
	"testing"
	"time"
)

func TestDefaultPolicy(t *testing.T) {
	want := Policy{
		FlapWindow:     60 * time.Second,
		FlapThreshold:  3,
		TransientDelay: 2 * time.Second,
		FlappingDelay:  30 * time.Second,
		StableAfter:    60 * time.Second,
		HaltAfter:      5,
		HistorySize:    10,
	}
	if got := DefaultPolicy(); got != want {
		t.Fatalf("DefaultPolicy() = %+v, want %+v", got, want)
	}
	if got := (Policy{}).WithDefaults(); got != want {
		t.Fatalf("Policy{}.WithDefaults() = %+v, want %+v", got, want)
	}
	if err := DefaultPolicy().Validate(); err != nil {
		t.Fatalf("DefaultPolicy().Validate() = %v", err)
	}
	if err := (Policy{}).Validate(); err != nil {
		t.Fatalf("Policy{}.Validate() = %v", err)
	}
}

func TestWithDefaultsKeepsSetFields(t *testing.T) {
	p := Policy{FlapThreshold: 7, TransientDelay: time.Second}.WithDefaults()
	if p.FlapThreshold != 7 || p.TransientDelay != time.Second {
		t.Fatalf("set fields overwritten: %+v", p)
	}
	if p.HaltAfter != DefaultHaltAfter || p.FlapWindow != DefaultFlapWindow {
		t.Fatalf("zero fields not defaulted: %+v", p)
	}
}

func TestTrackerUsesDefaults(t *testing.T) {
	if got := NewTracker(Policy{}).Policy(); got != DefaultPolicy() {
		t.Fatalf("NewTracker(Policy{}).Policy() = %+v", got)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		p     Policy
		field string
	}{
		{"FlapWindow", Policy{FlapWindow: -time.Second}, "FlapWindow"},
		{"FlapThreshold", Policy{FlapThreshold: -1}, "FlapThreshold"},
		{"TransientDelay", Policy{TransientDelay: -1}, "TransientDelay"},
		{"FlappingDelay", Policy{FlappingDelay: -1}, "FlappingDelay"},
		{"StableAfter", Policy{StableAfter: -1}, "StableAfter"},
		{"HaltAfter", Policy{HaltAfter: -1}, "HaltAfter"},
		{"HistorySize", Policy{HistorySize: -3}, "HistorySize"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Validate()
			if err == nil {
				t.Fatalf("Validate(%+v) = nil, want error", tt.p)
			}
			if !strings.Contains(err.Error(), "Policy."+tt.field) {
				t.Fatalf("Validate error %q does not name %s", err, tt.field)
			}
		})
	}
}

func TestValidateNamesEveryBadField(t *testing.T) {
	err := Policy{FlapWindow: -1, HaltAfter: -1}.Validate()
	if err == nil {
		t.Fatal("Validate = nil, want error")
	}
	for _, f := range []string{"Policy.FlapWindow", "Policy.HaltAfter"} {
		if !strings.Contains(err.Error(), f) {
			t.Fatalf("error %q does not name %s", err, f)
		}
	}
	if strings.Contains(err.Error(), "StableAfter") {
		t.Fatalf("error %q names a valid field", err)
	}
}

func TestNewTrackerPanicsOnInvalidPolicy(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewTracker with HaltAfter -1 did not panic")
		}
	}()
	NewTracker(Policy{HaltAfter: -1})
}
