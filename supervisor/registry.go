//go:build linux

package supervisor

import (
	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/internal/store"
)

// record notes this session in the registry, in the background: a slow
// disk must not hold up a hook or a spawn. Each write takes the session's
// facts when it runs, under regMu, so the last write is the latest.
func (s *Session) record() {
	stateDir := paths.StateDir(plan.LookupIn(s.opts.Environ))
	s.goSafe(func() {
		s.regMu.Lock()
		defer s.regMu.Unlock()
		f := s.facts()
		p := f.plan
		e := store.RegistryEntry{Workspace: p.Workspace, Role: p.Role, Name: p.Name, Document: p.Document,
			Profile: p.Profile.Name, AgentSessionID: f.agentSessionID, CWD: p.CWD,
			Command: s.opts.Command, ProfileFlag: s.opts.Profile, TmuxSocket: s.tmuxSock,
			EnvNames: plan.RequiredNames(p.Env)}
		if s.opts.CWD != "" {
			e.CWDFlag = p.CWD // --cwd as resolved: absolute, whatever directory the route runs in
		}
		if err := store.RecordSession(stateDir, e); err != nil {
			s.log.Warn("registry_write_failed", "err", err)
		}
	})
}
