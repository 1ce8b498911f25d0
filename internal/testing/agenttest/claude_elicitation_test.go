//go:build linux

package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestClaudeElicitation (issue 24): an MCP server (testdata/fakemcp) asks
// the human through an elicitation while real Claude Code calls its tool
// (the stand-in's MCP: rule): Claude Code's Elicitation hook makes the
// session needs_confirmation, reason question, the server and its
// question as summary, decided by the hook.
func TestClaudeElicitation(t *testing.T) {
	t.Parallel()
	mcp := testutil.BuildPackage(t, "./testdata/fakemcp")
	a := startReadyClaude(t, WithBeforeStart(func(a *Agent) {
		a.InstallHooks(a.Sup, "claude", "--user")
		// A user-scope MCP server needs no approval; its tool is allowed
		// so that no permission prompt comes first.
		editSandboxJSON(t, filepath.Join(a.Home, ".claude.json"), func(m map[string]any) {
			m["mcpServers"] = map[string]any{"fake": map[string]any{"type": "stdio", "command": mcp, "args": []string{}}}
		})
		editSandboxJSON(t, filepath.Join(a.Home, ".claude", "settings.json"), func(m map[string]any) {
			perms, _ := m["permissions"].(map[string]any)
			if perms == nil {
				perms = map[string]any{}
			}
			perms["allow"] = []string{"mcp__fake__ask"}
			m["permissions"] = perms
		})
	}), WithSupConfig("activity: {quiet_window: 1s}\n"))
	a.Type("MCP: mcp__fake__ask")
	testutil.WaitUntil(t, 60*time.Second, "the elicitation", func() bool { return a.State().Activity == "needs_confirmation" })
	st := a.State()
	if st.Reason != "question" || st.Summary != "fake: Which seat do you want?" || st.WaitingSince == 0 {
		t.Fatalf("at the elicitation: %+v\n%s", st, a.Screen())
	}
	// The hook decided (the screen's dialog rule sees the form too, but
	// only the hook knows the server and its question).
	out, err := a.SupCmd("explain", "--json", a.Doc)
	var ex ipc.ExplainResult
	if err != nil || json.Unmarshal([]byte(out), &ex) != nil || ex.Rule != "hook:Elicitation" {
		t.Fatalf("explain: %v\n%s", err, out)
	}
	// Not tested: leaving the form. Seen with Claude Code 2.1.330 under
	// -race's load: Esc interrupted the turn ("Interrupted · What should
	// Claude do instead?") while the form stayed drawn, so the screen
	// rightly kept the session at needs_confirmation.
}

// editSandboxJSON rewrites a JSON object file of the sandbox through f.
func editSandboxJSON(t *testing.T, path string, f func(map[string]any)) {
	t.Helper()
	m := map[string]any{}
	if data, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	f(m)
	writeSandboxJSON(t, path, m)
}
