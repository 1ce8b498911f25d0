package ipc

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// specEventRow is one row of specs/ipc.md's event table.
type specEventRow struct {
	event, variant, goType string
	keys                   []string
}

// specEventRows reads the table of "### Events (`subscribe`)".
func specEventRows(t *testing.T) []specEventRow {
	t.Helper()
	b, err := os.ReadFile("../specs/ipc.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "### Events (`subscribe`)")
	if !ok {
		t.Fatal("specs/ipc.md has no Events (subscribe) section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	code := regexp.MustCompile("`([^`]*)`")
	// The keys are the code spans outside parentheses: what is inside
	// them is a value or an aside.
	paren := regexp.MustCompile(`\([^()]*(\([^()]*\)[^()]*)*\)`)
	var rows []specEventRow
	for line := range strings.Lines(sec) {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) != 6 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		r := specEventRow{event: strings.Trim(strings.TrimSpace(cells[1]), "`"), variant: strings.TrimSpace(cells[2]),
			goType: strings.Trim(strings.TrimSpace(cells[4]), "`")}
		for _, m := range code.FindAllStringSubmatch(paren.ReplaceAllString(cells[3], ""), -1) {
			r.keys = append(r.keys, m[1])
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatal("no rows in specs/ipc.md's event table")
	}
	return rows
}

// TestEventKeysMatchSpec: every event type encodes to exactly the keys
// its row of specs/ipc.md lists — with zero values, so an omitempty that
// would drop a listed key fails — under the event name of its row, and
// every row has its type.
func TestEventKeysMatchSpec(t *testing.T) {
	samples := map[string]EventData{
		"LifecycleSpawn|phase spawn":                        LifecycleSpawn{Phase: PhaseSpawn},
		"LifecycleExit|phase exit":                          LifecycleExit{Phase: PhaseExit},
		"LifecycleRestartScheduled|phase restart_scheduled": LifecycleRestartScheduled{Phase: PhaseRestartScheduled},
		"LifecycleHalted|phase halted":                      LifecycleHalted{Phase: PhaseHalted},
		"LifecycleResumed|phase resumed":                    LifecycleResumed{Phase: PhaseResumed},
		"LifecycleStopped|phase stopped":                    LifecycleStopped{Phase: PhaseStopped},
		"ActivityEvent|":                                    ActivityEvent{},
		"ResizeEvent|":                                      ResizeEvent{},
		"ClientConnect|phase connect":                       ClientConnect{Phase: PhaseConnect, Caller: &Caller{Kind: CallerOperator}},
		"ClientDisconnect|phase disconnect":                 ClientDisconnect{Phase: PhaseDisconnect},
		"ClientRefused|phase refused":                       ClientRefused{Phase: PhaseRefused},
		"TriggerEvent|":                                     TriggerEvent{},
		// A deferred step's own keys are never zero (the type's comment).
		"TriggerProgress|state deferred": TriggerProgress{State: ProgressDeferred, ErrorCode: CodeOperatorBusy,
			Message: "the human is typing in the pane", NextLookAt: 1, GivesUpAt: 2},
		"TriggerProgress|state written": TriggerProgress{State: ProgressWritten, Attempt: 1, Gate: "idle"},
	}
	seen := map[string]bool{}
	for _, r := range specEventRows(t) {
		variant := strings.ReplaceAll(r.variant, "`", "")
		key := r.goType + "|" + variant
		seen[key] = true
		v, ok := samples[key]
		if !ok {
			t.Errorf("specs/ipc.md lists %s (%s) as %s: no such sample here", r.event, variant, r.goType)
			continue
		}
		if got := reflect.TypeOf(v).Name(); got != r.goType {
			t.Errorf("%s: sample is a %s", key, got)
		}
		if v.EventName() != r.event {
			t.Errorf("%s: EventName %q, the spec's row says %q", key, v.EventName(), r.event)
		}
		b, err := marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		var got []string
		for k := range m {
			got = append(got, k)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(r.keys))
		if !slices.Equal(got, want) {
			t.Errorf("%s encodes keys %v; specs/ipc.md lists %v", key, got, want)
		}
		if f, ok := strings.CutPrefix(variant, "phase "); ok && m["phase"] != f {
			t.Errorf("%s: phase %v", key, m["phase"])
		}
	}
	for k := range samples {
		if !seen[k] {
			t.Errorf("%s is not in specs/ipc.md's event table", k)
		}
	}
}
