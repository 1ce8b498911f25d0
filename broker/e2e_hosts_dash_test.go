//go:build linux

package broker_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// sup dash spans hosts: a remote session's row comes with its host and
// turns stuck when its agent's Stop hook fires there; the hosts that do
// not answer (a blackhole, a wrong key, an older sup) are lines with
// their reasons while the local row is on screen from the start; t
// triggers the remote session through its relay; Enter on the remote row
// opens the local window attached to its pane.
func TestE2EHostsDash(t *testing.T) {
	f := newFleet(t, "")
	r := newRemoteHost(t, f.Rig)
	f.write("config/sup/config.yaml", r.hostsConfig())
	local := broker.LocalHostName()

	f.start("alpha")
	bravoPane := r.start("bravo")

	dash := f.tm.NewWindowDir(f.dir, f.env, f.bins.Sup, "dash", "--client", f.client.TTY)
	if _, err := f.tm.Run("select-window", "-t", dash); err != nil {
		t.Fatal(err)
	}
	// The local row does not wait for the blackhole's deadline (4 s).
	start := time.Now()
	f.tm.WaitForScreen(t, dash, "alpha", 10*time.Second)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the local row took %s to show beside a host that never answers", took)
	}
	screen := f.tm.WaitForScreen(t, dash, "bravo", 20*time.Second)
	if line := lineWith(screen, "bravo"); !strings.HasPrefix(strings.TrimLeft(line, "> "), "remote ") {
		t.Fatalf("bravo's row %q: want its host first\n%s", line, screen)
	}
	if line := lineWith(screen, "alpha"); !strings.HasPrefix(strings.TrimLeft(line, "> "), local+" ") {
		t.Fatalf("alpha's row %q: want this host's name %s first\n%s", line, local, screen)
	}
	for _, want := range []string{"host wrongkey: auth failed", "host blackhole: unreachable: no answer within 4s", "host oldsup: version mismatch"} {
		f.tm.WaitForScreen(t, dash, want, 20*time.Second)
	}
	r.hook("bravo", "UserPromptSubmit")
	testutil.WaitUntil(t, 20*time.Second, "bravo's row to turn busy", func() bool {
		return strings.Contains(lineWith(f.tm.Capture(dash), "bravo"), "busy")
	})
	f.tm.WaitForScreen(t, dash, "2 sessions · 0 waiting on you", 20*time.Second)
	r.hook("bravo", "Stop")
	screen = f.tm.WaitForScreen(t, dash, "2 sessions · 1 waiting on you", 20*time.Second)
	// ready, and a WAIT (the summary is cut at this window's width).
	if line := lineWith(screen, "bravo"); !regexp.MustCompile(`ready +\d+s `).MatchString(line) {
		t.Fatalf("bravo's row did not turn stuck: %q\n%s", line, screen)
	}

	// t on bravo (sorted after alpha): a trigger through the relay,
	// delivered and audited there with this host as the origin.
	f.tm.SendKeys(dash, "j", "t")
	f.tm.WaitForScreen(t, dash, "trigger bravo: ", 10*time.Second)
	f.tm.SendLiteral(dash, "hello from the dash")
	f.tm.SendKeys(dash, "Enter")
	f.tm.WaitForScreen(t, dash, "to bravo (attempt 1, acked by", 30*time.Second)
	audit, err := os.ReadFile(r.auditFile())
	if want := regexp.MustCompile(`"requester":"dash:[^"]*@` + regexp.QuoteMeta(local) + `"`); err != nil || !want.Match(audit) {
		t.Fatalf("remote audit (%v) has no trigger by the dash naming %s:\n%s", err, local, audit)
	}

	// Enter on bravo: the remote window.
	f.tm.SendKeys(dash, "Enter")
	testutil.WaitUntil(t, 20*time.Second, "the client on the remote window", func() bool {
		win, err := f.tm.Run("display-message", "-p", "-t", f.clientPane(), "#{window_name}")
		return err == nil && win == "remote:bravo"
	})
	first, _, _ := strings.Cut(r.runAs("tmux", "-L", r.tmux, "capture-pane", "-p", "-t", bravoPane), "\n")
	f.tm.WaitFor(t, f.clientPane(), first, 20*time.Second)
}

// lineWith is the first line of screen that holds s.
func lineWith(screen, s string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
