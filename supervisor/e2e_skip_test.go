//go:build linux

package supervisor_test

import (
	"errors"
	"testing"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// skipCall sends `skip` to the rig's one socket.
func (r *rig) skipCall(p ipc.SkipParams) (ipc.SkipResult, error) {
	var res ipc.SkipResult
	err := r.call(ipc.MethodSkip, p, &res)
	return res, err
}

// TestE2ESkip: skip moves a stuck session to the queue's tail with the
// configured cooldown, refuses a session that waits on nobody, and progress
// clears both facts.
func TestE2ESkip(t *testing.T) {
	t.Parallel()
	r := newRig(t, "queue: {skip_cooldown: 90s}\n")
	r.start("-echo")
	var pe *ipc.Error
	if _, err := r.skipCall(ipc.SkipParams{}); !errors.As(err, &pe) || pe.Code != ipc.CodeBadRequest {
		t.Fatalf("skip of a session that waits on nobody: %v, want BAD_REQUEST", err)
	}
	r.hook(`{"session_id":"c1","hook_event_name":"SessionStart","source":"startup"}`)
	r.hook(`{"session_id":"c1","hook_event_name":"Stop","last_assistant_message":"done"}`)
	first := r.state("doc").WaitingSince
	before := time.Now().UnixMilli()
	res, err := r.skipCall(ipc.SkipParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.WaitingSince < before || res.WaitingSince <= first || res.SkipUntil != res.WaitingSince+90_000 {
		t.Fatalf("skip result %+v (first waiting_since %d, called at %d; want the config's 90s cooldown)", res, first, before)
	}
	if st := r.state("doc"); st.WaitingSince != res.WaitingSince || st.SkipUntil != res.SkipUntil {
		t.Fatalf("state after skip: waiting_since %d skip_until %d, want %+v", st.WaitingSince, st.SkipUntil, res)
	}
	if res, err := r.skipCall(ipc.SkipParams{CooldownMS: 1000}); err != nil || res.SkipUntil != res.WaitingSince+1000 {
		t.Fatalf("skip with cooldown_ms 1000: %+v, %v", res, err)
	}
	if _, err := r.skipCall(ipc.SkipParams{CooldownMS: -1}); !errors.As(err, &pe) || pe.Code != ipc.CodeBadRequest {
		t.Fatalf("negative cooldown: %v, want BAD_REQUEST", err)
	}
	r.hook(`{"session_id":"c1","hook_event_name":"UserPromptSubmit","prompt":"go on"}`)
	if st := r.state("doc"); st.WaitingSince != 0 || st.SkipUntil != 0 {
		t.Fatalf("after progress: waiting_since %d skip_until %d, want both 0", st.WaitingSince, st.SkipUntil)
	}
}
