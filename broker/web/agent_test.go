//go:build linux

package web

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestAgentRefused: an agent runs as the operator's uid, so it can read the
// operator's sup web URL (its tmux pane, `tmux capture-pane`), and the
// cookie and CSRF token would follow. Its curl must still get 403 naming
// the agent, and nothing answered: sup web would otherwise dial the
// supervisor as the operator (via web) and the agent's answer be audited
// as the operator's (specs/web.md, "Agents").
func TestAgentRefused(t *testing.T) {
	w := newWebRig(t)
	beta := w.confirm("beta", "rm -rf build")
	var id, prompt string
	testutil.WaitUntil(t, 20*time.Second, "beta's prompt in the hub", func() bool {
		w.s.hub.mu.Lock()
		defer w.s.hub.mu.Unlock()
		for _, r := range w.s.hub.rows {
			if r.Name == "beta" && r.PromptID != "" {
				id, prompt = r.ID, r.PromptID
				return true
			}
		}
		return false
	})
	base := "http://" + w.s.Addr().String()
	// What the agent obtains as the same uid (here handed over; in the
	// trial it came from `tmux capture-pane` of the operator's pane).
	script := "curl -s -o " + filepath.Join(w.Dir, "steal.out") + " -w '%{http_code}' -b sup_web=" + w.s.cookie +
		" -H 'Origin: " + base + "' -H 'X-Sup-CSRF: " + w.s.csrf + "' -H 'Content-Type: application/json'" +
		` -d '{"id":"` + id + `","choice":"yes","expect":"` + prompt + `"}' ` + base + "/api/answer > " + filepath.Join(w.Dir, "steal.code")
	w.Write("agent.md", "# agent\n")
	w.Tmux.NewWindowDir(w.Dir, w.Env, w.Bins.Sup, "start", filepath.Join(w.Dir, "agent.md"), "--", "sh", "-c", script+"; sleep 60")
	var code string
	testutil.WaitUntil(t, 20*time.Second, "the agent's curl", func() bool {
		b, _ := os.ReadFile(filepath.Join(w.Dir, "steal.code"))
		code = strings.TrimSpace(string(b))
		return code != ""
	})
	out, _ := os.ReadFile(filepath.Join(w.Dir, "steal.out"))
	time.Sleep(300 * time.Millisecond)
	if code == "200" || strings.Contains(w.Tmux.Capture(beta), "answered:") {
		t.Fatalf("an agent's HTTP request was served as the operator: HTTP %s %s; audit %v", code, out, w.audit())
	}
	if want := `sup web serves the operator only; this connection comes from agent "agent"'s process tree`; code != "403" || !strings.Contains(string(out), want) {
		t.Fatalf("the agent's curl got HTTP %s %q, want 403 saying %q", code, out, want)
	}
	// The operator (this process) is still served on the same server.
	res, err := noRedirect.Get(base + "/?token=" + w.s.token)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || len(res.Cookies()) != 1 {
		t.Fatalf("the operator's sign-in: %s, cookies %v", res.Status, res.Cookies())
	}
}
