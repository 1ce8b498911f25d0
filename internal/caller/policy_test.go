package caller

import (
	"strings"
	"testing"

	"github.com/sup-tmux/sup/ipc"
)

func agentOf(sessions ...ipc.CallerSession) ipc.Caller {
	c := ipc.Caller{Kind: ipc.CallerAgent, PID: 42, Enclosing: sessions}
	if len(sessions) > 0 {
		c.Session = &sessions[0]
	}
	return c
}

func TestPolicyAllow(t *testing.T) {
	sb := ipc.CallerSession{Name: "sb", ID: "b1", Workspace: "w1"}
	sc := ipc.CallerSession{Name: "sc", ID: "c1", Workspace: "w1"}
	nested := ipc.CallerSession{Name: "coord", ID: "n1", Workspace: "w2"}
	lone := ipc.CallerSession{Name: "lone", ID: "l1"}
	unknown := ipc.CallerSession{SupPID: 9}
	tc1 := Target{Name: "sc", ID: "c1", Workspace: "w1"}
	tw2 := Target{Name: "sd", ID: "d1", Workspace: "w2"}
	tnone := Target{Name: "x", ID: "x1"}
	grants := Policy{Grants: []Grant{{Agent: "coord", Allow: []Action{ActAnswer, ActForce, ActTrigger}}, {Agent: "sb", Allow: []Action{ActTrigger}, Targets: []string{"sd"}}}}
	op := ipc.Caller{Kind: ipc.CallerOperator}
	for _, tc := range []struct {
		name string
		p    Policy
		c    ipc.Caller
		act  Action
		t    Target
		ok   bool
		why  string
	}{
		{"operator answers", Policy{}, op, ActAnswer, tc1, true, ""},
		{"operator forces", Policy{}, op, ActForce, tc1, true, ""},
		{"own agent's hook", Policy{}, agentOf(sc), ActHook, tc1, true, ""},
		{"another agent's hook", Policy{}, agentOf(sb), ActHook, tc1, false, "own agent"},
		{"unidentified agent's hook", Policy{}, agentOf(unknown), ActHook, tc1, false, "own agent"},
		{"agent answers its own prompt", Policy{}, agentOf(sc), ActAnswer, tc1, false, "consent is the operator's"},
		{"agent injects", Policy{}, agentOf(sb), ActInject, tc1, false, "raw keys"},
		{"agent forces", Policy{}, agentOf(sb), ActForce, tc1, false, "forced delivery"},
		{"trigger within the workspace", Policy{}, agentOf(sb), ActTrigger, tc1, true, ""},
		{"trigger across workspaces", Policy{}, agentOf(sb), ActTrigger, tw2, false, "agent_triggers is workspace"},
		{"trigger across, granted for that target", grants, agentOf(sb), ActTrigger, tw2, true, ""},
		{"grant's targets bound it", grants, agentOf(sb), ActTrigger, Target{Name: "se", ID: "e1", Workspace: "w2"}, false, "grant"},
		{"no workspace is a workspace of its own", Policy{}, agentOf(lone), ActTrigger, tnone, false, "no workspace"},
		{"own session without a workspace", Policy{}, agentOf(lone), ActTrigger, Target{Name: "lone", ID: "l1"}, true, ""},
		{"agent_triggers none", Policy{AgentTriggers: TriggerNone}, agentOf(sb), ActTrigger, tc1, false, "no session"},
		{"agent_triggers any", Policy{AgentTriggers: TriggerAny}, agentOf(sb), ActTrigger, tw2, true, ""},
		{"agent_triggers own", Policy{AgentTriggers: TriggerOwn}, agentOf(sb), ActTrigger, tc1, false, "only its own"},
		{"granted coordinator answers", grants, agentOf(nested), ActAnswer, tc1, true, ""},
		{"a nested coordinator inside sb is bound by sb too", grants, agentOf(nested, sb), ActAnswer, tc1, false, "consent"},
		{"nested: workspace of every enclosing session", Policy{}, agentOf(nested, sb), ActTrigger, tw2, false, "workspace"},
		{"unidentified agent: no grant", grants, agentOf(unknown), ActTrigger, tw2, false, ""},
		{"own stop", Policy{}, agentOf(sc), ActLifecycle, tc1, true, ""},
		{"another session's stop", Policy{}, agentOf(sb), ActLifecycle, tc1, false, "only its own session"},
		{"own skip", Policy{}, agentOf(sc), ActControl, tc1, false, "skip and unblock"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, why := tc.p.Allow(tc.c, tc.act, tc.t)
			if ok != tc.ok || !strings.Contains(why, tc.why) {
				t.Fatalf("Allow = %v, %q; want %v, a reason holding %q", ok, why, tc.ok, tc.why)
			}
			if !ok && tc.act != ActHook && !strings.Contains(why, "grant") { // a hook cannot be granted
				t.Fatalf("refusal %q does not say how to grant it", why)
			}
		})
	}
}

func TestPolicyValidate(t *testing.T) {
	for _, tc := range []struct {
		p    Policy
		want string
	}{
		{Policy{AgentTriggers: "team"}, "valid values are workspace"},
		{Policy{Grants: []Grant{{Allow: []Action{ActAnswer}}}}, "grants[0]: agent"},
		{Policy{Grants: []Grant{{Agent: "c"}}}, "allow: list what it may do"},
		{Policy{Grants: []Grant{{Agent: "c", Allow: []Action{"approve"}}}}, `"approve": valid actions are answer, inject, force, trigger, lifecycle, control`},
	} {
		if err := tc.p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.p, err, tc.want)
		}
	}
	if err := (Policy{AgentTriggers: TriggerAny, Grants: []Grant{{Agent: "c", Allow: Grantable}}}).Validate(); err != nil {
		t.Errorf("a valid policy: %v", err)
	}
}
