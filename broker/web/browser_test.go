//go:build linux

package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/network"
	cdpage "github.com/chromedp/cdproto/page"
	cdruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// browser is one headless Chromium at phone size, with what it did that
// a test asserts never happens: dialogs, requests to another origin,
// script exceptions.
type browser struct {
	t   testing.TB
	ctx context.Context

	mu         sync.Mutex
	dialogs    []string
	foreign    []string
	exceptions []string
	posts      map[string]int // POSTs to the origin, by path
	origin     string         // requests elsewhere are foreign
}

// chromium is the one Chromium the package's tests and benchmarks open
// their pages in, each page in a browser context of its own (its own
// cookies, storage and cache, closed with the test): a Chromium per test
// was ten starts and ~80 processes a run, ~4 CPU-seconds each
// (specs/testing.md, "Fourth pass"). TestMain stops it.
var chromium struct {
	once sync.Once
	ctx  context.Context // the browser's first tab; tests open theirs beside it
	stop context.CancelFunc
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if chromium.stop != nil {
		chromium.stop()
	}
	testutil.RemoveBuilds() // the sup the benchmarks built
	os.Exit(code)
}

// browserContext starts the shared Chromium on first use (testutil.Missing
// without it: skipped locally, a failure in CI).
func browserContext(t testing.TB) context.Context {
	t.Helper()
	path := testutil.Program(t, "chromium", "apt-get install -y chromium")
	chromium.once.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path), chromedp.WindowSize(390, 844), chromedp.NoSandbox,
			chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-dev-shm-usage", true))
		actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, bcancel := chromedp.NewContext(actx)
		stop := func() { bcancel(); acancel() }
		if err := chromedp.Do(bctx); err != nil { // starts the browser
			stop()
			chromium.err = err
			return
		}
		chromium.ctx, chromium.stop = bctx, stop
	})
	if chromium.err != nil {
		t.Fatalf("chromium: %v", chromium.err)
	}
	return chromium.ctx
}

// newBrowser opens a page of the shared Chromium (browserContext) in a
// browser context of its own, at phone size. On failure the page's
// screenshot at 390×844 is written and its path logged.
func newBrowser(t testing.TB, origin string) *browser {
	t.Helper()
	parent := browserContext(t)
	b := &browser{t: t, origin: origin, posts: map[string]int{}}
	var ctx context.Context
	ready := make(chan struct{})
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithNewBrowserContext(), chromedp.WithListener(func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *cdpage.EventJavascriptDialogOpening:
			b.dialogs = append(b.dialogs, string(e.Type)+": "+e.Message)
			go func() { // not from the listener: it would wait on itself
				<-ready
				// Best effort: the test fails anyway.
				_, _ = chromedp.Call(ctx, cdpage.HandleJavaScriptDialog, cdpage.HandleJavaScriptDialogParams{Accept: false})
			}()
		case *network.EventRequestWillBeSent:
			u := e.Request.URL
			if !strings.HasPrefix(u, b.origin+"/") && !strings.HasPrefix(u, "data:") {
				b.foreign = append(b.foreign, u)
			} else if e.Request.Method == "POST" {
				b.posts[strings.TrimPrefix(u, b.origin)]++
			}
		case *cdruntime.EventExceptionThrown:
			b.exceptions = append(b.exceptions, e.ExceptionDetails.Text)
		}
	}))
	b.ctx = ctx
	close(ready)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
		defer scancel()
		png, err := chromedp.Run(sctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Logf("screenshot: %v", err)
			return
		}
		dir, err := os.MkdirTemp("", "sup-web-shot-")
		if err == nil {
			p := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_")+".png")
			if err = os.WriteFile(p, png, 0o644); err == nil {
				t.Logf("screenshot of the page at 390×844: %s", p)
				return
			}
		}
		t.Logf("screenshot: %v", err)
	})
	return b
}

// run runs actions within d.
func (b *browser) run(d time.Duration, actions ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(b.ctx, d)
	defer cancel()
	return chromedp.Do(ctx, actions...)
}

// eval evaluates a JavaScript expression within 2 s.
func eval[T any](b *browser, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr))
}

func (b *browser) must(d time.Duration, what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := b.run(d, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// open signs in with url (the token URL) and waits for the live page.
func (b *browser) open(url string) {
	b.t.Helper()
	b.must(20*time.Second, "open "+url, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#queue")))
	loc, _ := eval[string](b, "location.href")
	if strings.Contains(loc, "token") {
		b.t.Fatalf("the token is still in the address bar: %s", loc)
	}
	b.waitText("#conn", "live")
}

// waitText waits until sel's text contains want.
func (b *browser) waitText(sel, want string) string {
	b.t.Helper()
	var got string
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		v, err := eval[string](b, fmt.Sprintf(`(document.querySelector(%q)||{}).textContent||""`, sel))
		if got = v; err == nil && strings.Contains(got, want) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.t.Fatalf("%s says %q, want %q", sel, got, want)
	return ""
}

// present reports whether sel matches an element now.
func (b *browser) present(sel string) bool {
	ok, err := eval[bool](b, fmt.Sprintf(`document.querySelector(%q) !== null`, sel))
	return err == nil && ok
}

func (b *browser) click(sel string) {
	b.t.Helper()
	// A live update may replace the row between finding the button and
	// clicking it ("Could not find node with given id", a loaded run): no
	// click was sent then, so the click is tried again on the new node.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := b.run(5*time.Second, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "Could not find node") || time.Now().After(deadline) {
			b.t.Fatalf("click %s: %v", sel, err)
		}
	}
}

// clickPost clicks sel, a button whose click POSTs to path, and waits
// until the page sent that POST; a click that sent none within 5 s is
// tried again, twice at most. A live update that replaces the row between
// the mouse's press and its release loses the click (no click event
// fires), which chromedp cannot see: TestBrowserQueue failed so in a
// whole run, its answer never sent. Nothing was sent then, so a second
// click answers nothing twice.
func (b *browser) clickPost(sel, path string) {
	b.t.Helper()
	for try := 1; ; try++ {
		n := b.postCount(path)
		b.click(sel)
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if b.postCount(path) > n {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		if try == 3 {
			b.t.Fatalf("click %s: the page sent no POST %s in %d tries", sel, path, try)
		}
		b.t.Logf("click %s sent no POST %s within 5 s: clicking again", sel, path)
	}
}

func (b *browser) postCount(path string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.posts[path]
}

// clean fails the test for any dialog, foreign request or exception.
func (b *browser) clean() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.dialogs) > 0 || len(b.foreign) > 0 || len(b.exceptions) > 0 {
		b.t.Fatalf("the page ran something: dialogs %q, requests to other origins %q, exceptions %q", b.dialogs, b.foreign, b.exceptions)
	}
}

// webRig is real supervisors of the fake agent (testutil.Rig) and a sup
// web over them, in-process.
type webRig struct {
	*testutil.Rig
	s *Server
}

func newWebRig(t *testing.T, adjust ...func(*testutil.Rig, *Config)) *webRig {
	t.Helper()
	r := testutil.NewRig(t, "")
	r.Write("config/sup/profiles/confirm.yaml", testutil.ConfirmProfile)
	f, err := broker.NewFleet(func(k string) string {
		if v, ok := r.Env[k]; ok {
			return v
		}
		return os.Getenv(k)
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Listen: "127.0.0.1:0", Fleet: f, Local: true, Log: quietLog()}
	for _, a := range adjust {
		a(r, &cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return &webRig{Rig: r, s: s}
}

// confirm supervises fakeagent -confirm QUESTION for NAME.md under the
// confirm profile and waits for its prompt.
func (w *webRig) confirm(name, question string, extra ...string) string {
	w.T.Helper()
	args := append([]string{w.Bins.Sup, "start", "--profile", "confirm", w.Write(name+".md", "# "+name+"\n"), "--",
		"fakeagent", "-raw", "-confirm", question}, extra...)
	pane := w.Tmux.NewWindowDir(w.Dir, w.Env, args...)
	w.Tmux.WaitFor(w.T, pane, "fakeagent ready", 10*time.Second)
	return pane
}

func (w *webRig) audit() []map[string]any {
	b, _ := os.ReadFile(filepath.Join(w.Env["XDG_STATE_HOME"], "sup", "audit.jsonl"))
	var out []map[string]any
	for _, l := range strings.Split(string(b), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func rowSel(name string) string { return fmt.Sprintf(`li.row[data-name=%q]`, name) }

// TestBrowserQueue: the page lists the fake agents, shows one that starts
// waiting in the queue within 1 s, and a click on a prompt's choice
// answers it: the fake agent gets the key and the audit says the operator
// answered via web from the browser's address. A page paused on a prompt
// that was answered meanwhile (stale) gets PROMPT_CHANGED, nothing typed.
func TestBrowserQueue(t *testing.T) {
	w := newWebRig(t)
	w.Start("alpha", "-echo")
	beta := w.confirm("beta", "rm -rf build")
	gamma := w.confirm("gamma", "drop table")
	b := newBrowser(t, "http://"+w.s.Addr().String())
	b.open(w.s.URL())
	for _, n := range []string{"alpha", "beta", "gamma"} {
		b.must(10*time.Second, "row "+n, chromedp.WaitVisible(chromedp.CSS(rowSel(n))))
	}
	b.must(10*time.Second, "beta's choices", chromedp.WaitVisible(chromedp.CSS(rowSel("beta")+` button[data-choice="yes"]`)))
	b.waitText(rowSel("beta")+" .summary", "rm -rf build")
	if b.present("#queue " + rowSel("alpha")) {
		t.Fatal("alpha is in the queue before it waits")
	}

	// alpha starts waiting: the page shows it in the queue within 1 s.
	// The best of three tries counts: one slow moment of a loaded
	// machine is not the path being slow (a poll on a timer would miss
	// all three).
	sock := w.Socket("alpha")
	best := time.Duration(1 << 62)
	for try := 0; try < 3 && best > time.Second; try++ {
		if try > 0 { // busy again: out of the queue
			ipctest.Hook(t, sock, "alpha", "UserPromptSubmit")
			testutil.WaitUntil(t, 10*time.Second, "alpha to leave the queue", func() bool { return !b.present("#queue " + rowSel("alpha")) })
		}
		start := time.Now()
		ipctest.Hook(t, sock, "alpha", "Stop") // as Claude Code's Stop hook
		for !b.present("#queue " + rowSel("alpha")) {
			if time.Since(start) > 10*time.Second {
				t.Fatal("alpha never reached the queue")
			}
			time.Sleep(5 * time.Millisecond)
		}
		took := time.Since(start)
		t.Logf("state change → page: %v", took)
		best = min(best, took)
	}
	if best > time.Second {
		t.Errorf("the page showed alpha waiting after %v at best of 3, want ≤ 1 s", best)
	}

	// A click answers beta's prompt.
	b.clickPost(rowSel("beta")+` button[data-choice="yes"]`, "/api/answer")
	w.Tmux.WaitFor(t, beta, "answered: y", 10*time.Second)
	b.waitText("#status", "answered beta with yes")
	var rec map[string]any
	testutil.WaitUntil(t, 10*time.Second, "beta's answer in the audit", func() bool {
		for _, m := range w.audit() {
			if m["kind"] == "answer" && m["requester"] != nil && strings.HasPrefix(fmt.Sprint(m["requester"]), "web:127.0.0.1:") {
				rec = m
				return true
			}
		}
		return false
	})
	c, _ := rec["caller"].(map[string]any)
	via, _ := c["via"].(map[string]any)
	if c["kind"] != "operator" || via["kind"] != "web" || !strings.HasPrefix(fmt.Sprint(via["client"]), "127.0.0.1:") {
		t.Fatalf("audit caller %v, want the operator via web from 127.0.0.1", rec["caller"])
	}

	// A stale page: paused on gamma's prompt, which the terminal answers.
	b.must(10*time.Second, "gamma's choices", chromedp.WaitVisible(chromedp.CSS(rowSel("gamma")+` button[data-choice="no"]`)))
	b.click("#pause")
	if _, err := w.Sup(nil, "answer", "gamma", "yes"); err != nil {
		t.Fatal(err)
	}
	w.Tmux.WaitFor(t, gamma, "answered: y", 10*time.Second)
	b.clickPost(rowSel("gamma")+` button[data-choice="no"]`, "/api/answer")
	b.waitText(rowSel("gamma")+" .msg.error", "PROMPT_CHANGED")
	b.waitText("#status", "PROMPT_CHANGED")
	if strings.Contains(w.Tmux.Capture(gamma), "answered: n") {
		t.Fatal("the stale click typed its answer")
	}
	b.click("#pause") // resume: the page catches up
	testutil.WaitUntil(t, 10*time.Second, "gamma's buttons to go", func() bool {
		return !b.present(rowSel("gamma") + ` button[data-choice="no"]`)
	})
	b.clean()
}

// TestBrowserAgentWebRefused: a sup web started inside an agent's process
// tree is that agent to the supervisors: its click on another session's
// prompt is refused NOT_ALLOWED, shown in the page, nothing typed.
func TestBrowserAgentWebRefused(t *testing.T) {
	w := newWebRig(t)
	beta := w.confirm("beta", "rm -rf build")
	urlFile := filepath.Join(w.Dir, "web.url")
	w.Write("sb.md", "# sb\n")
	w.Tmux.NewWindowDir(w.Dir, w.Env, w.Bins.Sup, "start", filepath.Join(w.Dir, "sb.md"), "--", "sh", "-c",
		"exec sup web --listen 127.0.0.1:0 >"+urlFile+" 2>"+urlFile+".log")
	var url string
	testutil.WaitUntil(t, 20*time.Second, "the agent's sup web to print its URL", func() bool {
		raw, _ := os.ReadFile(urlFile)
		_, url, _ = strings.Cut(strings.TrimSpace(string(raw)), "open ")
		return strings.Contains(url, "?token=")
	})
	origin, _, _ := strings.Cut(url, "/?")
	b := newBrowser(t, origin)
	b.open(url)
	b.clickPost(rowSel("beta")+` button[data-choice="yes"]`, "/api/answer")
	got := b.waitText(rowSel("beta")+" .msg.error", "NOT_ALLOWED")
	if !strings.Contains(got, `agent "sb"`) {
		t.Errorf("refusal %q, want it to name agent sb", got)
	}
	time.Sleep(200 * time.Millisecond)
	if strings.Contains(w.Tmux.Capture(beta), "answered:") {
		t.Fatal("the agent's web answer was typed")
	}
	b.clean()
}

// hidden and visible are app.js's: control and bidi characters shown as
// ⟨U+XXXX⟩.
var hidden = regexp.MustCompile("[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

func visible(s string) string {
	return hidden.ReplaceAllStringFunc(s, func(c string) string {
		r, _ := utf8.DecodeRuneInString(c)
		return fmt.Sprintf("⟨U+%04X⟩", r)
	})
}

// jsonText is s as it arrives through JSON: each invalid byte a U+FFFD.
func jsonText(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		sb.WriteRune(r)
		i += n
	}
	return sb.String()
}

// webHostile is testutil.Hostile plus what a page would run: markup,
// handlers, javascript: links, a remote image, and a forged closing tag.
func webHostile() []struct{ Name, Text string } {
	out := append([]struct{ Name, Text string }{
		{"script", `<script>alert("script")</script>`},
		{"img", `<img src=x onerror="alert('img')">`},
		{"jslink", `<a href="javascript:alert('link')">click me</a>`},
		{"remote", `<img src="http://evil.example/beacon.png"><link rel=stylesheet href="http://evil.example/x.css">`},
		{"svg", `<svg onload="alert('svg')"></svg>`},
		{"closing", `</pre></li><script>alert('closing')</script>`},
		{"template", `{{.CSRF}} ${alert('tpl')} {{constructor.constructor('alert(1)')()}}`},
	}, testutil.HostileFor("/tmp/sup-web-hostile-touch")...)
	return out
}

// TestBrowserPreviewFollowsTheScreen: an open preview shows the screen
// read after the session's next event, and the card it is in stays the
// same element (a click on its buttons is not lost to a rebuilt row)
// when nothing but the screen changed.
func TestBrowserPreviewFollowsTheScreen(t *testing.T) {
	dir := shortDir(t)
	st := ipc.State{SessionID: "s00000000001", Name: "alpha", Lifecycle: "running", Activity: "busy"}
	sup := ipctest.Serve(t, dir, st)
	var text atomic.Value
	text.Store("$ first screen")
	sup.Server.Handle(ipc.MethodScreen, func(context.Context, *ipc.Request) (any, error) {
		return ipc.ScreenResult{Text: text.Load().(string), Format: "text", Cols: 80, Rows: 24}, nil
	})
	r := startRig(t, dir)
	b := newBrowser(t, r.base)
	b.open(r.s.URL())
	b.must(10*time.Second, "alpha's preview", chromedp.WaitVisible(chromedp.CSS(rowSel("alpha")+" details.screen summary")))
	b.click(rowSel("alpha") + " details.screen summary")
	b.waitText(rowSel("alpha")+" pre.screen", "first screen")
	if _, err := eval[bool](b, fmt.Sprintf(`(document.querySelector(%q).dataset.mark = "kept", true)`, rowSel("alpha"))); err != nil {
		t.Fatal(err)
	}
	text.Store("$ second screen")
	sup.Set(st) // an event with nothing new in the state: the hub reads the screen again
	b.waitText(rowSel("alpha")+" pre.screen", "second screen")
	if mark, err := eval[string](b, fmt.Sprintf(`document.querySelector(%q).dataset.mark||""`, rowSel("alpha"))); err != nil || mark != "kept" {
		t.Fatalf("alpha's card was rebuilt for a new screen alone (mark %q, %v)", mark, err)
	}
	b.clean()
}

// TestBrowserHostileCorpus: agent text — summaries, the command awaiting
// approval, names and screens holding markup, scripts, javascript: links,
// tmux formats, OSC 52, U+202E and a 1 MB line — executes nothing in the
// page (no dialog, no request to another origin, no exception, no element
// but the page's own) and the DOM holds the text literally, with control
// and bidi characters shown as ⟨U+XXXX⟩.
func TestBrowserHostileCorpus(t *testing.T) {
	dir := shortDir(t)
	corpus := webHostile()
	for i, h := range corpus {
		st := ipc.State{
			SessionID: fmt.Sprintf("h%011d", i), Name: "h-" + h.Name, Lifecycle: "running", Activity: "needs_confirmation",
			Reason: "permission", Summary: h.Text, PromptDetail: "run: " + h.Text, PromptID: fmt.Sprintf("p%d", i),
			PromptChoices: []string{"yes", "no"}, WaitingSince: int64(1000 + i),
			PromptOptions: []ipc.PromptOption{{Choice: "1", Label: h.Text}},
		}
		if h.Name == "script" {
			st.Name = h.Text // a hostile name, too
		}
		text := h.Text
		if len(text) > 900_000 {
			// A frame holds 1 MiB: the line goes in the summary and the
			// screen, each once (the supervisor bounds the detail).
			text = text[:900_000]
			st.Summary, st.PromptDetail, st.PromptOptions[0].Label = text, ipc.BoundDetail(text), "long"
		}
		sup := ipctest.Serve(t, dir, st)
		sup.Server.Handle(ipc.MethodScreen, func(context.Context, *ipc.Request) (any, error) {
			return ipc.ScreenResult{Text: "$ " + text, Format: "text", Cols: 80, Rows: 24}, nil
		})
	}
	r := startRig(t, dir)
	b := newBrowser(t, r.base)
	b.open(r.s.URL())
	// Generous bounds: the rows hold a 900 KB line three times over, and
	// under -race beside the whole suite the first render took over 20 s
	// (a run of the merged tree). What this test proves is that nothing
	// runs, not how fast (BenchmarkPage200 measures that).
	testutil.WaitUntil(t, 90*time.Second, "every hostile row with its screen", func() bool {
		n, err := eval[int](b, `document.querySelectorAll('li.row details.screen').length`)
		return err == nil && n == len(corpus)
	})
	// Open every preview: the page fetches its text.
	if _, err := eval[bool](b, `(document.querySelectorAll('details.screen').forEach(d => d.open = true), true)`); err != nil {
		t.Fatal(err)
	}
	testutil.WaitUntil(t, 90*time.Second, "every screen preview to load", func() bool {
		n, err := eval[int](b, `document.querySelectorAll('li.row pre.screen[data-seq]').length`)
		return err == nil && n == len(corpus)
	})
	type shown struct {
		ID, Name, Summary, Detail, Screen, Option string
	}
	got, err := eval[[]shown](b, `Array.from(document.querySelectorAll('li.row')).map(li => ({
		ID: li.dataset.id, Name: li.querySelector('.name').textContent,
		Summary: li.querySelector('.summary').textContent, Detail: li.querySelector('pre.detail').textContent,
		Screen: li.querySelector('pre.screen').textContent,
		Option: li.querySelector('button[data-choice="1"]').textContent}))`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(corpus) {
		t.Fatalf("%d rows shown, want %d", len(got), len(corpus))
	}
	for _, g := range got {
		row, ok := r.s.hub.row(g.ID)
		if !ok {
			t.Fatalf("row %s shown but not served", g.ID)
		}
		want := shown{ID: row.ID, Name: visible(jsonText(row.Name)), Summary: visible(jsonText(row.Summary)),
			Detail: visible(jsonText(row.PromptDetail)), Screen: visible(jsonText(row.screen)),
			Option: visible(jsonText("1. " + row.PromptOptions[0].Label))}
		if g != want {
			t.Errorf("row %s: the DOM holds\n%+.300v\nwant\n%+.300v", row.Name, g, want)
		}
		if strings.ContainsRune(g.Summary+g.Detail+g.Name, '\u202e') || strings.Contains(g.Summary, "\x1b") {
			t.Errorf("row %s: a raw control character reached the DOM", row.Name)
		}
	}
	// Only the page's own elements: no script, image, link or frame
	// came from agent text.
	counts, err := eval[map[string]int](b, `({script: document.querySelectorAll('script').length,
		img: document.querySelectorAll('img,svg,iframe,object,embed').length, a: document.querySelectorAll('a').length,
		link: document.querySelectorAll('link').length})`)
	if err != nil {
		t.Fatal(err)
	}
	if counts["script"] != 1 || counts["img"] != 0 || counts["a"] != 0 || counts["link"] != 3 {
		t.Errorf("elements %v: want the page's own script and 3 links only", counts)
	}
	if _, err := os.Stat("/tmp/sup-web-hostile-touch"); err == nil {
		t.Error("a #(touch …) ran")
	}
	time.Sleep(300 * time.Millisecond) // a beacon would have been requested by now
	b.clean()
}

// TestBrowserCrossOriginPage: a page of another origin on the same host
// (same site: the cookie is SameSite=Strict, but ports do not make
// sites), opened in the browser that is signed in, posts to every action
// by fetch (simple and preflighted), by a form and by a beacon, and reads
// the event stream: nothing reaches the supervisor and nothing is read.
func TestBrowserCrossOriginPage(t *testing.T) {
	dir := shortDir(t)
	sup := ipctest.Serve(t, dir, ipc.State{SessionID: "aaaaaaaaaaaa", Name: "alpha", Activity: "needs_confirmation",
		PromptID: "p1", PromptChoices: []string{"yes"}, WaitingSince: 5})
	var mu sync.Mutex
	calls := 0
	for _, m := range []string{ipc.MethodSkip, ipc.MethodAnswer, ipc.MethodTrigger} {
		sup.Server.Handle(m, func(context.Context, *ipc.Request) (any, error) {
			mu.Lock()
			calls++
			mu.Unlock()
			return nil, nil
		})
	}
	r := startRig(t, dir)
	id := r.waitRow("alpha").ID
	// The form posts into an iframe: posted at the top level it navigated
	// the evil page away, and on a loaded machine that came before the
	// fetches had settled, their results lost with the page (a whole run,
	// 2026-11-28: "timed out … waiting for the evil page's attempts").
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><body><iframe name=sink></iframe><form id=f method=POST action="%[1]s/api/skip" enctype="text/plain" target=sink>
<input name='{"id":"%[2]s","x":"' value='"}'></form><script>
const T = %[1]q, body = JSON.stringify({id: %[2]q, choice: "yes", expect: "p1"});
window.results = [];
const note = (what) => (x) => window.results.push(what + ": " + x);
fetch(T + "/api/answer", {method: "POST", mode: "no-cors", credentials: "include", headers: {"Content-Type": "text/plain"}, body}).then(note("simple"), note("simple err"));
fetch(T + "/api/answer", {method: "POST", credentials: "include", headers: {"Content-Type": "application/json", "X-Sup-CSRF": "guess"}, body}).then(note("preflighted"), note("preflighted err"));
navigator.sendBeacon(T + "/api/skip", new Blob([body], {type: "text/plain"}));
fetch(T + "/events", {credentials: "include"}).then(r => r.text()).then(note("read events"), note("events err"));
fetch(T + "/api/screen?id=%[2]s", {credentials: "include"}).then(r => r.text()).then(note("read screen"), note("screen err"));
setTimeout(() => document.getElementById("f").submit(), 300);
</script>`, r.base, id)
	}))
	t.Cleanup(evil.Close)
	b := newBrowser(t, r.base)
	b.open(r.s.URL())
	b.origin = evil.URL // requests to sup web from the evil page are what is tested, not foreign
	b.must(20*time.Second, "the evil page", chromedp.Navigate(evil.URL))
	var res []string
	testutil.WaitUntil(t, 30*time.Second, "the evil page's attempts", func() bool {
		res, _ = eval[[]string](b, `window.results || []`)
		return len(res) >= 4
	})
	time.Sleep(time.Second) // the form's post and the beacon land
	t.Logf("the evil page saw: %q", res)
	for _, x := range res {
		if strings.HasPrefix(x, "read ") {
			t.Errorf("the evil page read sup web's answer: %.200s", x)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 0 {
		t.Fatalf("%d calls from another origin reached the supervisor", calls)
	}
	// They reached sup web and were refused there (not only by the
	// browser): the form's post and the beacon carry the cookie.
	if n := strings.Count(r.log.String(), "refused a cross-origin request"); n < 2 {
		t.Fatalf("sup web refused %d cross-origin requests, want the form's and the beacon's at least:\n%s", n, r.log.String())
	}
}

// TestBrowserActions: from the page, Send types a trigger into the agent,
// Skip moves a waiting session behind the others, and Jump (sup web beside
// a terminal) moves the operator's tmux client to the session's pane.
func TestBrowserActions(t *testing.T) {
	var client *testutil.Client
	w := newWebRig(t, func(r *testutil.Rig, c *Config) {
		client = r.Tmux.AttachClient(t)
		c.TmuxSocket, c.TmuxClient = r.Tmux.SocketPath, client.TTY
	})
	alpha := w.Start("alpha", "-echo", "-ready")
	w.Start("beta", "-echo")
	ipctest.Stuck(t, w.Socket("beta"), "beta") // alpha waits since its -ready
	b := newBrowser(t, "http://"+w.s.Addr().String())
	b.open(w.s.URL())
	b.must(10*time.Second, "the queue", chromedp.WaitVisible(chromedp.CSS("#queue "+rowSel("alpha"))),
		chromedp.WaitVisible(chromedp.CSS("#queue "+rowSel("beta"))))
	first := func() string {
		n, _ := eval[string](b, `(document.querySelector('#queue li.row')||{dataset:{}}).dataset.name||""`)
		return n
	}
	head := first()

	// Skip: the head goes behind the other.
	b.clickPost(rowSel(head)+" button.skip", "/api/skip")
	b.waitText("#status", "skipped "+head+" until")
	testutil.WaitUntil(t, 10*time.Second, head+" to leave the head", func() bool { return first() != head })

	// Send.
	b.must(10*time.Second, "type a prompt", chromedp.SendKeys(chromedp.CSS(rowSel("alpha")+" .trigger input"), "hello from the web"))
	b.clickPost(rowSel("alpha")+" button.send", "/api/trigger")
	w.Tmux.WaitFor(t, alpha, "got: hello from the web", 15*time.Second)
	ipctest.Hook(t, w.Socket("alpha"), "alpha", "UserPromptSubmit") // the agent takes it: busy acks it
	b.waitText(rowSel("alpha")+" .msg", "delivered to alpha")
	// The hook's busy rebuilds alpha's card: clicked while it is being
	// replaced, Jump's click went nowhere (a loaded CI run).
	b.waitText(rowSel("alpha")+" .state", "busy")

	// Jump.
	b.clickPost(rowSel("alpha")+" button.jump", "/api/jump")
	b.waitText("#status", "jumped to alpha")
	if got := w.Tmux.ClientPane(t, client); got != alpha {
		t.Fatalf("the client shows %s, want alpha's pane %s", got, alpha)
	}
	b.clean()
}

// TestBrowserNotification: with notifications allowed and the page in the
// background, a new prompt raises one notification naming the session,
// its body the summary as text; the same prompt again raises none. (The
// browser's Notification is a recording stand-in: headless Chromium shows
// none, and its permission prompt cannot be answered here.)
func TestBrowserNotification(t *testing.T) {
	dir := shortDir(t)
	sup := ipctest.Serve(t, dir, ipc.State{SessionID: "aaaaaaaaaaaa", Name: "alpha", Lifecycle: "running", Activity: "busy"})
	r := startRig(t, dir)
	b := newBrowser(t, r.base)
	b.open(r.s.URL())
	b.must(10*time.Second, "alpha", chromedp.WaitVisible(chromedp.CSS(rowSel("alpha"))))
	if _, err := eval[bool](b, `(() => { window.__notes = [];
		class FakeN { constructor(title, o) { window.__notes.push({title: title, body: o.body}); } }
		FakeN.permission = 'granted'; FakeN.requestPermission = async () => 'granted';
		window.Notification = FakeN;
		Object.defineProperty(document, 'hidden', {get: () => true, configurable: true}); return true; })()`); err != nil {
		t.Fatal(err)
	}
	st := sup.State()
	st.Activity, st.PromptID, st.Summary, st.WaitingSince = "needs_confirmation", "p1", "<b>rm</b> -rf \u202e/", 5
	sup.Set(st)
	type note struct{ Title, Body string }
	var notes []note
	testutil.WaitUntil(t, 10*time.Second, "a notification", func() bool {
		notes, _ = eval[[]note](b, `window.__notes`)
		return len(notes) > 0
	})
	want := note{Title: "sup: alpha asks", Body: "<b>rm</b> -rf ⟨U+202E⟩/"}
	if len(notes) != 1 || notes[0] != want {
		t.Fatalf("notifications %+v, want %+v", notes, want)
	}
	st.Summary = "the same prompt, reworded"
	sup.Set(st)
	b.waitText(rowSel("alpha")+" .summary", "reworded")
	if notes, _ = eval[[]note](b, `window.__notes`); len(notes) != 1 {
		t.Fatalf("the same prompt notified again: %+v", notes)
	}
	b.clean()
}
