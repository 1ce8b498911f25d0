//go:build linux

package supervisor

import (
	"context"
	"os"
	"time"

	"github.com/sup-tmux/sup/internal/caller"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/ipc"
)

// Who is calling, and what they may do (specs/security.md, "Who is
// calling"): the control socket classifies each connection once
// (classifier, ServerConfig.Classify); the methods that act check the
// policy (allow) before anything is typed.

// classifier decides each connection's caller (caller.Classifier), this
// process the supervisor of its own agent.
func classifier(pl *plan.Plan, runtimeDir string) func(ipc.Peer) (ipc.Caller, error) {
	return caller.Classifier(runtimeDir, ipc.CallerSession{Name: pl.Name, ID: pl.SessionID, Workspace: pl.Workspace, SupPID: os.Getpid()})
}

// allowed checks the policy for c doing act to the session with plan pl:
// nil, or NOT_ALLOWED naming the caller and the rule.
func allowed(pl *plan.Plan, c ipc.Caller, act caller.Action, what string) error {
	ok, why := pl.Config.Policy.Allow(c, act, caller.Target{Name: pl.Name, ID: pl.SessionID, Workspace: pl.Workspace})
	if ok {
		return nil
	}
	return ipc.Errorf(ipc.CodeNotAllowed, "%s: refused for %s: %s; nothing done", what, c.Label(), why)
}

// allow is allowed for a request's caller. A refused lifecycle or control
// call (stop, restart, resume, skip, unblock) is audited here too
// (store.RefusedRecord); inject audits its own refusal, and a refused hook
// is only logged.
func (a *api) allow(ctx context.Context, act caller.Action, what string) error {
	c, _ := ipc.CallerFromContext(ctx)
	err := allowed(a.s.Plan(), c, act, what)
	if err != nil {
		args := []any{"method", what, "caller", c.Label(), "caller_pid", c.PID, "chain", c.Chain}
		if a.server != nil { // counted and rate-limited: an agent may loop
			a.server.Warn(ipc.NoisyNotAllowed, "not_allowed", args...)
		} else {
			a.log.Warn("not_allowed", args...)
		}
		if (act == caller.ActLifecycle || act == caller.ActControl) && a.audit != nil {
			pl := a.s.Plan()
			rec := store.RefusedRecord{Time: time.Now().UnixMilli(), Kind: store.KindRefused, Session: pl.SessionID, Document: pl.Document,
				Method: what, Caller: &c, ErrorCode: string(ipc.CodeNotAllowed), Message: ipc.AsError(err).Message}
			if aerr := a.audit.Append(rec); aerr != nil {
				a.log.Error("audit_failed", "kind", store.KindRefused, "err", aerr)
			}
		}
	}
	return err
}

// Allow is the desk's check (desk.Port).
func (p deskPort) Allow(c ipc.Caller, act caller.Action, what string) error {
	return allowed(p.s.Plan(), c, act, what)
}
