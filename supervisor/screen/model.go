package screen

import (
	"sync"
	"sync/atomic"
	"time"
)

// DefaultQueueBytes is the default byte budget of a Model's queue.
const DefaultQueueBytes = 4 << 20

// Flood handling (see Model): after a batch that came at floodRate or
// faster (or held at least floodBatch bytes) the model lingers for
// floodLinger before looking again, so a flood wakes it a hundred times a
// second instead of once per pump read (a pty hands over about 4 KiB per
// read); and when more than coalesceAt output bytes wait at the start of a
// batch, all but the newest coalesceKeep of them are dropped before parsing.
const (
	floodBatch   = chunkBuf
	floodRate    = 8 << 20 // bytes per second
	floodLinger  = 10 * time.Millisecond
	coalesceAt   = 512 << 10
	coalesceKeep = 64 << 10
)

// applySlice is how many bytes the model applies under its screen lock at
// a time, so a Snapshot never waits behind a whole 4 MiB backlog.
const applySlice = 64 << 10

// Options configure a Model.
type Options struct {
	// QueueBytes is the most output the model holds unapplied; 0 means
	// DefaultQueueBytes. Past it the oldest chunks are dropped.
	QueueBytes int
	// OnSignal, if set, is called for every stream signal, in order, on
	// the model's goroutine and outside its locks (it may call Snapshot).
	// It delays the model, never the pump; it should still be quick.
	OnSignal func(Signal)
	// OnIdle, if set, is called on the model's goroutine whenever it has
	// applied everything fed so far: the moment to look at the screen
	// (never mid-flood). It must not block.
	OnIdle func()
}

// Stats are a Model's counters.
type Stats struct {
	FedBytes     int64 // bytes handed to Feed
	AppliedBytes int64 // bytes the screen has consumed
	DroppedBytes int64 // bytes dropped because the queue was over budget
	Drops        int64 // chunks dropped
	QueuedBytes  int64 // bytes waiting now
	// Desynced is true from the first drop until the screen is whole again
	// (see Model).
	Desynced bool
}

// Snapshot is a consistent copy of a Model's screen.
type Snapshot struct {
	Cols, Rows int
	Text       string   // Screen.Text
	Lines      []string // Screen.Lines
	ANSI       string   // Screen.ANSI
	CursorCol  int
	CursorRow  int
	CursorOn   bool // the application shows the cursor
	CursorKeys bool // application cursor keys (DECCKM)
	AltScreen  bool
	// InFrame: the application was inside a synchronized update (?2026)
	// when the snapshot was taken, so the screen may hold half a frame.
	InFrame  bool
	Signals  Signals
	Offset   int64 // stream bytes applied (dropped ones included)
	Desynced bool  // see Stats.Desynced
}

// item is one entry of the model's queue: output bytes, a gap (output
// that was dropped), a resize or a sync marker. Only output bytes are ever
// dropped; they turn into gaps so offsets stay right.
type item struct {
	data   []byte
	pooled *[]byte // data's buffer, to return to the pool
	gap    int64
	resize bool
	// end is the mode scanner at the end of this output (for a gap: of
	// the last output it replaced), what a gap restores (see Model).
	end        scanMark
	cols, rows int
	done       chan struct{} // sync marker: closed when reached
}

// Model runs a Screen on its own goroutine for the supervisor's byte pump.
//
// Feed copies the chunk into a queue and returns: it never waits for the
// screen, so a slow or stalled model can never hold up the child's output.
// Resize goes through the same queue, so it applies between the bytes
// written before and after it.
//
// Drop and resync rule: when the output queued (and not yet applied)
// exceeds the byte budget, the oldest queued output chunks are dropped
// until it fits, never the newest chunk (a single chunk over the budget
// keeps only its last budget bytes). Resizes and sync markers are never
// dropped; of several resizes left with only dropped output between them,
// the last one stands for all. Each run of dropped output becomes a gap in
// the queue. When the model reaches a gap it resets the parser (a
// sequence cut in half is discarded rather than misread), advances the
// stream offset by the lost bytes, and is desynced: the grid lacks
// whatever the lost bytes changed. It is whole again once, after the last
// gap, the screen processes an event that makes earlier content
// irrelevant: ED 2 (clear screen), ED 0 from the top-left corner, RIS
// (ESC c), or entering the alternate screen (?47/?1047/?1049, which clears
// it). TUIs do this at start and usually after SIGWINCH, so a resize
// round-trip is a way to force it. Stats and Snapshot report Desynced
// from the moment of the drop.
//
// Floods: parsing every byte of a flood (cat of a big file, a build log)
// would take the CPU the child and the pump need, so the model looks at a
// flood the way a human does, a screenful now and then. After a batch
// that came at floodRate or faster it lingers floodLinger before the next one
// (Feeds meanwhile queue without waking it), and a batch that starts with
// more than coalesceAt bytes queued first drops all but the newest
// coalesceKeep by the rule above. A TUI's frame is tens of kilobytes,
// written far below that rate, so only floods are coalesced.
type Model struct {
	budget   int
	onSignal func(Signal)
	onIdle   func()

	// fmu serialises Feed, so chunks queue in the order scan reads them.
	fmu  sync.Mutex
	scan modeScan // the stream's modes, read by Feed (guarded by fmu)

	mu      sync.Mutex // guards the queue fields below
	queue   []item
	queued  int // output bytes queued or being applied
	closed  bool
	parked  bool // the goroutine waits on wake for the queue to fill
	wake    chan struct{}
	stopped chan struct{}
	closing atomic.Bool

	smu         sync.Mutex // guards scr, gapWhole, gapScrolled and pending
	scr         *Screen
	gapWhole    uint64 // scr.whole when the last gap was applied
	gapScrolled uint64 // scr.scrolled when the last gap was applied
	pending     []Signal

	fed, applied, dropped, drops atomic.Int64
	changes                      atomic.Uint64 // items applied: see Changes
	gaps                         atomic.Int64  // gap items queued, not yet applied
	stale                        atomic.Bool   // a gap was applied and nothing whole since

	// testHookApply, if set, runs on the model goroutine before each item
	// is applied; tests use it to stall the consumer.
	testHookApply func()
}

// NewModel starts a model of a cols x rows screen. Call Close when done.
func NewModel(cols, rows int, opts Options) *Model {
	m := &Model{
		budget:   opts.QueueBytes,
		onSignal: opts.OnSignal,
		onIdle:   opts.OnIdle,
		wake:     make(chan struct{}, 1),
		stopped:  make(chan struct{}),
		scr:      New(cols, rows),
		scan:     newModeScan(),
	}
	if m.budget <= 0 {
		m.budget = DefaultQueueBytes
	}
	m.scr.SetOnSignal(func(sg Signal) { m.pending = append(m.pending, sg) })
	go m.run()
	return m
}

// Feed queues a copy of p for the screen and returns at once. It never
// waits for the model (it takes a mutex held only for a few slice
// operations, or to copy p into the newest chunk's spare room) and is safe
// from any goroutine. After Close it does nothing.
func (m *Model) Feed(p []byte) {
	if len(p) == 0 {
		return
	}
	m.fmu.Lock()
	defer m.fmu.Unlock()
	var cut int
	var cutMark scanMark
	if len(p) > m.budget {
		cut = len(p) - m.budget
		m.scan.feed(p[:cut])
		cutMark = m.scan.scanMark
		p = p[cut:]
	}
	m.scan.feed(p)
	mark := m.scan.scanMark
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	if cut == 0 && m.appendTail(p, &mark) {
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()
	buf, pooled := getBuf(len(p))
	copy(buf, p)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		putBuf(pooled)
		return
	}
	m.fed.Add(int64(cut + len(p)))
	if cut > 0 {
		m.queue = m.appendGap(m.queue, int64(cut), true, &cutMark)
		m.countDrop(int64(cut), 1)
	}
	m.queue = append(m.queue, item{data: buf, pooled: pooled, end: mark})
	m.queued += len(buf)
	if m.queued > m.budget {
		m.shed(m.budget)
	}
	wake := m.parked
	m.parked = false
	m.mu.Unlock()
	if wake {
		m.signal()
	}
}

// appendTail copies p into the spare room of the newest queued chunk's
// buffer, if there is enough: a pty hands the pump about 4 KiB per read, and
// a chunk per read would take a 32 KiB buffer for each. Called with mu held;
// the model never holds an item that is still in the queue.
func (m *Model) appendTail(p []byte, mark *scanMark) bool {
	k := len(m.queue) - 1
	// Only within the budget, so that shedding stays chunk by chunk.
	if k < 0 || m.queue[k].pooled == nil || cap(m.queue[k].data)-len(m.queue[k].data) < len(p) ||
		m.queued+len(p) > m.budget {
		return false
	}
	m.queue[k].data = append(m.queue[k].data, p...)
	m.queue[k].end = *mark
	m.fed.Add(int64(len(p)))
	m.queued += len(p)
	return true
}

// appendGap appends a gap of n bytes ending at mark to q, merging it into
// a gap at the tail. fresh says the gap is new (dropped output) rather
// than a queued gap item being moved, which keeps the count of queued
// gaps right. Called with mu held.
func (m *Model) appendGap(q []item, n int64, fresh bool, mark *scanMark) []item {
	if k := len(q); k > 0 && q[k-1].gap > 0 {
		q[k-1].gap += n
		q[k-1].end = *mark
		if !fresh {
			m.gaps.Add(-1)
		}
		return q
	}
	if fresh {
		m.gaps.Add(1)
	}
	return append(q, item{gap: n, end: *mark})
}

// shed drops the oldest output chunks until the queue holds at most limit
// output bytes, keeping the newest chunk and every other item. It works in place and
// stops at the first item it no longer needs to look at, so a Feed on a
// full queue costs a few item moves, not a pass over the queue. Called
// with mu held.
func (m *Model) shed(limit int) {
	q := m.queue
	last := len(q) - 1
	out := q[:0]
	lastResize := -1 // index in out of a resize followed only by gaps
	var bytes, n int64
	i := 0
	for ; i < len(q) && m.queued > limit; i++ {
		it := q[i]
		switch {
		case it.data != nil && i != last:
			m.queued -= len(it.data)
			bytes += int64(len(it.data))
			n++
			putBuf(it.pooled)
			out = m.appendGap(out, int64(len(it.data)), true, &it.end)
			continue
		case it.gap > 0:
			out = m.appendGap(out, it.gap, false, &it.end)
			continue
		case it.resize:
			if k := lastResize; k >= 0 {
				// Only gaps since that resize: this one supersedes it, and
				// the gaps on either side of it become one.
				out = append(out[:k], out[k+1:]...)
				if k > 0 && k < len(out) && out[k-1].gap > 0 && out[k].gap > 0 {
					out[k-1].gap += out[k].gap
					out[k-1].end = out[k].end
					out = append(out[:k], out[k+1:]...)
					m.gaps.Add(-1)
				}
			}
			out = append(out, it)
			lastResize = len(out) - 1
			continue
		}
		lastResize = -1
		out = append(out, it)
	}
	out = append(out, q[i:]...) // the rest moves down unchanged
	clear(q[len(out):])
	m.queue = out
	m.countDrop(bytes, n)
}

func (m *Model) countDrop(bytes, n int64) {
	m.dropped.Add(bytes)
	m.drops.Add(n)
}

func (m *Model) signal() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// Resize queues a size change, applied after everything fed before it.
func (m *Model) Resize(cols, rows int) {
	m.enqueue(item{resize: true, cols: cols, rows: rows})
}

// Sync waits until everything fed before it has been applied (or the
// model is closed). For tests and for callers that must see their own
// writes.
func (m *Model) Sync() {
	done := make(chan struct{})
	if !m.enqueue(item{done: done}) {
		return
	}
	select {
	case <-done:
	case <-m.stopped:
	}
}

func (m *Model) enqueue(it item) bool {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return false
	}
	m.queue = append(m.queue, it)
	m.mu.Unlock()
	m.signal()
	return true
}

// Close stops the model's goroutine and drops whatever is queued. Feed,
// Resize and Sync are no-ops afterwards; Snapshot and Stats still work.
func (m *Model) Close() {
	m.closing.Store(true)
	m.mu.Lock()
	if !m.closed {
		m.closed = true
		m.queue = nil
		m.queued = 0
	}
	m.mu.Unlock()
	m.signal()
	<-m.stopped
}

func (m *Model) run() {
	defer close(m.stopped)
	var batch []item
	var last time.Time // when the previous batch was taken
	for {
		m.mu.Lock()
		for len(m.queue) == 0 && !m.closed {
			m.parked = true
			m.mu.Unlock()
			<-m.wake
			m.mu.Lock()
		}
		if m.closed {
			m.mu.Unlock()
			return
		}
		if m.queued > coalesceAt {
			m.shed(coalesceKeep)
		}
		now := time.Now()
		flood := m.queued >= floodBatch || float64(m.queued) >= floodRate*now.Sub(last).Seconds()
		last = now
		batch = append(batch[:0], m.queue...)
		clear(m.queue)
		m.queue = m.queue[:0]
		m.mu.Unlock()
		for i := range batch {
			if m.testHookApply != nil {
				m.testHookApply()
			}
			if !m.closing.Load() {
				m.apply(&batch[i])
			}
			batch[i] = item{}
		}
		if m.onIdle != nil && !m.closing.Load() {
			m.mu.Lock()
			idle := len(m.queue) == 0
			m.mu.Unlock()
			if idle {
				m.onIdle()
			}
		}
		if flood {
			m.linger()
		}
	}
}

// linger waits floodLinger (or until Close) without being parked, so the
// pump's Feeds queue up without waking the model.
func (m *Model) linger() {
	t := time.NewTimer(floodLinger)
	defer t.Stop()
	select {
	case <-t.C:
	case <-m.wake: // Close, Resize or Sync: look now
	}
}

// apply feeds one item to the screen under the screen lock, then passes
// its signals to the callback outside the lock.
func (m *Model) apply(it *item) {
	switch {
	case it.done != nil:
		close(it.done)
		return
	case it.resize:
		m.smu.Lock()
		m.scr.Resize(it.cols, it.rows)
		m.changes.Add(1)
		m.smu.Unlock()
		return
	case it.gap > 0:
		m.smu.Lock()
		m.resync(it)
		m.changes.Add(1)
		sigs := m.pending
		m.pending = nil
		m.smu.Unlock()
		m.gaps.Add(-1)
		if m.onSignal != nil {
			for _, sg := range sigs {
				m.onSignal(sg)
			}
		}
		return
	}
	for p := it.data; len(p) > 0; {
		n := min(len(p), applySlice)
		m.smu.Lock()
		m.scr.Write(p[:n])
		if m.stale.Load() && m.wholeAgain() {
			m.stale.Store(false)
		}
		m.changes.Add(1)
		sigs := m.pending
		m.pending = nil
		m.smu.Unlock()
		m.applied.Add(int64(n))
		if m.onSignal != nil {
			for _, sg := range sigs {
				m.onSignal(sg)
			}
		}
		p = p[n:]
	}
	m.mu.Lock()
	if !m.closed {
		m.queued -= len(it.data)
	}
	m.mu.Unlock()
	putBuf(it.pooled)
}

// resync applies a gap (see Model and Screen.resync) and marks the screen
// desynced until something makes earlier content irrelevant. Called with
// smu held.
func (m *Model) resync(it *item) {
	m.scr.resync(&it.end, it.gap)
	m.gapWhole = m.scr.whole
	m.gapScrolled = m.scr.scrolled
	m.stale.Store(true)
}

// wholeAgain reports whether the screen no longer shows anything the
// last gap could have changed: a clearing event since (ED 2, ED 0 from
// the top-left corner, RIS, entering the alternate screen), or a replayed
// tail — a full screen's height scrolled off a full-screen region, so
// that every row on it was drawn after the gap. Called with smu held.
func (m *Model) wholeAgain() bool {
	return m.scr.whole != m.gapWhole || m.scr.scrolled-m.gapScrolled >= uint64(m.scr.rows)
}

// Chunk buffers are recycled: the pump feeds a chunk per read, and
// allocating each copy afresh would hand the garbage collector up to the
// whole output rate. Buffers of chunkBuf bytes (the pump's read size)
// are pooled; bigger chunks are allocated and left to the collector.
const chunkBuf = 32 << 10

var bufPool = sync.Pool{New: func() any { b := make([]byte, chunkBuf); return &b }}

// getBuf returns a buffer of n bytes and, if it came from the pool, the
// handle to give back to putBuf.
func getBuf(n int) ([]byte, *[]byte) {
	if n > chunkBuf {
		return make([]byte, n), nil
	}
	pb := bufPool.Get().(*[]byte)
	return (*pb)[:n], pb
}

func putBuf(pb *[]byte) {
	if pb != nil {
		bufPool.Put(pb)
	}
}

// desynced: output was lost and the screen has not been whole since.
func (m *Model) desynced() bool { return m.gaps.Load() > 0 || m.stale.Load() }

// Snapshot returns a consistent copy of the screen as applied so far
// (call Sync first to include everything fed). Safe from any goroutine.
func (m *Model) Snapshot() Snapshot {
	m.smu.Lock()
	defer m.smu.Unlock()
	s := m.scr
	x, y, on := s.Cursor()
	lines := s.Lines()
	n := len(lines)
	for n > 0 && lines[n-1] == "" {
		n--
	}
	text := joinLines(lines[:n])
	return Snapshot{
		Cols: s.cols, Rows: s.rows,
		Text: text, Lines: lines, ANSI: s.ANSI(),
		CursorCol: x, CursorRow: y, CursorOn: on, CursorKeys: s.cursorKeys,
		AltScreen: s.altActive, InFrame: s.synchronized,
		Signals: s.Signals(), Offset: s.offset,
		Desynced: m.desynced(),
	}
}

func joinLines(ls []string) string {
	n := 0
	for _, l := range ls {
		n += len(l) + 1
	}
	b := make([]byte, 0, n)
	for i, l := range ls {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, l...)
	}
	return string(b)
}

// Changes counts what the screen applied — output, gaps, resizes — so
// far: a Snapshot taken when it read n is still the screen while it reads
// n and FedBytes has not moved (nothing queued since). An idle look reuses
// its last copy instead of copying 120×40 cells again. Safe from any
// goroutine.
func (m *Model) Changes() uint64 { return m.changes.Load() }

// Stats returns the model's counters. Safe from any goroutine.
func (m *Model) Stats() Stats {
	m.mu.Lock()
	q := m.queued
	m.mu.Unlock()
	return Stats{
		FedBytes:     m.fed.Load(),
		AppliedBytes: m.applied.Load(),
		DroppedBytes: m.dropped.Load(),
		Drops:        m.drops.Load(),
		QueuedBytes:  int64(q),
		Desynced:     m.desynced(),
	}
}
