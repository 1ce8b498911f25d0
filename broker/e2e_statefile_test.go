//go:build linux

package broker_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestE2EListingWakesNoSupervisor: `sup ls` reads the real supervisors'
// state files and connects to none of them (alpha's client events stay
// silent, where one `sup state alpha` shows); what it lists is what their
// sockets answer; a change is in the listing the moment the hook that made
// it returned; a SIGKILLed supervisor's socket and files are cleaned by
// the next listing.
func TestE2EListingWakesNoSupervisor(t *testing.T) {
	t.Parallel()
	f := newFleet(t, "")
	rt := f.env["SUP_RUNTIME_DIR"]
	f.start("alpha")
	f.start("beta")
	alpha, beta := f.session("alpha"), f.session("beta")

	c, err := ipc.Dial(alpha.Socket, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub, err := c.Subscribe(ctx, []string{ipc.EventClient})
	if err != nil {
		t.Fatal(err)
	}
	connects := make(chan ipc.Event, 16)
	go func() {
		for {
			ev, err := sub.Next()
			if err != nil {
				return
			}
			connects <- ev
		}
	}()
	go func() { <-ctx.Done(); sub.Close() }()

	ls := func() map[string]map[string]any {
		t.Helper()
		var rows []map[string]any
		if err := json.Unmarshal([]byte(f.mustSup("ls", "--json")), &rows); err != nil {
			t.Fatal(err)
		}
		out := map[string]map[string]any{}
		for _, r := range rows {
			delete(r, "host")
			out[r["name"].(string)] = r
		}
		return out
	}
	for range 3 {
		if got := ls(); len(got) != 2 {
			t.Fatalf("sup ls: %v, want alpha and beta", got)
		}
	}
	// One `sup state alpha` after the listings: the one connection alpha
	// saw (its events go out in order, so the listings' would be first).
	var st map[string]any
	if err := json.Unmarshal([]byte(f.mustSup("state", "--json", "alpha")), &st); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for deadline := time.After(10 * time.Second); ; {
		select {
		case ev := <-connects:
			if ev.Data["phase"] == "connect" {
				seen++
			}
			continue
		case <-time.After(time.Second):
			if seen == 0 {
				continue // sup state's connect is still on its way
			}
		case <-deadline:
		}
		break
	}
	if seen != 1 {
		t.Fatalf("alpha saw %d connections for three listings and one sup state; want sup state's alone", seen)
	}
	// What ls lists is what the socket answers.
	if got := ls()["alpha"]; !reflect.DeepEqual(got, st) {
		t.Fatalf("sup ls lists alpha as\n%v\nits socket says\n%v", got, st)
	}

	// No waiting: the hook's answer comes after the file is written.
	f.stuck("alpha")
	if got := ls()["alpha"]; got["activity"] != "ready" || got["waiting_since"] == float64(0) {
		t.Fatalf("alpha right after its Stop hook: %v", got)
	}

	if err := syscall.Kill(beta.State.SupPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testutil.WaitUntil(t, 10*time.Second, "the killed beta to leave the listing", func() bool {
		_, ok := ls()["beta"]
		return !ok
	})
	for _, p := range []string{beta.Socket, paths.StateFile(rt, beta.State.SessionID), paths.QueueFile(rt, beta.State.SessionID)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s after the listing saw beta dead: %v", p, err)
		}
	}
}
