//go:build linux

package web

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// A screen read that times out is tried again: nothing else asks until
// the session changes, so the row would stay without its screen (seen in
// TestBrowserHostileCorpus on a loaded machine). A supervisor that
// answered with an error is not asked again, and the retries stop.
func TestHubRetriesATimedOutScreen(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fail      error
		failures  int32
		wantCalls int32
		wantText  string
	}{
		{"timed out twice", context.DeadlineExceeded, 2, 3, "$ hello"},
		{"refused", ipc.Errorf(ipc.CodeInternal, "no screen"), 1, 1, ""},
		{"never answers", context.DeadlineExceeded, 100, 7, ""}, // 1 + 6 retries, 0.5 to 16 s apart
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			h := newHub(time.Now, slog.New(slog.NewTextHandler(io.Discard, nil)),
				func(context.Context, broker.Listing) (ipc.ScreenResult, error) {
					if calls.Add(1) <= tc.failures {
						return ipc.ScreenResult{}, tc.fail
					}
					return ipc.ScreenResult{Text: "$ hello", Cols: 80}, nil
				})
			h.retry = time.Millisecond
			l := broker.Listing{Socket: "/nonexistent/a.sock", State: ipc.State{SessionID: "s1", Name: "a"}}
			h.apply(broker.Change{Kind: broker.SessionUpdated, Session: l})
			id := rowID(l)
			testutil.WaitUntil(t, 5*time.Second, "the reads to end", func() bool {
				h.mu.Lock()
				defer h.mu.Unlock()
				return !h.reading[id]
			})
			if got := calls.Load(); got != tc.wantCalls {
				t.Errorf("screen read %d times, want %d", got, tc.wantCalls)
			}
			if text, _, _, _ := h.screenOf(id); text != tc.wantText {
				t.Errorf("row's screen %q, want %q", text, tc.wantText)
			}
		})
	}
}
