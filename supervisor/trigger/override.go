package trigger

import (
	"fmt"
	"strings"
)

// Override intents and collision gates of the audit record
// (specs/triggers.md, "Audit").
const (
	IntentHuman       = "human_override"
	IntentCoordinator = "coordinator_override"

	GateEnforced     = "enforced"
	GateBypassed     = "bypassed"
	GateNotEvaluated = "not_evaluated"
)

// Override is a validated force_override request.
type Override struct {
	Requested bool
	Intent    string // human_override or coordinator_override
	Prefix    string // the reason's prefix, with its colon
	Reason    string
}

// ParseOverride validates force_override and its reason: a force needs a
// reason that says who overrides (human_override: or coordinator_override:)
// and why; a reason without a force is a mistake worth reporting.
func ParseOverride(force bool, reason string) (Override, error) {
	if !force {
		if reason != "" {
			return Override{}, fmt.Errorf("override_reason %q given without force_override", reason)
		}
		return Override{}, nil
	}
	for _, intent := range []string{IntentHuman, IntentCoordinator} {
		if why, ok := strings.CutPrefix(reason, intent+":"); ok {
			if strings.TrimSpace(why) == "" {
				return Override{}, fmt.Errorf("override_reason %q: say why after the prefix, such as %s: reviewing now", reason, intent)
			}
			return Override{Requested: true, Intent: intent, Prefix: intent + ":", Reason: reason}, nil
		}
	}
	return Override{}, fmt.Errorf("override_reason %q: force_override needs a reason starting with human_override: or coordinator_override:", reason)
}
