package desk

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/trigger"
)

// TestNewJobRefusesBadParams: every bad trigger request is refused before
// it is queued, with a code and a message naming the field and what is
// valid. (The delivery paths are deliver_test.go's, against a fake
// session.)
func TestNewJobRefusesBadParams(t *testing.T) {
	d := New(trigger.Config{MaxPromptBytes: 16}, nil, nil, nil)
	tests := []struct {
		p    ipc.TriggerParams
		code ipc.Code
		msg  string
	}{
		{ipc.TriggerParams{Prompt: "x"}, ipc.CodeBadRequest, `trigger_id "": need an id of letters`},
		{ipc.TriggerParams{TriggerID: "t", ThreadID: "\x1b", Prompt: "x"}, ipc.CodeBadRequest, "thread_id \"\\x1b\": need letters"},
		{ipc.TriggerParams{TriggerID: "t"}, ipc.CodeBadRequest, "params need prompt"},
		{ipc.TriggerParams{TriggerID: "t", Prompt: strings.Repeat("x", 17)}, ipc.CodePayloadTooLarge, "trigger: "},
		{ipc.TriggerParams{TriggerID: "t", Prompt: "\x1b\x07"}, ipc.CodeBadRequest, "only control characters"},
		{ipc.TriggerParams{TriggerID: "t", Prompt: "x", AckTimeoutMS: -1}, ipc.CodeBadRequest, "ack_timeout_ms -1: must be positive"},
		{ipc.TriggerParams{TriggerID: "t", Prompt: "x", ForceOverride: true}, ipc.CodeBadRequest, "trigger: "},
	}
	for _, tt := range tests {
		_, err := d.newJob(tt.p, true)
		var ie *ipc.Error
		if !errors.As(err, &ie) || ie.Code != tt.code || !strings.Contains(ie.Message, tt.msg) {
			t.Errorf("%+v: %v, want %s containing %q", tt.p, err, tt.code, tt.msg)
		}
	}
}

// TestNewJobEnvelope: the pasted text is the sanitised prompt in its
// envelope, on the default thread, unless the envelope is turned off.
func TestNewJobEnvelope(t *testing.T) {
	d := New(trigger.Config{}, nil, nil, nil)
	j, err := d.newJob(ipc.TriggerParams{TriggerID: "t1", Prompt: "run\x1b[31m it"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if j.thread != defaultThread || !strings.HasPrefix(j.text, "[BRIDGE_TRIGGER id=t1 thread=default") || strings.Contains(j.text, "\x1b") {
		t.Fatalf("job %q on thread %q", j.text, j.thread)
	}
	off := false
	if j, err = d.newJob(ipc.TriggerParams{TriggerID: "t2", Prompt: "plain", Envelope: &off}, true); err != nil || j.text != "plain" {
		t.Fatalf("envelope off: %q, %v", j.text, err)
	}
	// A profile without the envelope (a shell): the plain prompt, unless
	// the request asks for it.
	if j, err = d.newJob(ipc.TriggerParams{TriggerID: "t3", Prompt: "echo hi"}, false); err != nil || j.text != "echo hi" {
		t.Fatalf("profile without the envelope: %q, %v", j.text, err)
	}
	on := true
	if j, err = d.newJob(ipc.TriggerParams{TriggerID: "t4", Prompt: "echo hi", Envelope: &on}, false); err != nil || !strings.HasPrefix(j.text, "[BRIDGE_TRIGGER id=t4") {
		t.Fatalf("envelope asked for: %q, %v", j.text, err)
	}
}

// TestHead: the head looked for on the screen is the first non-blank
// line, at most 40 runes.
func TestHead(t *testing.T) {
	for in, want := range map[string]string{
		"\n  first line  \nsecond":  "first line",
		strings.Repeat("é", 50):     strings.Repeat("é", 40),
		"":                          "",
		"[BRIDGE_TRIGGER id=x]\nhi": "[BRIDGE_TRIGGER id=x]",
	} {
		if got := head(in); got != want {
			t.Errorf("head(%q) = %q, want %q", in, got, want)
		}
	}
}

// A question that names the trigger's thread or id is answered by it; the
// default thread, a part of a longer id or another id is no name.
func TestJobLookAsked(t *testing.T) {
	d := New(trigger.Config{}, nil, nil, nil)
	mk := func(p ipc.TriggerParams) *job {
		p.Prompt = "continue"
		j, err := d.newJob(p, false)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	q := "Should I reply on thread th_01 or wait for th_02x?"
	for _, c := range []struct {
		p         ipc.TriggerParams
		answering bool
	}{
		{ipc.TriggerParams{TriggerID: "t1"}, false},
		{ipc.TriggerParams{TriggerID: "t1", ThreadID: "th_01"}, true},
		{ipc.TriggerParams{TriggerID: "t1", ThreadID: "th_02"}, false},
		{ipc.TriggerParams{TriggerID: "th_01"}, true},
		{ipc.TriggerParams{TriggerID: "t1", ThreadID: "reply"}, false},
		{ipc.TriggerParams{TriggerID: "t1", Answering: true}, true},
	} {
		l := mk(c.p).look(time.Now(), time.Now(), Gates{Question: q})
		if !l.Asked || l.Answering != c.answering {
			t.Errorf("%+v: look %+v, want asked, answering %v", c.p, l, c.answering)
		}
	}
	if l := mk(ipc.TriggerParams{TriggerID: "t1", ThreadID: "th_01"}).look(time.Now(), time.Now(), Gates{}); l.Asked || l.Answering {
		t.Errorf("no question: %+v", l)
	}
	if m := askedMessage("Delete them?"); !strings.Contains(m, `"Delete them?"`) || !strings.Contains(m, "--answering") {
		t.Errorf("message %q: want the question and the way past it", m)
	}
}
