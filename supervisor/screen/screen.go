package screen

import (
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// Limits on geometry: a zero or negative size would make every cursor
// clamp meaningless, and a huge one would let a bogus resize allocate
// gigabytes. tmux itself caps panes well below maxDim.
const (
	minDim = 1
	maxDim = 4096
)

// charset is what a G0/G1 slot maps printable ASCII to. Only DEC special
// graphics matters: ncurses draws boxes with it under TERM=screen/tmux.
type charset uint8

const (
	charsetASCII charset = iota
	charsetDEC
)

// savedCursor is what DECSC (ESC 7), CSI s and modes 1048/1049 keep.
type savedCursor struct {
	set    bool
	x, y   int
	pen    attr
	origin bool
	g      [2]charset
	gl     int
}

// buffer is one of the two screens (main, alternate).
type buffer struct {
	lines []line
}

// Screen is a terminal screen model fed with a child's output bytes. It is
// not safe for concurrent use; Model serialises access for the supervisor.
// The zero value is not usable: call New.
type Screen struct {
	cols, rows int

	main, alt buffer
	buf       *buffer // the active one: &main or &alt
	altActive bool

	x, y        int
	pendingWrap bool // the last column was written; the next printable wraps first
	pen         attr

	// saved is the DECSC slot, one for both screens as in tmux; altSaved
	// is where mode 1049 keeps the main screen's cursor.
	saved, altSaved savedCursor

	g  [2]charset
	gl int // 0: G0 is active (SI), 1: G1 (SO)

	top, bottom int // scroll region, inclusive rows

	autowrap      bool // DECAWM ?7
	origin        bool // DECOM ?6
	insert        bool // IRM 4
	cursorVisible bool // DECTCEM ?25
	cursorKeys    bool // DECCKM ?1: arrows send ESC O A, not ESC [ A
	synchronized  bool // ?2026: the app is between frame begin and end
	mouse         mouseModes

	tabs []bool

	lastRune rune // for REP
	haveLast bool

	sig      Signals
	seq      uint64
	onSignal func(Signal)

	// whole counts events after which the screen no longer depends on what
	// came before it (full clear, alternate screen entered, reset). Model
	// compares it across a drop to know when it is in sync again.
	whole uint64
	// scrolled counts rows scrolled off the top of a full-screen scroll
	// region: once a screen's height has scrolled off since a gap, every
	// row on it was drawn after the gap (Model's "replayed tail").
	scrolled uint64

	// Byte stream front end (see write.go).
	p        *ansi.Parser
	utf8buf  [4]byte
	utf8n    int
	utf8need int
	str      strKind
	strBuf   []byte
	strEsc   bool
	offset   int64 // stream bytes consumed before the current Write
	at       int64 // stream offset just past the byte being handled

	widths map[rune]int8

	// combs holds the combining marks of cells (cell.comb indexes it),
	// combIdx finds an entry by its text.
	combs   []string
	combIdx map[string]uint16
}

// New returns a blank cols x rows screen with the cursor at the top left,
// autowrap on and the cursor visible, like a freshly reset terminal.
// Sizes are clamped to 1..4096.
func New(cols, rows int) *Screen {
	s := &Screen{}
	// Not ansi.NewParser, which allocates a 64 KiB string buffer: the
	// parser only sees escape and control sequences here (write.go
	// collects OSC, DCS, APC... itself), so a tiny one does.
	s.p = new(ansi.Parser)
	s.p.SetParamsSize(parser.MaxParamsSize)
	s.p.SetDataSize(16)
	s.p.SetHandler(ansi.Handler{
		Print:     s.print,
		Execute:   s.execute,
		HandleCsi: s.csi,
		HandleEsc: s.esc,
	})
	s.reset(clampDim(cols), clampDim(rows))
	return s
}

// SetOnSignal sets f to be called synchronously from Write for every
// Signal, in stream order; nil removes it. f runs on the writer's
// goroutine in the middle of parsing, so it must not call back into the
// Screen and should return quickly.
func (s *Screen) SetOnSignal(f func(Signal)) { s.onSignal = f }

func clampDim(n int) int {
	return max(minDim, min(n, maxDim))
}

// reset puts the screen in the power-on state at the given size (RIS).
// Signals survive: a reset does not unsay a title or a bell.
func (s *Screen) reset(cols, rows int) {
	s.cols, s.rows = cols, rows
	s.main = buffer{lines: newLines(cols, rows)}
	s.alt = buffer{} // allocated when first entered: many programs never do
	s.buf = &s.main
	s.altActive = false
	s.x, s.y, s.pendingWrap = 0, 0, false
	s.pen = attr{}
	s.saved, s.altSaved = savedCursor{}, savedCursor{}
	s.g = [2]charset{}
	s.gl = 0
	s.top, s.bottom = 0, rows-1
	s.autowrap, s.origin, s.insert = true, false, false
	s.cursorVisible = true
	s.cursorKeys = false
	s.synchronized = false
	s.tabs = defaultTabs(cols, nil)
	s.haveLast = false
}

func newLines(cols, rows int) []line {
	ls := make([]line, rows)
	for i := range ls {
		ls[i].cells = blankCells(cols)
	}
	return ls
}

func blankCells(n int) []cell {
	cs := make([]cell, n)
	fillCells(cs, blankCell(colorDefault))
	return cs
}

// defaultTabs returns tab stops for cols columns, keeping the stops of old
// where it reaches and putting one every 8 columns beyond it.
func defaultTabs(cols int, old []bool) []bool {
	t := make([]bool, cols)
	n := copy(t, old)
	for i := n; i < cols; i++ {
		t[i] = i%8 == 0 && i > 0
	}
	return t
}

// Size returns the screen's columns and rows.
func (s *Screen) Size() (cols, rows int) { return s.cols, s.rows }

// Cursor returns the cursor's column and row (0-based) and whether the
// application shows it (DECTCEM). After writing the last column the cursor
// stays on it until the next printable character wraps.
func (s *Screen) Cursor() (col, row int, visible bool) {
	return s.x, s.y, s.cursorVisible
}

// AltScreen reports whether the alternate screen is active.
func (s *Screen) AltScreen() bool { return s.altActive }

// CursorKeys reports whether the application asked for application cursor
// keys (DECCKM, ?1): arrows are ESC O A…, not ESC [ A….
func (s *Screen) CursorKeys() bool { return s.cursorKeys }

// Synchronized reports whether the application is between the begin and
// the end of a synchronized update (?2026h ... ?2026l): the screen may hold
// half a frame. A reader that wants whole frames retries later.
func (s *Screen) Synchronized() bool { return s.synchronized }

// Offset returns how many stream bytes the screen has consumed (including
// bytes a Model dropped, which it accounts for).
func (s *Screen) Offset() int64 { return s.offset }

// Resize changes the screen size. Content is kept top-left aligned and cut
// or padded; when rows shrink, lines above the cursor go first so the
// cursor's row stays visible (what xterm and tmux do, minus scrollback).
// The scroll region resets to the whole screen. No reflow: the application
// gets SIGWINCH and repaints.
func (s *Screen) Resize(cols, rows int) {
	cols, rows = clampDim(cols), clampDim(rows)
	if cols == s.cols && rows == s.rows {
		return
	}
	drop := 0
	if rows < s.rows && s.y >= rows {
		drop = s.y - rows + 1
	}
	resizeBuffer(&s.main, cols, rows, drop*boolInt(!s.altActive))
	if s.alt.lines != nil {
		resizeBuffer(&s.alt, cols, rows, drop*boolInt(s.altActive))
	}
	s.y -= drop
	s.cols, s.rows = cols, rows
	s.tabs = defaultTabs(cols, s.tabs)
	s.top, s.bottom = 0, rows-1
	s.x = min(s.x, cols-1)
	s.y = max(0, min(s.y, rows-1))
	s.pendingWrap = false
	for _, sv := range []*savedCursor{&s.saved, &s.altSaved} {
		sv.x = max(0, min(sv.x, cols-1))
		sv.y = max(0, min(sv.y, rows-1))
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// resizeBuffer drops the first drop lines, then cuts or pads to the size.
func resizeBuffer(b *buffer, cols, rows, drop int) {
	ls := b.lines[drop:]
	if len(ls) > rows {
		ls = ls[:rows]
	}
	out := make([]line, rows)
	for i := range out {
		if i >= len(ls) {
			out[i].cells = blankCells(cols)
			continue
		}
		old := ls[i].cells
		cs := make([]cell, cols)
		n := copy(cs, old)
		for j := n; j < cols; j++ {
			cs[j] = blankCell(colorDefault)
		}
		// A wide rune cut in half by the new right edge becomes a blank.
		if cols < len(old) && cs[cols-1].w == 2 {
			cs[cols-1] = blankCell(cs[cols-1].a.bg)
		}
		out[i] = line{cells: cs, wrapped: ls[i].wrapped && cols >= len(old)}
	}
	b.lines = out
}
