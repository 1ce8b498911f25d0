//go:build linux

package doctor

import (
	"context"

	"github.com/sup-tmux/sup/internal/caller"
)

// checkCaller says what a supervisor will decide for sup's verbs run from
// here (sup whoami): the operator, or an agent, whose answers and raw keys
// are refused.
func checkCaller(_ context.Context, o *Options) []Finding {
	c, err := caller.Self(o.RuntimeDir)
	if err != nil {
		return []Finding{{Check: "caller", Severity: Warning, Subject: "this process",
			Message: "cannot tell who is calling: " + err.Error(), Fix: "run sup whoami to see the chain"}}
	}
	if c.IsOperator() {
		return []Finding{{Check: "caller", Severity: OK, Subject: "operator",
			Message: "supervisors take calls from here as the operator's"}}
	}
	return []Finding{{Check: "caller", Severity: Info, Subject: "agent",
		Message: "supervisors take calls from here as " + c.Label() + "'s: answer, inject and forced triggers are refused (" + c.Chain + ")",
		Fix:     "run sup from a pane outside every supervised agent, or grant the session in config.yaml policy.grants"}}
}
