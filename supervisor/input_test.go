//go:build linux

package supervisor

import (
	"errors"
	"testing"
	"time"

	"github.com/creack/pty"
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
			r.route([]byte("x"))
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
		r.route([]byte("x"))
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
