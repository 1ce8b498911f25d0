//go:build linux

package supervisor

import (
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/supervisor/proc"
	"golang.org/x/term"
)

// TestUnitInputKeysNotHeldByTheSubmitDelay (issue 29): the human's keys go
// through while sup's write sleeps its submit delay — the router's lock is
// not held across it — and the Enter follows them; confirm, under the
// lock again, sees the key and withholds the Enter.
func TestUnitInputKeysNotHeldByTheSubmitDelay(t *testing.T) {
	for _, withhold := range []bool{false, true} {
		master, slave, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := term.MakeRaw(int(slave.Fd())); err != nil {
			t.Fatal(err)
		}
		inDelay, release := make(chan struct{}), make(chan struct{})
		r := &inputRouter{master: master, sleep: func(time.Duration) {
			close(inDelay)
			<-release
		}}
		var keyed bool
		confirm := func() error {
			if withhold && keyed {
				return errors.New("the human typed")
			}
			return nil
		}
		done := make(chan error, 1)
		go func() {
			_, _, err := r.write(master, time.Second, time.Second, func() ([]byte, bool, error) { return []byte("paste"), true, nil }, confirm)
			done <- err
		}()
		<-inDelay
		routed := make(chan struct{})
		go func() {
			r.route([]byte("x"), true)
			close(routed)
		}()
		select {
		case <-routed:
		case <-time.After(10 * time.Second):
			t.Fatal("the pane's key waited for the submit delay")
		}
		keyed = true
		close(release)
		err = <-done
		if withhold != (err != nil) {
			t.Fatalf("withhold %v: write: %v", withhold, err)
		}
		want := "pastex\r"
		if withhold {
			want = "pastex"
		}
		master.Write([]byte("#")) // the end of what the child reads
		var got []byte
		buf := make([]byte, 64)
		for len(got) == 0 || got[len(got)-1] != '#' {
			n, err := slave.Read(buf)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, buf[:n]...)
		}
		got = got[:len(got)-1]
		master.Close()
		slave.Close()
		if string(got) != want {
			t.Fatalf("withhold %v: the child read %q, want %q", withhold, got, want)
		}
	}
}

// TestUnitInputInjectHoldsKeysAcrossTheDelay: a write without confirm
// (inject) cannot tell the human's key from its text, so it keeps the
// lock across the delay: the key lands after the Enter, never in the
// submitted line.
func TestUnitInputInjectHoldsKeysAcrossTheDelay(t *testing.T) {
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	if _, err := term.MakeRaw(int(slave.Fd())); err != nil {
		t.Fatal(err)
	}
	inDelay, release := make(chan struct{}), make(chan struct{})
	r := &inputRouter{master: master, sleep: func(time.Duration) {
		close(inDelay)
		<-release
	}}
	done := make(chan error, 1)
	go func() {
		_, err := r.inject([]byte("text"), true, time.Second, time.Second)
		done <- err
	}()
	<-inDelay
	routed := make(chan struct{})
	go func() {
		r.route([]byte("x"), true)
		close(routed)
	}()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-routed
	master.Write([]byte("#"))
	var got []byte
	buf := make([]byte, 64)
	for len(got) == 0 || got[len(got)-1] != '#' {
		n, err := slave.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if string(got) != "text\rx#" {
		t.Fatalf("the child read %q, want the text, its Enter, then the key", got)
	}
}

// TestUnitInputKeyStampedBeforeThePaste (review of issue 29, finding 1):
// a key the pane's read returned before the paste (its stamp older than
// the write) but routed in the submit delay sits between the paste and
// the Enter. The desk's gates see it by the count of routed keys
// (Gates.Keys), not by its stamp: the Enter is withheld. A terminal's
// report in the delay is no key and withholds nothing.
func TestUnitInputKeyStampedBeforeThePaste(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		withhold bool
	}{{"key", "x", true}, {"report", "\x1b[I", false}} {
		master, slave, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := term.MakeRaw(int(slave.Fd())); err != nil {
			t.Fatal(err)
		}
		o := newStateOwner(&plan.Plan{}, pty.Winsize{}, "")
		o.change(func() { o.run.lifecycle, o.run.child = LifecycleRunning, &proc.Child{} })
		s := &Session{log: slog.New(slog.DiscardHandler), owner: o, agent: agentHandle{o}, prompts: promptHandle{o}}
		p := deskPort{s}
		pane := newPaneReader(s)
		stamp := time.Now() // the pane's read returned
		s.in.master = master
		s.in.sleep = func(time.Duration) { pane.feed([]byte(tc.in), stamp) }
		var keys uint64
		var writeAt time.Time
		_, _, err = s.in.write(master, time.Millisecond, time.Second, func() ([]byte, bool, error) {
			g := p.gates(time.Now())
			keys, writeAt = g.Keys, time.Now()
			return []byte("paste"), true, nil
		}, func() error {
			g := p.gates(time.Now())
			if tc.withhold && g.LastKey.After(writeAt) {
				t.Errorf("%s: the key's stamp is after the paste: the test does not show the race", tc.name)
			}
			if g.Keys != keys {
				return errors.New("the human typed")
			}
			return nil
		})
		if tc.withhold != (err != nil) {
			t.Errorf("%s: write: %v, want withheld %v", tc.name, err, tc.withhold)
		}
		want := "paste" + tc.in + "\r"
		if tc.withhold {
			want = "paste" + tc.in
		}
		master.Write([]byte("#")) // the end of what the child reads
		var got []byte
		buf := make([]byte, 64)
		for len(got) == 0 || got[len(got)-1] != '#' {
			n, err := slave.Read(buf)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, buf[:n]...)
		}
		pane.end()
		master.Close()
		slave.Close()
		if string(got[:len(got)-1]) != want {
			t.Errorf("%s: the child read %q, want %q", tc.name, got[:len(got)-1], want)
		}
	}
}
