package foreground

import (
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	now := time.Unix(1000, 0)
	cases := []struct {
		name       string
		f          Facts
		lastOutput time.Time
		busy       bool
		rule       string
	}{
		{"recent output beats a reader", Facts{Wait: Reading}, now.Add(-300 * time.Millisecond), true, "output:recent"},
		{"quiet reader is idle", Facts{Wait: Reading}, now.Add(-2 * time.Second), false, "foreground:reading"},
		{"never printed, reading", Facts{Wait: Reading}, time.Time{}, false, "foreground:reading"},
		{"quiet worker is busy", Facts{Wait: Working}, now.Add(-5 * time.Second), true, "foreground:working"},
		{"unreadable is busy, never ready", Facts{Wait: Unknown}, now.Add(-5 * time.Second), true, "foreground:unknown"},
		{"the window's edge is quiet", Facts{Wait: Reading}, now.Add(-DefaultBusyWindow), false, "foreground:reading"},
	}
	for _, c := range cases {
		v := Decide(c.f, c.lastOutput, now, 0)
		if v.Busy != c.busy || v.Rule != c.rule {
			t.Errorf("%s: Decide = busy %v rule %s, want busy %v rule %s", c.name, v.Busy, v.Rule, c.busy, c.rule)
		}
		if want := map[bool]string{true: "working", false: "idle"}[c.busy]; v.Reason != want {
			t.Errorf("%s: reason %q, want %q", c.name, v.Reason, want)
		}
	}
}

func TestDecideWindow(t *testing.T) {
	now := time.Unix(1000, 0)
	v := Decide(Facts{Wait: Reading}, now.Add(-3*time.Second), now, 5*time.Second)
	if !v.Busy {
		t.Fatalf("output 3s ago within a 5s window: %+v, want busy", v)
	}
}
