//go:build linux

package supervisor_test

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestE2EFaultGarbageThenLoad: a burst of 10,000 connections sending
// garbage, oversize frames, empty frames and half-written frames does not
// crash the supervisor or disturb its child; right after, 100 clients ×
// 1000 valid `state` calls (200 against a race-built supervisor, as in
// make test) all succeed and every injected line is echoed back exactly,
// in order. The p99 is logged.
func TestE2EFaultGarbageThenLoad(t *testing.T) {
	// Not parallel: 10,000 bad connections then 100 clients are a load of
	// their own, on the CPU the tests beside it would wait for.
	r := newRig(t, "")
	pane := r.start("-echo")
	before := r.state("doc")
	sock := r.sockets()[0]

	conns := 10_000
	if testing.Short() {
		conns = 1000
	}
	start := time.Now()
	counts := garbageBurst(t, sock, conns, 32)
	t.Logf("garbage burst: %d connections in %v: %v", conns, time.Since(start).Round(time.Millisecond), counts)
	if counts["oversize_answered"] == 0 || counts["garbage_answered"] == 0 {
		t.Fatalf("the server never answered a bad frame with an error: %v", counts)
	}

	after := r.state("doc")
	if after.SupPID != before.SupPID || after.PID != before.PID || after.RestartCount != 0 || after.Lifecycle != "running" {
		t.Fatalf("after the burst: sup %d child %d restarts %d %s, want sup %d child %d, no restart, running",
			after.SupPID, after.PID, after.RestartCount, after.Lifecycle, before.SupPID, before.PID)
	}
	res := loadWhileEchoing(t, r, pane)
	t.Logf("after the burst: p99 of valid state calls %v", res.Percentile(0.99))

	// Byte-exact: a line with every printable ASCII byte and UTF-8 (no
	// tab: the pane would show it as spaces).
	line := "exact:"
	for c := byte(' '); c < 0x7f; c++ {
		line += string(c)
	}
	line += " žluťoučký 🐎"
	r.mustSup("inject", "doc", line)
	r.tm.WaitFor(t, pane, "got: "+line, 5*time.Second)
	if !testutil.ProcessAlive(before.SupPID) || !testutil.ProcessAlive(before.PID) {
		t.Fatal("supervisor or child gone after the load")
	}
}

// garbageBurst opens n connections to sock, workers at a time, each sending
// one kind of bad input, and returns how many of each kind the server
// answered with an error frame (the rest it simply closed, or — for
// half-written frames — the client hung up first).
func garbageBurst(t *testing.T, sock string, n, workers int) map[string]int {
	t.Helper()
	kinds := []struct {
		name string
		data func() []byte
		// wait: read until the server closes (it must, within the frame
		// timeout); otherwise hang up right after writing.
		wait bool
	}{
		{"garbage", func() []byte { b := make([]byte, 64); rand.Read(b); return b }, true},
		{"oversize", func() []byte { return binary.BigEndian.AppendUint32(nil, 0xffff_ffff) }, true},
		{"empty", func() []byte { return []byte{0, 0, 0, 0} }, true},
		{"not_msgpack", func() []byte { return append(binary.BigEndian.AppendUint32(nil, 5), 0xc1, 0xc1, 0xc1, 0xc1, 0xc1) }, true},
		{"half_header", func() []byte { return []byte{0, 0} }, false},
		{"half_body", func() []byte { return append(binary.BigEndian.AppendUint32(nil, 100), "partial"...) }, false},
	}
	var mu sync.Mutex
	counts := map[string]int{}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				k := kinds[i%len(kinds)]
				answered, err := sendBad(sock, k.data(), k.wait)
				mu.Lock()
				if err != nil {
					counts["errors"]++
					if counts["errors"] == 1 {
						t.Errorf("connection %d (%s): %v", i, k.name, err)
					}
				}
				if answered {
					counts[k.name+"_answered"]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if counts["errors"] > 0 {
		t.Fatalf("%d of %d bad connections could not even be made or ended: %v", counts["errors"], n, counts)
	}
	return counts
}

// sendBad sends data on a new connection; with wait it reads the server's
// first frame (or its close) and reports whether that was an error frame.
// A malformed request is answered and the connection kept; bad framing is
// answered and closed.
func sendBad(sock string, data []byte, wait bool) (answered bool, err error) {
	c, err := net.DialTimeout("unix", sock, 10*time.Second)
	if err != nil {
		return false, fmt.Errorf("dial: %w", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Write(data); err != nil {
		return false, nil // the server may close on the first bad byte
	}
	if !wait {
		return false, nil
	}
	got, err := ipc.ReadFrame(c, 1<<20)
	if err != nil && !errors.Is(err, io.EOF) && !isReset(err) {
		return false, fmt.Errorf("no answer and no close: %w", err)
	}
	return bytes.Contains(got, []byte("PAYLOAD_TOO_LARGE")) || bytes.Contains(got, []byte("BAD_REQUEST")) ||
		bytes.Contains(got, []byte("TOO_MANY_CLIENTS")), nil
}

// isReset: a server closing with unread input in its buffer resets the
// connection instead of a clean EOF; both are a close.
func isReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }
