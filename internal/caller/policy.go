package caller

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sup-tmux/sup/ipc"
)

// Action is what a caller asks a session to do, as the policy sees it.
type Action string

const (
	// ActTrigger queues a prompt (trigger; cancel_trigger too).
	ActTrigger Action = "trigger"
	// ActAnswer answers a prompt, a question or a model's options.
	ActAnswer Action = "answer"
	// ActInject writes raw bytes to the agent's pty.
	ActInject Action = "inject"
	// ActForce is a trigger or answer with force_override.
	ActForce Action = "force"
	// ActLifecycle is stop, restart and resume.
	ActLifecycle Action = "lifecycle"
	// ActControl is the human's navigation and the loop guard: skip,
	// unblock.
	ActControl Action = "control"
	// ActHook applies an agent's hook.
	ActHook Action = "hook"
)

// Grantable are the actions a grant may name (config.yaml policy.grants[].allow).
var Grantable = []Action{ActAnswer, ActInject, ActForce, ActTrigger, ActLifecycle, ActControl}

// Trigger policies: which sessions an agent may trigger.
const (
	TriggerWorkspace = "workspace" // sessions of its own workspace (default)
	TriggerOwn       = "own"       // only its own session
	TriggerAny       = "any"       // every session
	TriggerNone      = "none"      // none
)

// Policy is config.yaml's policy: section: what agents may do through
// sup beyond reading (specs/security.md, "Consent is the operator's").
// The operator may do everything; the zero Policy is the default.
type Policy struct {
	// AgentTriggers: workspace (default), own, any or none.
	AgentTriggers string `yaml:"agent_triggers"`
	// Grants let named sessions' agents act for the operator.
	Grants []Grant `yaml:"grants"`
}

// Grant lets the agent of the session named Agent do Allow to the
// sessions named in Targets (every session when empty).
type Grant struct {
	Agent   string   `yaml:"agent"`
	Allow   []Action `yaml:"allow"`
	Targets []string `yaml:"targets"`
}

// Validate names the bad key and the valid values.
func (p Policy) Validate() error {
	switch p.AgentTriggers {
	case "", TriggerWorkspace, TriggerOwn, TriggerAny, TriggerNone:
	default:
		return fmt.Errorf("policy: agent_triggers %q: valid values are workspace (the default), own, any and none", p.AgentTriggers)
	}
	for i, g := range p.Grants {
		if strings.TrimSpace(g.Agent) == "" {
			return fmt.Errorf("policy: grants[%d]: agent: name the session whose agent the grant is for (its name, as sup ls shows it)", i)
		}
		if len(g.Allow) == 0 {
			return fmt.Errorf("policy: grants[%d] (%s): allow: list what it may do, from %s", i, g.Agent, grantable())
		}
		for _, a := range g.Allow {
			if !slices.Contains(Grantable, a) {
				return fmt.Errorf("policy: grants[%d] (%s): allow: %q: valid actions are %s", i, g.Agent, a, grantable())
			}
		}
	}
	return nil
}

func grantable() string {
	s := make([]string, len(Grantable))
	for i, a := range Grantable {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// Target is the session a call acts on.
type Target struct{ Name, ID, Workspace string }

// Allow decides whether c may do act to t. ok false comes with the
// reason, written for the NOT_ALLOWED message (it names the rule and how
// to grant it). An agent is bound by every session that encloses it: a
// supervisor an agent started itself cannot lend it another name.
func (p Policy) Allow(c ipc.Caller, act Action, t Target) (ok bool, why string) {
	if c.IsOperator() {
		return true, ""
	}
	own := c.Session != nil && c.Session.ID != "" && c.Session.ID == t.ID
	switch act {
	case ActHook:
		if own {
			return true, ""
		}
		return false, "a hook is accepted only from this session's own agent (or the operator)"
	case ActLifecycle:
		if own {
			return true, "" // it could end itself anyway
		}
	case ActTrigger:
		switch cmpOr(p.AgentTriggers, TriggerWorkspace) {
		case TriggerAny:
			return true, ""
		case TriggerOwn:
			if own {
				return true, ""
			}
		case TriggerWorkspace:
			if own || sameWorkspace(c, t) {
				return true, ""
			}
		}
	}
	if p.granted(c, act, t) {
		return true, ""
	}
	return false, p.refusal(c, act, t)
}

// sameWorkspace: every enclosing session is of t's workspace. A session
// without a workspace is a workspace of its own.
func sameWorkspace(c ipc.Caller, t Target) bool {
	if t.Workspace == "" || len(c.Enclosing) == 0 {
		return false
	}
	for _, s := range c.Enclosing {
		if s.ID == "" || s.Workspace != t.Workspace {
			return false
		}
	}
	return true
}

// granted: a grant names every enclosing session, with act, for t.
func (p Policy) granted(c ipc.Caller, act Action, t Target) bool {
	if len(c.Enclosing) == 0 {
		return false
	}
	for _, s := range c.Enclosing {
		if s.ID == "" || s.Name == "" {
			return false
		}
		if !slices.ContainsFunc(p.Grants, func(g Grant) bool {
			return g.Agent == s.Name && slices.Contains(g.Allow, act) && (len(g.Targets) == 0 || slices.Contains(g.Targets, t.Name))
		}) {
			return false
		}
	}
	return true
}

func (p Policy) refusal(c ipc.Caller, act Action, t Target) string {
	name := "NAME"
	if c.Session != nil && c.Session.Name != "" {
		name = c.Session.Name
	}
	grant := fmt.Sprintf("the operator can grant it in config.yaml: policy: {grants: [{agent: %s, allow: [%s]}]}", name, act)
	switch act {
	case ActAnswer:
		return "consent is the operator's: an agent may not answer a prompt; " + grant +
			" (if this is you typing in a supervised shell pane, run sup from a pane outside every agent)"
	case ActInject:
		return "raw keys are the operator's: an agent may not inject; " + grant
	case ActForce:
		return "a forced delivery is the operator's: an agent may not force past a busy operator or an open question; " + grant
	case ActTrigger:
		if t.Workspace == "" && cmpOr(p.AgentTriggers, TriggerWorkspace) == TriggerWorkspace {
			return "policy.agent_triggers is workspace and this session has no workspace (a session without one is a workspace of its own); " + grant
		}
		return fmt.Sprintf("policy.agent_triggers is %s: an agent may trigger %s; %s", cmpOr(p.AgentTriggers, TriggerWorkspace),
			map[string]string{TriggerWorkspace: "only sessions of its own workspace, and this session's workspace " + t.Workspace + " is not its",
				TriggerOwn: "only its own session", TriggerNone: "no session"}[cmpOr(p.AgentTriggers, TriggerWorkspace)], grant)
	case ActLifecycle:
		return "an agent may stop, restart or resume only its own session; " + grant
	case ActControl:
		return "skip and unblock are the operator's (the queue's order and the loop guard); " + grant
	}
	return "not allowed for agents"
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
