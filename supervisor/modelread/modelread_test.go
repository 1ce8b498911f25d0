package modelread

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/config"
)

func TestParseReplyValid(t *testing.T) {
	r, err := ParseReply("```json\n" + `{"state":"NEEDS_CONFIRMATION","summary":"Deploy to\u202e production?","actions_needed":[{"label":"Yes","key":"y"},{"label":"Pick  staging","key":" enter "}]}` + "\n```")
	if err != nil {
		t.Fatal(err)
	}
	if r.Activity() != "needs_confirmation" || r.Summary != "Deploy to production?" || len(r.Actions) != 2 ||
		r.Actions[1] != (Action{Label: "Pick staging", Key: "enter"}) {
		t.Fatalf("reply: %+v", r)
	}
}

func TestParseReplyFailures(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind Failure
	}{
		{"The screen shows a dialog asking to deploy.", FailNotJSON},
		{`{"state":"READY","summary":"x"} and more`, FailNotJSON},
		{`{"state":"READY","summary":"x","extra":1}`, FailNotJSON},
		{`{"state":"WAITING","summary":"x"}`, FailBadReply},
		{`{"state":"ready","summary":"x"}`, FailBadReply},
		{`{"state":"READY","summary":"two\nlines"}`, FailBadReply},
		{`{"state":"READY","summary":"x","actions_needed":[{"label":"","key":"y"}]}`, FailBadReply},
		{`{"state":"READY","summary":"x","actions_needed":[{"label":"run","key":"rm -rf / Enter"}]}`, FailBadReply},
		{`{"state":"READY","summary":"x","actions_needed":[{"label":"a","key":"\u001b[A"}]}`, FailBadReply},
		{`{"state":"READY","summary":"x","actions_needed":[{"label":"staging","key":"Up Enter"}]}`, FailBadReply},
		{"", FailNotJSON},
	} {
		_, err := ParseReply(c.in)
		if err == nil || KindOf(err) != c.kind {
			t.Errorf("ParseReply(%q) = %v, want kind %s", c.in, err, c.kind)
		}
	}
}

// TestRedaction: the secrets the issue names, and the user's pattern, are
// gone from what is built for the endpoint; the rest of the screen stays.
func TestRedaction(t *testing.T) {
	red, err := NewRedactor([]string{`internal-[0-9]+`})
	if err != nil {
		t.Fatal(err)
	}
	screen := strings.Join([]string{
		"Deploy with key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv?",
		"export OPENAI_API_KEY=sk-proj-1234567890abcdefghij",
		"aws AKIAIOSFODNN7EXAMPLE configured",
		"token ghp_0123456789abcdefghijABCDEFGHIJ",
		"-----BEGIN OPENSSH PRIVATE KEY-----",
		"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
		"-----END OPENSSH PRIVATE KEY-----",
		"password: hunter2",
		"Authorization: Bearer abcdefghijklmnop",
		"wrapped tail Qm9vZ2xlQW5kQXBwbGVBbmRNZXRhQW5kTW9yZTEyMzQ1Njc4OTA",
		"host internal-42 ready",
		"Allow this? [y/n]",
	}, "\n")
	body, err := BuildRequest("m", nil, red, screen)
	if err != nil {
		t.Fatal(err)
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	sent := req.Messages[len(req.Messages)-1].Content
	for _, secret := range []string{"sk-ant-", "sk-proj", "AKIA", "ghp_", "BEGIN OPENSSH", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "hunter2", "abcdefghijklmnop", "internal-42", "Qm9vZ2xl"} {
		if strings.Contains(sent, secret) || strings.Contains(string(body), secret) {
			t.Errorf("%q reaches the endpoint:\n%s", secret, sent)
		}
	}
	if !strings.Contains(sent, "Allow this? [y/n]") || !strings.Contains(sent, "aws "+Redacted+" configured") {
		t.Errorf("redaction took more than the secrets:\n%s", sent)
	}
	if _, err := NewRedactor([]string{"("}); err == nil || !strings.Contains(err.Error(), "redact[0]") {
		t.Errorf("bad user pattern: %v", err)
	}
	if _, err := NewRedactor([]string{"x*"}); err == nil {
		t.Error("a pattern matching the empty string is accepted")
	}
}

// TestBudgetWindow: 100 distinct screens in a minute spend at most the
// budget; an hour later the window has room again.
func TestBudgetWindow(t *testing.T) {
	w := Window{Max: 10}
	start := time.Unix(1_800_000_000, 0)
	calls := 0
	for i := range 100 {
		if w.Take(start.Add(time.Duration(i) * 600 * time.Millisecond)) {
			calls++
		}
	}
	if calls != 10 {
		t.Fatalf("%d calls in a minute, budget 10", calls)
	}
	if !w.Take(start.Add(BudgetWindow)) {
		t.Fatal("no room an hour after the first call")
	}
}

func TestFileBudgetShared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "budget")
	now := time.Unix(1_800_000_000, 0)
	a, b := &FileBudget{Path: path, Max: 3}, &FileBudget{Path: path, Max: 3}
	got := 0
	for i := range 10 {
		bud := a
		if i%2 == 1 {
			bud = b
		}
		ok, err := bud.Take(now.Add(time.Duration(i) * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			got++
		}
	}
	if got != 3 {
		t.Fatalf("%d calls through two handles on one file, budget 3", got)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("budget file: %v %v", fi, err)
	}
}

// TestFileBudgetTamper: the budget file is in the runtime dir every agent
// is told about; deleting, truncating or rewriting it with fewer calls does
// not give a running supervisor its budget back, a damaged file is a spent
// window for an hour, a future time counts as now, and a symlink or a
// directory in its place is an error (no call).
func TestFileBudgetTamper(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	spendAll := func(b *FileBudget) {
		t.Helper()
		for i := range b.Max {
			if ok, err := b.Take(now.Add(time.Duration(i) * time.Second)); !ok || err != nil {
				t.Fatalf("call %d: %v %v", i, ok, err)
			}
		}
	}
	for name, tamper := range map[string]func(path string){
		"deleted":   func(path string) { os.Remove(path) },
		"truncated": func(path string) { os.WriteFile(path, nil, 0o600) },
		"old calls": func(path string) { os.WriteFile(path, []byte("1\n2\n"), 0o600) },
		"replaced":  func(path string) { os.Remove(path); os.WriteFile(path, nil, 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "budget")
			a, b := &FileBudget{Path: path, Max: 3}, &FileBudget{Path: path, Max: 3}
			spendAll(a)
			tamper(path)
			// Another supervisor that never spent: the one that did
			// writes its window back on its next call.
			for _, bud := range []*FileBudget{a, b, a} {
				if ok, err := bud.Take(now.Add(time.Minute)); ok || err != nil {
					t.Fatalf("a call after the file was %s: %v %v", name, ok, err)
				}
			}
			if ok, _ := b.Take(now.Add(BudgetWindow + 3*time.Second)); !ok {
				t.Fatal("no room an hour later")
			}
		})
	}
	for name, content := range map[string]string{
		"garbled": "1800000000000\nnot-a-time\n",
		"too big": strings.Repeat("1800000000000\n", 6000),
		"future":  "99999999999999\n99999999999999\n99999999999999\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "budget")
			os.WriteFile(path, []byte(content), 0o600)
			b := &FileBudget{Path: path, Max: 3}
			if ok, err := b.Take(now); ok || err != nil {
				t.Fatalf("a call on a %s file: %v %v", name, ok, err)
			}
			if ok, err := (&FileBudget{Path: path, Max: 3}).Take(now.Add(BudgetWindow)); !ok || err != nil {
				t.Fatalf("an hour later on a %s file: %v %v", name, ok, err)
			}
		})
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "elsewhere"), nil, 0o600)
	os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "link"))
	os.Mkdir(filepath.Join(dir, "dir"), 0o700)
	for _, p := range []string{"link", "dir"} {
		if ok, err := (&FileBudget{Path: filepath.Join(dir, p), Max: 3}).Take(now); ok || err == nil {
			t.Errorf("budget at a %s: %v %v", p, ok, err)
		}
	}
}

func TestCacheBounded(t *testing.T) {
	c := NewCache(2)
	c.Put("a", Entry{Failed: FailHTTP})
	c.Put("b", Entry{})
	c.Put("c", Entry{})
	if _, ok := c.Get("a"); ok || c.Len() != 2 {
		t.Fatalf("oldest not evicted: len %d", c.Len())
	}
}

// TestClientRead: the request goes to <endpoint>/chat/completions with the
// key as a bearer token and the few-shot examples before the screen; each
// failure has its kind.
func TestClientRead(t *testing.T) {
	var status int
	var content string
	var delay time.Duration
	var got *http.Request
	var gotBody []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		gotBody, _ = io.ReadAll(r.Body)
		time.Sleep(delay)
		if status != 200 {
			http.Error(w, "boom", status)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
	}))
	defer srv.Close()
	c, err := NewClient(config.Model{Endpoint: srv.URL + "/v1/", Name: "m", Timeout: 200 * time.Millisecond}, "k-123")
	if err != nil {
		t.Fatal(err)
	}
	ex := []config.ModelExample{{Screen: "Continue? (y/n)", Reply: Reply{State: config.StateNeedsConfirmation, Summary: "Continue?", Actions: []Action{{Label: "Yes", Key: "y"}}}}}
	status, content = 200, `{"state":"ERROR","summary":"build failed","actions_needed":[]}`
	r, err := c.Read(context.Background(), ex, "make: *** [all] Error 1")
	if err != nil || r.State != config.StateError || r.Summary != "build failed" {
		t.Fatalf("read: %+v %v", r, err)
	}
	if got.URL.Path != "/v1/chat/completions" || got.Header.Get("Authorization") != "Bearer k-123" {
		t.Fatalf("request: %s %v", got.URL.Path, got.Header)
	}
	var req chatRequest
	json.Unmarshal(gotBody, &req)
	if len(req.Messages) != 4 || !strings.Contains(req.Messages[1].Content, "Continue? (y/n)") || req.Messages[2].Role != "assistant" {
		t.Fatalf("messages: %+v", req.Messages)
	}
	for _, c2 := range []struct {
		status  int
		content string
		delay   time.Duration
		kind    Failure
	}{
		{500, "", 0, FailHTTP},
		{200, "I think it waits.", 0, FailNotJSON},
		{200, `{"state":"PONDERING","summary":"x"}`, 0, FailBadReply},
		{200, `{}`, 400 * time.Millisecond, FailTimeout},
	} {
		status, content, delay = c2.status, c2.content, c2.delay
		if _, err := c.Read(context.Background(), nil, "x"); KindOf(err) != c2.kind || !errors.As(err, new(*Error)) {
			t.Errorf("status %d %q: %v, want %s", c2.status, c2.content, err, c2.kind)
		}
	}
}
