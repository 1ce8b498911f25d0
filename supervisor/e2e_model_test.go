//go:build linux

package supervisor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// menuQuestion is the unknown dialog fakeagent -menu draws.
const menuQuestion = "Where should the deploy go?"

// menuReading is what the stand-in answers for it.
const menuReading = `{"state":"NEEDS_CONFIRMATION","summary":"Deploy target: staging or production?","actions_needed":[{"label":"staging","key":"s"},{"label":"production","key":"p"}]}`

// newModelRig is a rig whose config turns the model reader on against a
// loopback stand-in, with the confirm profile (unknown_after 1s) whose
// rules do not read fakeagent -menu's dialog.
func newModelRig(t *testing.T, extra string) (*rig, *fakemodel.Server) {
	t.Helper()
	return newModelRigBudget(t, 50, extra)
}

// newModelRigBudget is newModelRig with the host's budget of calls per
// hour.
func newModelRigBudget(t *testing.T, budget int, extra string) (*rig, *fakemodel.Server) {
	t.Helper()
	fm, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fm.Close() })
	r := newRig(t, fmt.Sprintf("activity: {quiet_window: 1s}\nmodel:\n  endpoint: %s/v1\n  name: fake\n  key_env: SUP_TEST_MODEL_KEY\n  budget: %d\n%s", fm.URL, budget, extra))
	r.env["SUP_TEST_MODEL_KEY"] = "k-test-model"
	r.write("config/sup/profiles/confirm.yaml", testutil.ConfirmProfile+"unknown_after: 1s\n")
	return r, fm
}

// startMenu supervises fakeagent -raw -menu under the confirm profile.
func (r *rig) startMenu(args ...string) string {
	r.t.Helper()
	argv := append([]string{r.bins.Sup, "start", "--profile", "confirm", filepath.Join(r.dir, "doc.md"), "--",
		"fakeagent", "-raw", "-menu", menuQuestion}, args...)
	pane := r.tm.NewWindowDir(r.dir, r.env, argv...)
	r.tm.WaitFor(r.t, pane, "fakeagent ready", 10*time.Second)
	return pane
}

// sessionLog reads the session's log.
func (r *rig) sessionLog(st ipc.State) string {
	data, _ := os.ReadFile(filepath.Join(r.dir, "state", "sup", st.SessionID+".log")) // Best effort: "" fails the caller's check.
	return string(data)
}

// subscribe opens a subscription to the rig's only session, closed at
// the test's end.
func (r *rig) subscribe(events ...string) *ipc.Subscription {
	r.t.Helper()
	c, err := ipc.Dial(r.sockets()[0], 5*time.Second)
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sub, err := c.Subscribe(ctx, events)
	if err != nil {
		c.Close()
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { sub.Close() })
	return sub
}

// activityUntil reads sub's activity events until want says yes and
// returns when the server published that one, failing after timeout (the
// subscription is closed then).
func activityUntil(t *testing.T, sub *ipc.Subscription, timeout time.Duration, what string, want func(ipc.ActivityEvent) bool) time.Time {
	t.Helper()
	timer := time.AfterFunc(timeout, func() { sub.Close() })
	defer timer.Stop()
	for {
		ev, err := sub.Next()
		if err != nil {
			t.Fatalf("waiting up to %v for %s: %v", timeout, what, err)
		}
		var a ipc.ActivityEvent
		if ev.Event == ipc.EventActivity && ev.DecodeData(&a) == nil && want(a) {
			return time.UnixMilli(ev.At)
		}
	}
}

func (r *rig) counters() map[string]int64 {
	r.t.Helper()
	var m ipc.MetricsResult
	if err := r.call(ipc.MethodMetrics, nil, &m); err != nil {
		r.t.Fatal(err)
	}
	return m.Counters
}

// TestE2EModelReadsUnknownDialog: a dialog no rule reads becomes
// needs_confirmation with the model's summary and options once the
// fallback calls it a question; the same screen again makes no second
// call; `sup answer` types the key of the option the human picked.
func TestE2EModelReadsUnknownDialog(t *testing.T) {
	t.Parallel()
	r, fm := newModelRig(t, "")
	fm.Queue(fakemodel.Turn{Text: menuReading})
	pane := r.startMenu()
	var st ipc.State
	testutil.WaitUntil(t, 15*time.Second, "the model's reading in state", func() bool {
		st = r.state("doc")
		return st.ModelState != ""
	})
	if st.Activity != "needs_confirmation" || st.Summary != "Deploy target: staging or production?" || st.Reason != "model" ||
		len(st.ModelOptions) != 2 || st.ModelOptions[1] != (ipc.ModelOption{Choice: "2", Label: "production", Key: "p"}) ||
		len(st.PromptOptions) != 2 || st.PromptOptions[1].Label != "production" || strings.Join(st.PromptChoices, ",") != "1-2" || st.PromptID == "" {
		t.Fatalf("after the reading: %+v", st)
	}
	if e := r.explain(); decided(e).Source != "model" || decided(e).Rule != "model:fake" {
		t.Fatalf("explain: %+v", e)
	}
	for _, c := range []struct{ args, want string }{
		{"queue", "[model] Deploy target: staging or production?"},
		{"state doc", "2. production [p]"},
		{"explain doc", "model reading needs_confirmation: Deploy target"},
	} {
		if out := r.mustSup(strings.Fields(c.args)...); !strings.Contains(out, c.want) {
			t.Errorf("sup %s does not show %q:\n%s", c.args, c.want, out)
		}
	}
	q, _ := fm.WaitFor(time.Second, func(q fakemodel.Request) bool { return q.API == "chat" })
	if !strings.Contains(q.UserText, menuQuestion) || !strings.Contains(q.UserText, "(p) production") {
		t.Fatalf("the screen sent: %q", q.UserText)
	}
	// A key undoes the reading; once quiet again, the same screen is read
	// from the cache, not sent again. Watched as events, not polled: on
	// a loaded machine the undo and the reading again can both fall
	// between two polls of the state.
	sub := r.subscribe(ipc.EventActivity)
	r.tm.SendLiteral(pane, "x")
	activityUntil(t, sub, 10*time.Second, "the key undoing the reading", func(a ipc.ActivityEvent) bool { return a.Reason != "model" })
	activityUntil(t, sub, 15*time.Second, "the reading again", func(a ipc.ActivityEvent) bool { return a.Reason == "model" })
	sub.Close()
	if n := fm.Count("chat"); n != 1 {
		t.Fatalf("%d calls for one screen, want 1", n)
	}
	out := r.mustSup("answer", "doc", "2")
	if !strings.Contains(out, "answered") {
		t.Fatalf("sup answer: %s", out)
	}
	r.tm.WaitFor(t, pane, "picked: p", 5*time.Second)
	testutil.WaitUntil(t, 20*time.Second, "ready after the answer", func() bool { return r.state("doc").Activity == "ready" })
	log := r.sessionLog(st)
	if !strings.Contains(log, "model_read") || !strings.Contains(log, "screen_hash=") || strings.Contains(log, menuQuestion) {
		t.Fatalf("the session log must name the screen by hash only:\n%s", log)
	}
	if c := r.counters(); c["model_calls_total"] != 1 || c["detection_model_total"] < 1 {
		t.Fatalf("counters: %v", c)
	}
}

// TestE2EModelKnownScreensMakeNoCall: a dialog a rule reads with a
// summary, and the idle screen after it, are never sent, even with
// summaries on.
func TestE2EModelKnownScreensMakeNoCall(t *testing.T) {
	t.Parallel()
	r, fm := newModelRig(t, "  summaries: true\n")
	pane, st := r.startConfirm("rm build")
	if st.Summary != "rm build" {
		t.Fatalf("at the prompt: %+v", st)
	}
	r.tm.SendLiteral(pane, "y")
	r.tm.WaitFor(t, pane, "answered: y", 5*time.Second)
	time.Sleep(2500 * time.Millisecond) // beyond unknown_after (1s) on both screens
	if n := fm.Count("chat"); n != 0 {
		t.Fatalf("%d model calls for screens rules read", n)
	}
	if st := r.state("doc"); st.ModelState != "" || st.Activity != "ready" {
		t.Fatalf("state: %+v", st)
	}
}

// TestE2EModelFailures: a stand-in that times out, fails with 500,
// answers prose or a state not in the list leaves the fallback's verdict
// as it is, with one log line and the failure's counter.
func TestE2EModelFailures(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		turn fakemodel.Turn
		kind string
	}{
		{"timeout", fakemodel.Turn{Hang: true}, "timeout"},
		{"500", fakemodel.Turn{Status: 500}, "http"},
		{"prose", fakemodel.Turn{Text: "The screen asks where to deploy."}, "not_json"},
		{"bad state", fakemodel.Turn{Text: `{"state":"WAITING","summary":"x","actions_needed":[]}`}, "bad_reply"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, fm := newModelRig(t, "  timeout: 700ms\n")
			fm.Queue(c.turn)
			r.startMenu()
			var st ipc.State
			testutil.WaitUntil(t, 15*time.Second, "the failure counted", func() bool {
				st = r.state("doc")
				return st.Activity == "needs_confirmation" && r.counters()["model_failed_"+c.kind+"_total"] == 1
			})
			time.Sleep(1500 * time.Millisecond) // a second look, a second quiet window: no second call
			st = r.state("doc")
			if st.Reason != "unrecognized" || st.Summary != "Press s or p" || st.ModelState != "" {
				t.Fatalf("the rule verdict did not stand: %+v", st)
			}
			if n := strings.Count(r.sessionLog(st), "model_failed"); n != 1 || fm.Count("chat") != 1 {
				t.Fatalf("%d model_failed log lines, %d calls; want 1, 1:\n%s", n, fm.Count("chat"), r.sessionLog(st))
			}
		})
	}
}

// TestE2EModelRedaction: secrets on the screen never reach the endpoint.
func TestE2EModelRedaction(t *testing.T) {
	t.Parallel()
	r, fm := newModelRig(t, "  redact: ['corp-[0-9]+']\n")
	script := `printf 'key sk-ant-api03-SECRETSECRETSECRET\naws AKIAIOSFODNN7EXAMPLE\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\npassword: hunter2\nhost corp-42\nPick a colour [r/g/b]: '; read c; sleep 30`
	r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "confirm", filepath.Join(r.dir, "doc.md"), "--", "sh", "-c", script)
	q, ok := fm.WaitFor(15*time.Second, func(q fakemodel.Request) bool { return q.API == "chat" })
	if !ok {
		t.Fatal("no model call")
	}
	for _, secret := range []string{"sk-ant-", "AKIA", "BEGIN OPENSSH", "b3BlbnNzaC1rZXktdjEAAAAA", "hunter2", "corp-42", "k-test-model"} {
		if strings.Contains(string(q.Body), secret) {
			t.Errorf("%q reached the stand-in:\n%s", secret, q.Body)
		}
	}
	if !strings.Contains(q.UserText, "Pick a colour [r/g/b]:") {
		t.Fatalf("the question itself is not sent: %q", q.UserText)
	}
}

// TestE2EModelRedactionWrapped: a token the terminal wrapped over two
// rows (its prefix at the end of one, its body at the start of the next)
// reaches the endpoint as neither part.
func TestE2EModelRedactionWrapped(t *testing.T) {
	t.Parallel()
	r, fm := newModelRig(t, "")
	// Dots up to 10 columns before the row's end, then the token: the
	// terminal wraps it after "ghp_012345".
	script := `cols=$(stty size | cut -d' ' -f2); printf '%*s' $((cols-10)) '' | tr ' ' '.'; ` +
		`printf 'ghp_0123456789abcdefghijABCDEFGHIJKLMNOPQRSTUVWXYZ\nPick a colour [r/g/b]: '; read c; sleep 30`
	r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "confirm", filepath.Join(r.dir, "doc.md"), "--", "sh", "-c", script)
	q, ok := fm.WaitFor(15*time.Second, func(q fakemodel.Request) bool { return q.API == "chat" })
	if !ok {
		t.Fatal("no model call")
	}
	lines := strings.Split(q.UserText, "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "..........") })
	if i < 0 || i+2 >= len(lines) || !strings.HasPrefix(lines[i+2], "Pick a colour") {
		t.Fatalf("the token was not wrapped over two rows on the screen sent (the test proves nothing): %q", q.UserText)
	}
	for _, part := range []string{"ghp_012345", "6789abcdefghij", "QRSTUVWXYZ"} {
		if strings.Contains(string(q.Body), part) {
			t.Errorf("%q reached the stand-in:\n%s", part, q.UserText)
		}
	}
	if !strings.Contains(q.UserText, "Pick a colour [r/g/b]:") {
		t.Fatalf("the question itself is not sent: %q", q.UserText)
	}
}

// TestE2EModelBudgetFileDeleted: the agent deleting the budget file in
// its runtime dir ($SUP_SOCKET's) gives no call back: the supervisor that
// spent the budget holds it and writes it back.
func TestE2EModelBudgetFileDeleted(t *testing.T) {
	t.Parallel()
	r, fm := newModelRigBudget(t, 1, "")
	fm.Queue(fakemodel.Turn{Text: `{"state":"NEEDS_CONFIRMATION","summary":"Pick a colour","actions_needed":[{"label":"red","key":"r"}]}`})
	script := `printf 'Pick a colour [r/g/b]: '; read c; budget="$(dirname "$SUP_SOCKET")/model-budget"; ` +
		`rm "$budget" && echo "deleted $budget"; printf 'Pick a size [s/m/l]: '; read d; sleep 30`
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "confirm", filepath.Join(r.dir, "doc.md"), "--", "sh", "-c", script)
	r.tm.WaitFor(t, pane, "Pick a colour", 10*time.Second)
	testutil.WaitUntil(t, 15*time.Second, "the first screen read", func() bool { return r.state("doc").ModelState != "" })
	r.tm.SendKeys(pane, "r", "Enter")
	r.tm.WaitFor(t, pane, "deleted ", 5*time.Second)
	testutil.WaitUntil(t, 15*time.Second, "the second screen refused by the budget", func() bool {
		return r.counters()["model_budget_exhausted_total"] >= 1
	})
	if n := fm.Count("chat"); n != 1 {
		t.Fatalf("%d calls with a budget of 1 after the agent deleted the budget file", n)
	}
	data, err := os.ReadFile(filepath.Join(r.RuntimeDir(), "model-budget"))
	if err != nil || len(strings.Fields(string(data))) != 1 {
		t.Fatalf("the budget file was not written back with the spent call: %q %v", data, err)
	}
}

// TestE2EModelReadyDeliversNoTrigger: the model calling an unknown screen
// ready does not open the gate: a queued trigger stays queued.
func TestE2EModelReadyDeliversNoTrigger(t *testing.T) {
	t.Parallel()
	r, fm := newModelRig(t, "trigger: {recheck: 100ms}\n")
	fm.Queue(fakemodel.Turn{Text: `{"state":"READY","summary":"idle at a prompt","actions_needed":[]}`})
	rec := filepath.Join(r.dir, "typed")
	r.startMenu("-record", rec)
	testutil.WaitUntil(t, 15*time.Second, "the model's ready", func() bool { return r.state("doc").Activity == "ready" })
	res := r.trigger(ipc.TriggerParams{TriggerID: "t-model", Prompt: "go on", Requester: "test"})
	if res.Result == ipc.OutcomeDelivered {
		t.Fatalf("trigger: %+v", res)
	}
	time.Sleep(1500 * time.Millisecond)
	if st := r.state("doc"); st.PendingTriggers != 1 || st.Triggers[string(ipc.OutcomeDelivered)] != 0 {
		t.Fatalf("the trigger left the queue: %+v", st)
	}
	if got := r.recorded(rec); got != "" {
		t.Fatalf("typed into a screen only the model called ready: %q", got)
	}
}

// TestE2EModelSummaryOfKnownDialog: with summaries on, a dialog a rule
// reads but takes no summary from gets the model's, once; the rule keeps
// the activity and the answer keys.
func TestE2EModelSummaryOfKnownDialog(t *testing.T) {
	t.Parallel()
	r, fm := newModelRig(t, "  summaries: true\n")
	r.write("config/sup/profiles/nosum.yaml", strings.Replace(testutil.ConfirmProfile, "      summary: '(?m)^Allow (.+)\\? \\[y/n\\]$'\n", "", 1)+"unknown_after: 1s\n")
	fm.Queue(fakemodel.Turn{Text: `{"state":"NEEDS_CONFIRMATION","summary":"Allow removing the build directory?","actions_needed":[{"label":"Yes","key":"y"}]}`})
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "nosum", filepath.Join(r.dir, "doc.md"), "--", "fakeagent", "-raw", "-confirm", "rm build")
	r.tm.WaitFor(t, pane, "fakeagent ready", 10*time.Second)
	var st ipc.State
	testutil.WaitUntil(t, 15*time.Second, "the model's summary", func() bool {
		st = r.state("doc")
		return st.Summary != ""
	})
	if st.Summary != "Allow removing the build directory?" || st.Reason != "permission" || strings.Join(st.PromptChoices, ",") != "yes,no,1-2" {
		t.Fatalf("state: %+v", st)
	}
	time.Sleep(1500 * time.Millisecond)
	if n := fm.Count("chat"); n != 1 {
		t.Fatalf("%d calls, want 1", n)
	}
}
