package screen

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// stalledModel returns a model whose goroutine is stuck applying a
// one-byte primer, so that everything fed next stays queued, and the
// function that lets it go on.
func stalledModel(t *testing.T, cols, rows, budget int, onSignal func(Signal)) (*Model, func()) {
	t.Helper()
	entered := make(chan struct{}, 1)
	stall := make(chan struct{})
	m := NewModel(cols, rows, Options{QueueBytes: budget, OnSignal: onSignal})
	m.testHookApply = func() {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-stall
	}
	m.Feed([]byte{0}) // NUL: shows nothing
	<-entered
	var once sync.Once
	return m, func() { once.Do(func() { close(stall) }) }
}

func TestModelFeedSyncSnapshot(t *testing.T) {
	m := NewModel(20, 4, Options{})
	defer m.Close()
	m.Feed([]byte("hello\r\n\x1b[?1049h\x1b]0;title\x07"))
	m.Feed([]byte("\x1b[?2026h\x1b[Hframe"))
	m.Sync()
	snap := m.Snapshot()
	if snap.Text != "frame" || !snap.AltScreen || snap.Signals.Title != "title" || !snap.InFrame ||
		snap.CursorCol != 5 || snap.CursorRow != 0 || !snap.CursorOn || snap.Cols != 20 || snap.Rows != 4 ||
		len(snap.Lines) != 4 || snap.ANSI != "frame" || snap.Desynced {
		t.Fatalf("snapshot %+v", snap)
	}
	m.Feed([]byte("\x1b[?2026l"))
	m.Sync()
	if m.Snapshot().InFrame {
		t.Fatal("InFrame after ?2026l")
	}
	st := m.Stats()
	if st.FedBytes != st.AppliedBytes || st.Drops != 0 || st.QueuedBytes != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestModelChanges: Changes moves with every applied output, resize and
// gap, and only then, so a copy taken at a count is the screen while the
// count (and FedBytes) stand still.
func TestModelChanges(t *testing.T) {
	m := NewModel(20, 4, Options{})
	defer m.Close()
	m.Sync()
	n := m.Changes()
	m.Sync()
	if m.Changes() != n {
		t.Fatal("Changes moved with nothing fed")
	}
	for i, step := range []func(){
		func() { m.Feed([]byte("x")) },
		func() { m.Resize(30, 5) },
		func() { m.Feed([]byte("\x1b[2J")) },
	} {
		step()
		m.Sync()
		if c := m.Changes(); c <= n {
			t.Fatalf("step %d: Changes %d, was %d", i, c, n)
		} else {
			n = c
		}
	}
}

func TestModelCopiesFedBytes(t *testing.T) {
	m := NewModel(10, 2, Options{})
	defer m.Close()
	buf := []byte("abc")
	m.Feed(buf)
	copy(buf, "xyz") // the pump reuses its buffer at once
	m.Sync()
	if got := m.Snapshot().Text; got != "abc" {
		t.Fatalf("text %q", got)
	}
}

func TestModelResizeIsOrdered(t *testing.T) {
	m := NewModel(10, 2, Options{})
	defer m.Close()
	m.Feed([]byte("0123456789"))
	m.Resize(5, 3)
	m.Feed([]byte("\r\nabcdefg"))
	m.Sync()
	snap := m.Snapshot()
	if snap.Cols != 5 || snap.Rows != 3 || snap.Text != "01234\nabcde\nfg" {
		t.Fatalf("snapshot %dx%d %q", snap.Cols, snap.Rows, snap.Text)
	}
}

// TestModelNeverBlocksFeed stalls the model's goroutine and feeds far more
// than its budget: every Feed returns at once, drops are counted, the
// model says it is desynced, and after the stall a full repaint makes it
// whole again.
func TestModelNeverBlocksFeed(t *testing.T) {
	m, release := stalledModel(t, 40, 5, 64<<10, nil)
	defer m.Close()
	defer release()

	// Cursor-addressed, never scrolling: what is kept of it after the
	// drop is no replayed tail (TestModelReplayedTailResyncs).
	chunk := []byte(strings.Repeat("\x1b[Hxxxxx", 512))
	start := time.Now()
	var slowest time.Duration
	for range 1000 { // 4 MiB into a 64 KiB budget
		t0 := time.Now()
		m.Feed(chunk)
		slowest = max(slowest, time.Since(t0))
	}
	if total := time.Since(start); total > 10*time.Second {
		t.Fatalf("1000 feeds took %v with the model stalled", total)
	}
	if slowest > time.Second { // never blocks: the stalled model would hold it for good
		t.Fatalf("a Feed took %v with the model stalled", slowest)
	}
	st := m.Stats()
	if st.Drops == 0 || st.DroppedBytes == 0 || !st.Desynced || st.FedBytes != 1+1000*4<<10 {
		t.Fatalf("stats while stalled %+v", st)
	}
	if st.QueuedBytes > 64<<10+4<<10 {
		t.Fatalf("queue holds %d bytes, over budget", st.QueuedBytes)
	}
	release()
	m.Sync()
	st = m.Stats()
	if st.AppliedBytes+st.DroppedBytes != st.FedBytes {
		t.Fatalf("applied %d + dropped %d != fed %d", st.AppliedBytes, st.DroppedBytes, st.FedBytes)
	}
	snap := m.Snapshot()
	if !snap.Desynced || snap.Offset != st.FedBytes {
		t.Fatalf("after the stall: desynced %v offset %d fed %d", snap.Desynced, snap.Offset, st.FedBytes)
	}
	// Output that does not repaint the whole screen leaves it desynced;
	// a clear makes it whole.
	m.Feed([]byte("\x1b[Hmore"))
	m.Sync()
	if !m.Stats().Desynced {
		t.Fatal("whole again without a full repaint")
	}
	m.Feed([]byte("\x1b[2J\x1b[Hfresh"))
	m.Sync()
	if st := m.Stats(); st.Desynced {
		t.Fatalf("still desynced after ED 2: %+v", st)
	}
	if got := m.Snapshot().Text; got != "fresh" {
		t.Fatalf("text %q", got)
	}
}

func TestModelResyncRules(t *testing.T) {
	for _, repaint := range []string{"\x1b[2J", "\x1b[H\x1b[J", "\x1bc", "\x1b[?1049h", "\x1b[?1047h", "\x1b[?47h"} {
		m, release := stalledModel(t, 20, 3, 16, nil)
		m.Feed([]byte("first chunk fills the budget"))
		m.Feed([]byte("\x1b]0;half")) // dropped mid-sequence...
		m.Feed([]byte("title\x07tail"))
		release()
		m.Sync()
		snap := m.Snapshot()
		// ...so the OSC is restarted and the title's tail ends it: the
		// tail is not misread as text, but the title's head is lost, and
		// the screen is desynced.
		if !snap.Desynced || snap.Signals.Title != "" || snap.Text != "tail" {
			t.Fatalf("%q: after the drop: %+v", repaint, snap)
		}
		m.Feed([]byte(repaint + "ok"))
		m.Sync()
		if m.Stats().Desynced {
			t.Fatalf("%q did not resynchronise", repaint)
		}
		m.Close()
	}
}

func TestModelKeepsResizesAcrossDrops(t *testing.T) {
	m, release := stalledModel(t, 10, 2, 8, nil)
	defer m.Close()
	m.Feed([]byte("aaaaaaaa"))
	m.Resize(30, 3)
	m.Feed([]byte("bbbbbbbb"))
	m.Resize(40, 4)
	m.Feed([]byte("cccccccc"))
	m.Resize(50, 5)
	m.Feed([]byte("dd"))
	m.mu.Lock()
	n := len(m.queue)
	m.mu.Unlock()
	release()
	m.Sync()
	snap := m.Snapshot()
	if snap.Cols != 50 || snap.Rows != 5 {
		t.Fatalf("size %dx%d", snap.Cols, snap.Rows)
	}
	if n > 5 { // gaps and resizes with nothing between them collapse
		t.Fatalf("queue kept %d items; resizes between drops should collapse", n)
	}
	if st := m.Stats(); st.AppliedBytes+st.DroppedBytes != st.FedBytes {
		t.Fatalf("stats %+v", st)
	}
}

func TestModelOversizedChunk(t *testing.T) {
	m := NewModel(10, 2, Options{QueueBytes: 4})
	defer m.Close()
	m.Feed([]byte("0123456789"))
	m.Sync()
	st := m.Stats()
	if st.DroppedBytes != 6 || st.AppliedBytes != 4 || !st.Desynced {
		t.Fatalf("stats %+v", st)
	}
	if got := m.Snapshot().Text; got != "6789" {
		t.Fatalf("text %q", got)
	}
}

func TestModelSignalsCallback(t *testing.T) {
	var m *Model
	var mu sync.Mutex
	var got []string
	m = NewModel(10, 2, Options{OnSignal: func(sg Signal) {
		// Snapshot from inside the callback must not deadlock.
		snap := m.Snapshot()
		mu.Lock()
		got = append(got, fmt.Sprintf("%s=%s@%d title=%s", sg.Kind, sg.Value, sg.Offset, snap.Signals.Title))
		mu.Unlock()
	}})
	defer m.Close()
	// A callback sees the screen as of the end of the slice its signal came
	// in; Sync keeps the two Feeds from sharing one (queued Feeds merge).
	m.Feed([]byte("\x1b]0;one\x07"))
	m.Sync()
	m.Feed([]byte("\x07\x1b]0;two\x07"))
	m.Sync()
	mu.Lock()
	defer mu.Unlock()
	want := "title=one@8 title=one|bell=@9 title=two|title=two@17 title=two"
	if strings.Join(got, "|") != want {
		t.Fatalf("got %q\nwant %q", strings.Join(got, "|"), want)
	}
}

func TestModelSignalOffsetsCountDrops(t *testing.T) {
	var offsets []int64
	m, release := stalledModel(t, 10, 2, 10, func(sg Signal) { offsets = append(offsets, sg.Offset) })
	m.Feed([]byte("0123456789")) // dropped
	m.Feed([]byte("abcdefghij")) // dropped
	m.Feed([]byte("\x07"))       // a bell at stream offset 1+10+10+1
	release()
	m.Sync()
	m.Close()
	if len(offsets) != 1 || offsets[0] != 22 {
		t.Fatalf("offsets %v", offsets)
	}
}

func TestModelClose(t *testing.T) {
	m := NewModel(10, 2, Options{})
	m.Feed([]byte("abc"))
	m.Sync()
	m.Close()
	m.Close() // twice is fine
	m.Feed([]byte("def"))
	m.Resize(20, 5)
	m.Sync() // returns at once
	if snap := m.Snapshot(); snap.Text != "abc" || snap.Cols != 10 {
		t.Fatalf("after close %+v", snap)
	}
}

func TestModelCloseWhileStalled(t *testing.T) {
	m, release := stalledModel(t, 10, 2, 0, nil)
	m.Feed([]byte("abc"))
	done := make(chan struct{})
	go func() { m.Sync(); close(done) }()
	go func() { time.Sleep(20 * time.Millisecond); release() }()
	closed := make(chan struct{})
	go func() { m.Close(); close(closed) }()
	// A watchdog: a Close or Sync that hangs fails the test instead of
	// wedging the whole package's run until its timeout.
	watchdog := time.After(10 * time.Second)
	for _, ch := range []chan struct{}{closed, done} {
		select {
		case <-ch:
		case <-watchdog:
			t.Fatal("Close or Sync still blocked 10s after the stalled apply was released")
		}
	}
}

// TestModelConcurrent exercises Feed, Resize, Snapshot and Stats from many
// goroutines at once (run with -race).
func TestModelConcurrent(t *testing.T) {
	m := NewModel(80, 24, Options{QueueBytes: 32 << 10})
	defer m.Close()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				m.Feed([]byte(fmt.Sprintf("\x1b[%d;1Hgoroutine %d line %d\x1b]0;t%d\x07", i%24+1, g, i, i)))
				if i%50 == 0 {
					m.Resize(80+g, 24)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 200 {
			_ = m.Snapshot()
			_ = m.Stats()
		}
	}()
	wg.Wait()
	m.Sync()
	st := m.Stats()
	if st.AppliedBytes+st.DroppedBytes != st.FedBytes || st.QueuedBytes != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestModelOnIdle(t *testing.T) {
	idle := make(chan struct{}, 16)
	m := NewModel(20, 5, Options{OnIdle: func() { idle <- struct{}{} }})
	defer m.Close()
	m.Feed([]byte("hello"))
	select {
	case <-idle:
	case <-time.After(5 * time.Second):
		t.Fatal("OnIdle not called after the model caught up")
	}
	if got := m.Snapshot().Text; got != "hello" {
		t.Fatalf("at idle the screen shows %q", got)
	}
}

func TestModelCoalescesFloods(t *testing.T) {
	m, release := stalledModel(t, 40, 5, 0, nil)
	defer m.Close()
	line := []byte(strings.Repeat("f", 39) + "\r\n")
	chunk := []byte(strings.Repeat(string(line), 4096/len(line)))
	for range (coalesceAt + 64<<10) / len(chunk) { // over coalesceAt, under the budget
		m.Feed(chunk)
	}
	m.Feed([]byte("the end"))
	release()
	m.Sync()
	st := m.Stats()
	if st.DroppedBytes == 0 || st.AppliedBytes > int64(coalesceKeep+len(chunk)) {
		t.Fatalf("a flood was not coalesced: %+v", st)
	}
	if st.Desynced {
		// The kept tail scrolled a screenful: every row was drawn after
		// the gap (a replayed tail), so the screen is whole.
		t.Fatalf("the kept tail did not make the screen whole: %+v", st)
	}
	if st.AppliedBytes+st.DroppedBytes != st.FedBytes {
		t.Fatalf("applied %d + dropped %d != fed %d", st.AppliedBytes, st.DroppedBytes, st.FedBytes)
	}
	snap := m.Snapshot()
	if got := snap.Lines[len(snap.Lines)-1]; got != "the end" {
		t.Fatalf("last row %q: the newest output must be applied", got)
	}
}

func TestModelKeepsTUIBursts(t *testing.T) {
	m, release := stalledModel(t, 40, 5, 0, nil)
	defer m.Close()
	frame := []byte("\x1b[H\x1b[2J" + strings.Repeat("\x1b[1;31mx\x1b[0m", 40*5))
	for range (coalesceAt / 2) / len(frame) { // a stalled model, half of coalesceAt behind
		m.Feed(frame)
	}
	release()
	m.Sync()
	if st := m.Stats(); st.DroppedBytes != 0 || st.Desynced {
		t.Fatalf("a TUI burst under coalesceAt lost output: %+v", st)
	}
}

// Mode changes in dropped output are never lost: the gap restores them
// (and reports their signals), and entering the alternate screen that
// way does not make the screen whole.
func TestModelGapKeepsModes(t *testing.T) {
	var mu sync.Mutex
	var sigs []string
	m, release := stalledModel(t, 20, 3, 16, func(sg Signal) {
		mu.Lock()
		sigs = append(sigs, sg.Kind.String()+"="+sg.Value)
		mu.Unlock()
	})
	defer m.Close()
	m.Feed([]byte("first chunk fills"))
	m.Feed([]byte("\x1b[?1049h\x1b[?2004h\x1b]0;busy\x07\x1b[?1h\x1b[?100")) // dropped, cut mid-sequence
	m.Resize(30, 4)
	m.Feed([]byte("6h"))
	m.Feed([]byte("lost too, and more than budget"))
	m.Feed([]byte("tail"))
	release()
	m.Sync()
	snap := m.Snapshot()
	if !snap.AltScreen || !snap.Signals.BracketedPaste || !snap.CursorKeys || snap.Signals.Title != "busy" ||
		!reflect.DeepEqual(snap.Signals.MouseModes, []int{1006}) || !snap.Desynced || snap.Cols != 30 {
		t.Fatalf("after the gap: %+v", snap)
	}
	mu.Lock()
	got := strings.Join(sigs, " ")
	mu.Unlock()
	if got != "alt_screen=on bracketed_paste=on title=busy" {
		t.Fatalf("signals %q", got)
	}
	if st := m.Stats(); st.Drops == 0 || snap.Offset != st.FedBytes {
		t.Fatalf("stats %+v, offset %d", st, snap.Offset)
	}
}
