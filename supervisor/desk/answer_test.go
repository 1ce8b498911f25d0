package desk

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/caller"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/trigger"
)

// permission is a dialog open for a second, on the screen, answered by
// y, n or an option number (1 or 2: the screen shows two).
func permission() Prompt {
	now := time.Now()
	return Prompt{ID: "p1", Activity: "needs_confirmation", Summary: "rm build", Detail: "rm -rf build", Reason: "permission",
		Since: now.Add(-time.Second), ShownAt: now.Add(-time.Second), Dialog: "permission", Profile: "confirm", Name: "doc",
		Keys: &Keys{
			Choices: []Choice{{Name: "yes", Keys: "y"}, {Name: "no", Keys: "n"}, {Name: "1", Keys: "1", Option: "Yes"},
				{Name: "2", Keys: "2", Option: "Yes, and switch to accept edits", Mode: "accept edits"}},
			Refused: map[string]string{"always": "this dialog has no such option", "3": "this dialog's options are 1, 2"},
			NoText:  "this dialog takes no free text",
			Valid:   []string{"yes", "no", "1-2"},
		}}
}

// question is a finished turn's question: any choice is text.
func question() Prompt {
	now := time.Now()
	return Prompt{ID: "q1", Activity: "ready", Summary: "Delete them?", Reason: "asked", Since: now.Add(-time.Second),
		ShownAt: now.Add(-time.Second), Dialog: "asked", Keys: &Keys{Text: true, Valid: []string{"text"}}}
}

// goneOnKeys: the prompt leaves once anything was typed, acknowledged by.
func goneOnKeys(by string) func(f *fakePort, id string, written time.Time) (string, string) {
	return func(f *fakePort, id string, written time.Time) (string, string) {
		if f.written() == "" {
			return "", "needs_confirmation"
		}
		return by, "ready"
	}
}

// TestAnswer is the desk's answer to an open prompt, for every outcome
// (specs/ipc.md, `answer`; specs/triggers.md, "Answers"): the prompt's
// identity checked right before the keys, the operator gate, the keys
// from the dialog's data, the settle and draw waits, the ack, and one
// audit line each.
func TestAnswer(t *testing.T) {
	tests := []struct {
		name  string
		p     ipc.AnswerParams
		setup func(f *fakePort)

		code    ipc.Code // the error's; "" answered
		msg     string   // the error's message holds it
		writes  string   // fakePort.written
		ackedBy string
		option  string
		mode    string
		took    time.Duration // at least, on the bubble's clock
		outcome string        // the audit line's outcome
		gate    string        // and collision gate
	}{{
		name: "yes, acked by the screen",
		p:    ipc.AnswerParams{Choice: "yes", Expect: "p1"},
		setup: func(f *fakePort) {
			f.prompt, f.gone = permission(), goneOnKeys("screen")
		},
		writes: "[y]", ackedBy: "screen", option: "", outcome: "answered", gate: trigger.GateEnforced,
	}, {
		name: "an option by its number, and the mode it switches to",
		p:    ipc.AnswerParams{Choice: "2"},
		setup: func(f *fakePort) {
			f.prompt, f.gone = permission(), goneOnKeys("hook")
		},
		writes: "[2]", ackedBy: "hook", option: "Yes, and switch to accept edits", mode: "accept edits", outcome: "answered",
	}, {
		name: "no prompt: NO_PROMPT, nothing typed",
		p:    ipc.AnswerParams{Choice: "yes"},
		code: ipc.CodeNoPrompt, msg: "doc shows no prompt", writes: "none", outcome: "refused", gate: trigger.GateNotEvaluated,
		setup: func(f *fakePort) { f.prompt = Prompt{Name: "doc", Activity: "ready"} },
	}, {
		name:  "another prompt than expected: PROMPT_CHANGED",
		p:     ipc.AnswerParams{Choice: "yes", Expect: "p0"},
		setup: func(f *fakePort) { f.prompt = permission() },
		code:  ipc.CodePromptChanged, msg: "expected p0, now p1: rm build", writes: "none", outcome: "refused",
	}, {
		name:  "the expected prompt gone: PROMPT_CHANGED",
		p:     ipc.AnswerParams{Choice: "yes", Expect: "p0"},
		setup: func(f *fakePort) { f.prompt = Prompt{Activity: "busy"} },
		code:  ipc.CodePromptChanged, msg: "prompt p0 is gone (activity busy)", writes: "none",
	}, {
		name:  "a choice the dialog does not offer names the valid ones",
		p:     ipc.AnswerParams{Choice: "always"},
		setup: func(f *fakePort) { f.prompt = permission() },
		code:  ipc.CodeBadRequest, msg: `choice "always": this dialog has no such option; valid choices: yes, no, 1-2`, writes: "none",
	}, {
		name:  "an option the screen does not show",
		p:     ipc.AnswerParams{Choice: "3"},
		setup: func(f *fakePort) { f.prompt = permission() },
		code:  ipc.CodeBadRequest, msg: "this dialog's options are 1, 2", writes: "none",
	}, {
		name:  "free text to a dialog that takes none",
		p:     ipc.AnswerParams{Choice: "go on then"},
		setup: func(f *fakePort) { f.prompt = permission() },
		code:  ipc.CodeBadRequest, msg: "takes no free text", writes: "none",
	}, {
		name: "a dialog without keys in the profile",
		p:    ipc.AnswerParams{Choice: "yes"},
		setup: func(f *fakePort) {
			f.prompt = permission()
			f.prompt.Keys, f.prompt.Rule = nil, "screen:odd"
		},
		code: ipc.CodeBadRequest, msg: "profile confirm has no answer keys for this dialog (screen:odd)", writes: "none",
	}, {
		name: "the human pressed a key at the prompt: OPERATOR_BUSY",
		p:    ipc.AnswerParams{Choice: "yes"},
		setup: func(f *fakePort) {
			f.prompt = permission()
			f.facts.Gates.OperatorBusy, f.facts.Gates.LastKey = true, time.Now()
		},
		code: ipc.CodeOperatorBusy, msg: "the human is answering in doc's pane", writes: "none", outcome: "refused", gate: trigger.GateEnforced,
	}, {
		name: "keys from before the prompt are no answer in progress",
		p:    ipc.AnswerParams{Choice: "yes"},
		setup: func(f *fakePort) {
			f.prompt, f.gone = permission(), goneOnKeys("screen")
			f.facts.Gates.OperatorBusy, f.facts.Gates.LastKey = true, time.Now().Add(-2*time.Second)
		},
		writes: "[y]", ackedBy: "screen",
	}, {
		name: "a draft in the dialog: OPERATOR_BUSY",
		p:    ipc.AnswerParams{Choice: "yes"},
		setup: func(f *fakePort) {
			f.prompt = permission()
			f.facts.Gates.Draft = true
		},
		code: ipc.CodeOperatorBusy, writes: "none",
	}, {
		name: "forced past the human",
		p:    ipc.AnswerParams{Choice: "no", ForceOverride: true, OverrideReason: "human_override: mine"},
		setup: func(f *fakePort) {
			f.prompt, f.gone = permission(), goneOnKeys("activity")
			f.facts.Gates.OperatorBusy, f.facts.Gates.LastKey = true, time.Now()
		},
		writes: "[n]", ackedBy: "activity", outcome: "answered", gate: trigger.GateBypassed,
	}, {
		name: "a question's answer is pasted text and its own Enter",
		p:    ipc.AnswerParams{Choice: "no, keep\x07 them"},
		setup: func(f *fakePort) {
			f.prompt, f.facts.BracketedPaste = question(), true
			f.gone = func(f *fakePort, id string, written time.Time) (string, string) {
				if strings.HasSuffix(f.written(), `\r`) {
					return "hook", "busy"
				}
				return "", "ready"
			}
		},
		writes: "[" + pasteStart + "no, keep them" + pasteEnd + `]\r`, ackedBy: "hook",
	}, {
		name: "the human typing between a text answer and its Enter withholds the Enter",
		p:    ipc.AnswerParams{Choice: "keep them"},
		setup: func(f *fakePort) {
			f.prompt = question()
			f.during = func(f *fakePort) {
				f.set(func(f *fakePort) { f.facts.Gates.LastKey, f.facts.Gates.Keys = time.Now(), 1 })
			}
		},
		code: ipc.CodeSubmitWithheld, msg: "the human typed in the pane between the text and its Enter", writes: "[keep them]", outcome: "failed",
	}, {
		// Review of issue 29, finding 1: the key's stamp is older than
		// the text (read before it, routed after it).
		name: "a key read before a text answer but routed in its delay withholds the Enter",
		p:    ipc.AnswerParams{Choice: "keep them"},
		setup: func(f *fakePort) {
			f.prompt = question()
			f.during = func(f *fakePort) {
				f.set(func(f *fakePort) { f.facts.Gates.LastKey, f.facts.Gates.Keys = time.Now().Add(-time.Second), 1 })
			}
		},
		code: ipc.CodeSubmitWithheld, msg: "the human typed in the pane between the text and its Enter", writes: "[keep them]", outcome: "failed",
	}, {
		// Review of issue 29, finding 3: the Enter would answer the
		// dialog that replaced the question.
		name: "a dialog replacing the question in a text answer's delay withholds the Enter",
		p:    ipc.AnswerParams{Choice: "keep them"},
		setup: func(f *fakePort) {
			f.prompt = question()
			f.during = func(f *fakePort) { f.set(func(f *fakePort) { f.prompt = permission() }) }
		},
		code: ipc.CodeSubmitWithheld, msg: "the prompt changed (answered q1, now p1) between the text and its Enter", writes: "[keep them]", outcome: "failed",
	}, {
		// The text itself closed the question on screen (`rm -i`'s line
		// ends in the word typed, TestE2EProgramQuestions): its Enter goes.
		name: "the question gone in a text answer's delay: the Enter goes",
		p:    ipc.AnswerParams{Choice: "keep them"},
		setup: func(f *fakePort) {
			f.prompt = question()
			f.during = func(f *fakePort) { f.set(func(f *fakePort) { f.prompt = Prompt{Activity: "ready"} }) }
			f.gone = func(f *fakePort, id string, written time.Time) (string, string) {
				if strings.HasSuffix(f.written(), `\r`) {
					return "activity", "ready"
				}
				return "", "ready"
			}
		},
		writes: "[keep them]" + `\r`, ackedBy: "activity",
	}, {
		name:  "text of control characters only",
		p:     ipc.AnswerParams{Choice: "\x1b\x07"},
		setup: func(f *fakePort) { f.prompt = question() },
		code:  ipc.CodeBadRequest, msg: "only control characters", writes: "none",
	}, {
		name: "a prompt just drawn is answered once it settled",
		p:    ipc.AnswerParams{Choice: "yes"},
		setup: func(f *fakePort) {
			f.prompt, f.gone = permission(), goneOnKeys("screen")
			f.prompt.ShownAt = time.Now()
		},
		writes: "[y]", ackedBy: "screen", took: AnswerSettle,
	}, {
		name: "a prompt only a hook reported waits for the screen to draw it",
		p:    ipc.AnswerParams{Choice: "yes"},
		setup: func(f *fakePort) {
			f.prompt, f.gone = permission(), goneOnKeys("screen")
			f.prompt.ShownAt = time.Time{}
			after(700*time.Millisecond, func(f *fakePort) { f.prompt.ShownAt = time.Now() })(f)
		},
		writes: "[y]", ackedBy: "screen", took: 700*time.Millisecond + AnswerSettle,
	}, {
		name: "a dialog no screen rule reads is answered after the draw wait",
		p:    ipc.AnswerParams{Choice: "yes"},
		setup: func(f *fakePort) {
			f.prompt, f.gone = permission(), goneOnKeys("activity")
			f.prompt.ShownAt = time.Time{}
		},
		writes: "[y]", ackedBy: "activity", took: AnswerDrawWait,
	}, {
		name:  "the prompt stays: ACK_TIMEOUT, typed once",
		p:     ipc.AnswerParams{Choice: "yes", AckTimeoutMS: 3000},
		setup: func(f *fakePort) { f.prompt = permission() },
		code:  ipc.CodeAckTimeout, msg: "still open after 3s; not retried", writes: "[y]", took: 3 * time.Second, outcome: "failed",
	}, {
		name: "the agent ends after the keys",
		p:    ipc.AnswerParams{Choice: "yes"},
		setup: func(f *fakePort) {
			f.prompt = permission()
			f.paste = func(f *fakePort) { go f.exit() }
		},
		code: ipc.CodeNotRunning, msg: "ended after the answer was typed", writes: "[y]", outcome: "failed",
	}, {
		name:  "no agent running",
		p:     ipc.AnswerParams{Choice: "yes"},
		setup: func(f *fakePort) { f.prompt, f.child = permission(), nil },
		code:  ipc.CodeNotRunning, msg: "no agent is running", writes: "none",
	}, {
		name: "the policy refuses the caller",
		p:    ipc.AnswerParams{Choice: "yes"},
		setup: func(f *fakePort) {
			f.prompt = permission()
			f.allow = func(c ipc.Caller, act caller.Action, what string) error {
				return ipc.Errorf(ipc.CodeNotAllowed, "%s: refused", what)
			}
		},
		code: ipc.CodeNotAllowed, writes: "none", outcome: "refused",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withDesk(t, trigger.Config{}, tt.setup, func(r *rig) {
				f := r.f
				res, err := r.d.Answer(context.Background(), tt.p)
				took := r.since()
				if got := errCode(err); got != tt.code || err != nil && !strings.Contains(err.Error(), tt.msg) {
					t.Fatalf("answer: %+v %v, want %s with %q", res, err, tt.code, tt.msg)
				}
				if err == nil && (res.AckedBy != tt.ackedBy || res.Option != tt.option || res.Mode != tt.mode || res.PromptID == "") {
					t.Errorf("answer %+v, want acked by %s, option %q, mode %q", res, tt.ackedBy, tt.option, tt.mode)
				}
				if got := f.written(); tt.writes == "none" && got != "" || tt.writes != "none" && got != tt.writes {
					t.Errorf("typed %q, want %q", got, tt.writes)
				}
				if n := len(f.released); (f.written() != "") != (n == 1) && tt.code != ipc.CodeNotRunning && tt.code != ipc.CodeSubmitWithheld {
					t.Errorf("the hold released %d times for keys %q", n, f.written())
				}
				if took < tt.took {
					t.Errorf("answered after %s, want at least %s", took, tt.took)
				}
				a := r.audit()
				if len(a) != 1 || a[0]["kind"] != "answer" || a[0]["choice"] != tt.p.Choice || a[0]["error_code"] != string(tt.code) {
					t.Fatalf("audit %v, want one answer line", a)
				}
				if tt.outcome != "" && a[0]["outcome"] != tt.outcome || tt.gate != "" && a[0]["collision_gate"] != tt.gate {
					t.Errorf("audit outcome %v gate %v, want %s %s", a[0]["outcome"], a[0]["collision_gate"], tt.outcome, tt.gate)
				}
			})
		})
	}
}

func errCode(err error) ipc.Code {
	if err == nil {
		return ""
	}
	if ie, ok := err.(*ipc.Error); ok {
		return ie.Code
	}
	return "?"
}

// TestAnswerHangUp: an asker that hangs up before the keys go types
// nothing.
func TestAnswerHangUp(t *testing.T) {
	withDesk(t, trigger.Config{}, func(f *fakePort) {
		f.prompt = permission()
		f.prompt.ShownAt = time.Now()
	}, func(r *rig) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if _, err := r.d.Answer(ctx, ipc.AnswerParams{Choice: "yes"}); errCode(err) != ipc.CodeInternal || r.f.written() != "" {
			t.Fatalf("%v, typed %q", err, r.f.written())
		}
	})
}

// TestAnswerWakesTriggers: a trigger held behind the prompt looks again
// as soon as the answer is in, not at its next recheck.
func TestAnswerWakesTriggers(t *testing.T) {
	withDesk(t, trigger.Config{}, func(f *fakePort) {
		f.prompt, f.gone = permission(), goneOnKeys("screen")
		f.facts.Gates.AgentBusy, f.facts.Gates.Prompting = true, true
		f.paste = func(f *fakePort) {
			f.set(func(f *fakePort) { f.facts.Gates.AgentBusy, f.facts.Gates.Prompting, f.prompt = false, false, Prompt{} })
		}
	}, func(r *rig) {
		done := make(chan ipc.TriggerResult)
		go func() {
			done <- r.trigger(ipc.TriggerParams{TriggerID: "t1", Prompt: "next", Envelope: &off})
		}()
		time.Sleep(time.Second)
		r.f.enter = busy
		start := time.Now()
		if _, err := r.d.Answer(context.Background(), ipc.AnswerParams{Choice: "yes"}); err != nil {
			t.Fatal(err)
		}
		if res := <-done; res.Result != ipc.OutcomeDelivered || time.Since(start) > time.Second {
			t.Fatalf("%+v after %s", res, time.Since(start))
		}
		if got := r.f.written(); got != `[y][next]\r` {
			t.Fatalf("typed %q", got)
		}
	})
}

// TestWaitsWatchTheChangeSignal (issue 29): the trigger's ack, the
// answer's settle and its gone wait look at each change of the session's
// facts (Port.Changed) and at their deadlines — never on a tick: each
// outcome comes at the instant of the change that decides it, after a
// handful of reads.
func TestWaitsWatchTheChangeSignal(t *testing.T) {
	withDesk(t, trigger.Config{AckMarker: "ACK:{id}"}, func(f *fakePort) {
		f.enter = after(333*time.Millisecond, func(f *fakePort) { f.screen = "ACK:t1" })
	}, func(r *rig) {
		res := r.trigger(ipc.TriggerParams{TriggerID: "t1", Prompt: "x"})
		if res.AckedBy != "marker" || r.since() != r.f.delay+333*time.Millisecond {
			t.Fatalf("%+v after %s, want acked by the marker at the Enter + 333ms", res, r.since())
		}
		if n := r.f.count(&r.f.reads); n > 8 {
			t.Fatalf("%d reads of the facts for one trigger and one change: a poll", n)
		}
	})
	withDesk(t, trigger.Config{}, func(f *fakePort) {
		f.prompt = permission()
		f.prompt.ShownAt = time.Now()
		f.paste = after(777*time.Millisecond, func(f *fakePort) { f.prompt = Prompt{} })
		f.gone = func(f *fakePort, id string, written time.Time) (string, string) {
			if f.Prompt(time.Now()).ID == "" {
				return "screen", "ready"
			}
			return "", "needs_confirmation"
		}
	}, func(r *rig) {
		res, err := r.d.Answer(context.Background(), ipc.AnswerParams{Choice: "yes"})
		if err != nil || res.AckedBy != "screen" || r.since() != AnswerSettle+777*time.Millisecond {
			t.Fatalf("%+v %v after %s, want typed once settled, acked 777ms later", res, err, r.since())
		}
		if n := r.f.count(&r.f.acks); n > 3 {
			t.Fatalf("%d gone checks for one change: a poll", n)
		}
	})
}
