package trigger

import (
	"strings"
	"testing"
)

func TestParseOverride(t *testing.T) {
	o, err := ParseOverride(true, "human_override: I am watching")
	if err != nil || !o.Requested || o.Intent != IntentHuman || o.Prefix != "human_override:" {
		t.Fatalf("human: %+v %v", o, err)
	}
	o, err = ParseOverride(true, "coordinator_override:deadline")
	if err != nil || o.Intent != IntentCoordinator || o.Prefix != "coordinator_override:" {
		t.Fatalf("coordinator: %+v %v", o, err)
	}
	if o, err := ParseOverride(false, ""); err != nil || o.Requested {
		t.Fatalf("no force: %+v %v", o, err)
	}
	for _, c := range []struct {
		force  bool
		reason string
		want   string
	}{
		{true, "", "human_override: or coordinator_override:"},
		{true, "because", "human_override: or coordinator_override:"},
		{true, "Human_override: x", "human_override: or coordinator_override:"},
		{true, "human_override:  ", "say why"},
		{false, "human_override: x", "without force_override"},
	} {
		_, err := ParseOverride(c.force, c.reason)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "override_reason") {
			t.Errorf("ParseOverride(%v, %q) = %v, want an error about %q", c.force, c.reason, err, c.want)
		}
	}
}
