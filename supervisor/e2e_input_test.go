//go:build linux

package supervisor_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// startShell runs `sup start --profile shell doc.md -- sh -c SCRIPT` in a
// new pane (the profile without screen rules: the foreground process and
// the output decide).
func (r *rig) startShell(script string) string {
	r.t.Helper()
	return r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "shell", filepath.Join(r.dir, "doc.md"), "--", "sh", "-c", script)
}

// The reproduction of issue #12: a child that sends terminal queries, in a
// real tmux pane, nobody typing. tmux answers them on the pane's input; sup
// forwards the replies to the child but does not count them as keys.
func TestE2ETerminalRepliesAreNotTyping(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	// DA1, DA2, cursor position, OSC 11 colour, kitty keyboard flags,
	// XTVERSION; then read one line and say what came.
	pane := r.startShell(`printf '\033[c\033[>c\033[6n\033]11;?\007\033[?u\033[>0q'; echo QUERIED; ` +
		`stty raw -echo; dd bs=1 count=1 2>/dev/null | od -An -c; stty sane; echo GOT-KEY; sleep 30`)
	r.tm.WaitFor(t, pane, "QUERIED", 10*time.Second)
	testutil.WaitUntil(t, 20*time.Second, "the session to be up", func() bool { return r.state("doc").PID != 0 })
	time.Sleep(300 * time.Millisecond) // tmux's replies arrive after the queries
	if st := r.state("doc"); st.OperatorBusy || st.LastInputAt != 0 {
		t.Fatalf("no key pressed, yet operator_busy %v last_input_at %d: terminal replies counted as typing", st.OperatorBusy, st.LastInputAt)
	}
	r.tm.SendLiteral(pane, "k")
	r.tm.WaitFor(t, pane, "GOT-KEY", 10*time.Second)
	// The key reaches the child before the session's owner has published
	// it (its facts change by message, then a snapshot): the child's
	// answer can come first (run 78), so wait for the snapshot.
	testutil.WaitUntil(t, 5*time.Second, "operator_busy after a real key", func() bool {
		st := r.state("doc")
		return st.OperatorBusy && st.LastInputAt != 0
	})
}

// Focus reports (ESC[I, ESC[O: tmux sends them on every pane switch when
// the agent turned on focus tracking) are a fact of their own, not typing.
func TestE2EFocusReportsAreAFact(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	pane := r.start("-raw", "-record", filepath.Join(r.dir, "rec"))
	if st := r.state("doc"); st.Focused != nil {
		t.Fatalf("focused %v before any report, want unknown (null)", *st.Focused)
	}
	r.tm.SendKeys(pane, "-H", "1b", "5b", "49") // ESC [ I
	testutil.WaitUntil(t, 20*time.Second, "focused", func() bool {
		st := r.state("doc")
		return st.Focused != nil && *st.Focused && st.FocusedAt != 0
	})
	r.tm.SendKeys(pane, "-H", "1b", "5b", "4f") // ESC [ O
	testutil.WaitUntil(t, 20*time.Second, "not focused", func() bool {
		st := r.state("doc")
		return st.Focused != nil && !*st.Focused
	})
	if st := r.state("doc"); st.OperatorBusy || st.LastInputAt != 0 {
		t.Fatalf("focus reports counted as typing: %+v", st)
	}
	// The child still got every byte, in order.
	testutil.WaitUntil(t, 20*time.Second, "the reports to reach the child", func() bool {
		data, _ := os.ReadFile(filepath.Join(r.dir, "rec")) // Best effort: written as it reads.
		return string(data) == "\x1b[I\x1b[O"
	})
}

// Issue #12 item 4: a program that prints every 200 ms is busy at every
// sample, whether sh or sleep is in the foreground, and never in the queue.
func TestE2EPrintingProgramIsNeverStuck(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	pane := r.startShell(`while :; do echo working; sleep 0.2; done`)
	r.tm.WaitFor(t, pane, "working", 10*time.Second)
	end := time.Now().Add(30 * time.Second)
	if testing.Short() {
		end = time.Now().Add(5 * time.Second)
	}
	n := 0
	for time.Now().Before(end) {
		st := r.state("doc")
		if st.Activity != "busy" && n > 0 { // the first sample may precede the first look
			t.Fatalf("sample %d: activity %s (%s), want busy while it prints", n, st.Activity, st.Reason)
		}
		if st.WaitingSince != 0 {
			t.Fatalf("sample %d: waiting_since %d: a printing program is in the stuck queue", n, st.WaitingSince)
		}
		n++
		time.Sleep(100 * time.Millisecond)
	}
}

// A program blocked in a read of the terminal with quiet output is ready,
// and busy again while a command it runs works quietly.
func TestE2EReaderIsReady(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	pane := r.startShell(`echo READING; read line; echo "ran $line"; sleep 30`)
	r.tm.WaitFor(t, pane, "READING", 10*time.Second)
	testutil.WaitUntil(t, 10*time.Second, "ready while it reads", func() bool {
		st := r.state("doc")
		return st.Activity == "ready" && st.Reason == "idle"
	})
	r.tm.SendLiteral(pane, "go")
	r.tm.SendKeys(pane, "Enter")
	r.tm.WaitFor(t, pane, "ran go", 10*time.Second)
	testutil.WaitUntil(t, 10*time.Second, "busy while sleep runs", func() bool { return r.state("doc").Activity == "busy" })
	time.Sleep(1500 * time.Millisecond) // past the busy window: quiet, but not reading
	if st := r.state("doc"); st.Activity != "busy" {
		t.Fatalf("a quiet sleep: %s (%s), want busy", st.Activity, st.Reason)
	}
}

// Issue #12 item 5: a trigger to a shell is a command line — no envelope
// (bash would run its lines as commands) — acknowledged when output
// follows the Enter, not by a hook that never comes.
func TestE2ETriggerToShellIsACommandLine(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		testutil.Missing(t, "bash not installed")
	}
	r := newRig(t, "")
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "shell", filepath.Join(r.dir, "doc.md"), "--",
		"bash", "--norc", "--noprofile", "-i")
	testutil.WaitUntil(t, 10*time.Second, "the socket", func() bool { return len(r.sockets()) == 1 })
	testutil.WaitUntil(t, 10*time.Second, "bash at its prompt", func() bool { return r.state("doc").Activity == "ready" })
	res := r.trigger(ipc.TriggerParams{TriggerID: "sh-1", Prompt: "echo ROUTED-$((40+2))", Wait: true})
	if res.Result != ipc.OutcomeDelivered || res.AckedBy != "output" || res.Attempts != 1 {
		t.Fatalf("trigger to bash: %+v, want delivered, acked by output, one attempt", res)
	}
	screen := r.tm.WaitFor(t, pane, "ROUTED-42", 5*time.Second)
	if strings.Contains(screen, "BRIDGE_TRIGGER") || strings.Contains(screen, "No such file") {
		t.Fatalf("the envelope reached bash:\n%s", screen)
	}
	if a := r.audit(); a[len(a)-1]["envelope"] != false {
		t.Fatalf("audit record %v, want envelope false", a[len(a)-1])
	}
}

// Issue #12 item 2: with no terminal on sup's stdin (headless, piped),
// nobody answers the agent's queries; sup answers the common ones from its
// own screen model, and says so in the session log.
func TestE2EHeadlessQueriesAnswered(t *testing.T) {
	// Not parallel: sup answers the child's terminal queries within
	// the child's own short wait for the replies.
	if _, err := exec.LookPath("bash"); err != nil {
		testutil.Missing(t, "bash not installed")
	}
	r := newRig(t, "")
	// Move the cursor to row 3, column 5 (1-based), then ask DA1, the
	// cursor position and the background colour; print what came back.
	script := `stty -echo; printf '\033[3;5H\033[c'; read -rs -t 5 -d c da; printf '\033[6n'; read -rs -t 5 -d R cpr; ` +
		`printf '\033]11;?\007'; read -rs -t 5 -d $'\a' bg; ` +
		`echo; echo "DA1=${da#?} CPR=${cpr#?} BG=${bg#??}"`
	cmd := exec.Command(r.bins.Sup, "start", "--profile", "shell", "--size", "80x24", filepath.Join(r.dir, "doc.md"), "--", "bash", "-c", script)
	cmd.Dir = r.dir
	cmd.Env = r.environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sup: %v\n%q", err, out)
	}
	if want := "DA1=[?1;2 CPR=[3;5 BG=11;rgb:0000/0000/0000"; !strings.Contains(string(out), want) {
		t.Fatalf("output %q, want %q: the queries went unanswered", out, want)
	}
	logs, _ := filepath.Glob(filepath.Join(r.dir, "state", "sup", "*.log"))
	var log []byte
	for _, l := range logs {
		b, _ := os.ReadFile(l) // Best effort: one of them is this session's.
		log = append(log, b...)
	}
	for _, name := range []string{"DA1", "CPR", "OSC11"} {
		if !strings.Contains(string(log), "msg=terminal_reply name="+name+" by=sup") {
			t.Errorf("session log lacks sup's %s reply:\n%s", name, log)
		}
	}
}

// As a user would: a real tmux client attached, focus-events on, an agent
// that turned on focus tracking (?1004), and the human switching panes.
// tmux sends ESC[I / ESC[O to the pane on every switch; sup records them
// as `focused`, never as typing, and the agent still gets them.
func TestE2EFocusFromRealPaneSwitches(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	rec := filepath.Join(r.dir, "rec")
	if _, err := r.tm.Run("set", "-g", "focus-events", "on"); err != nil {
		t.Fatal(err)
	}
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", filepath.Join(r.dir, "doc.md"), "--",
		"sh", "-c", `printf '\033[?1004h'; exec fakeagent -raw -record `+rec)
	r.tm.WaitFor(t, pane, "fakeagent ready", 10*time.Second)
	other, err := r.tm.Run("split-window", "-P", "-F", "#{pane_id}", "-t", pane, "sleep 1000")
	if err != nil {
		t.Fatal(err)
	}
	other = strings.TrimSpace(other)
	if _, err := r.tm.Run("select-window", "-t", pane); err != nil { // the rig's windows start detached
		t.Fatal(err)
	}
	r.tm.AttachClient(t)
	for i, want := range []bool{true, false, true} {
		target := pane
		if !want {
			target = other
		}
		if _, err := r.tm.Run("select-pane", "-t", target); err != nil {
			t.Fatal(err)
		}
		testutil.WaitUntil(t, 20*time.Second, "focused "+strconv.FormatBool(want), func() bool {
			st := r.state("doc")
			return st.Focused != nil && *st.Focused == want
		})
		if st := r.state("doc"); st.OperatorBusy || st.LastInputAt != 0 {
			t.Fatalf("switch %d: focus reports counted as typing: operator_busy %v last_input_at %d", i, st.OperatorBusy, st.LastInputAt)
		}
	}
	// sup has read the last report once state says focused; the agent
	// records it a moment later (run 54 read the file before it did).
	var data []byte
	testutil.WaitUntil(t, 20*time.Second, "the last focus report recorded by the agent", func() bool {
		data, _ = os.ReadFile(rec) // Best effort: checked below.
		return strings.HasSuffix(string(data), "\x1b[O\x1b[I")
	})
	if strings.Trim(string(data), "\x1b[IO") != "" {
		t.Fatalf("the agent read %q, want the focus reports passed on", data)
	}
}
