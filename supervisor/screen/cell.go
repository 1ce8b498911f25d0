package screen

// color is a packed terminal colour: the top byte says which kind (default,
// palette index or 24-bit RGB) so the zero value means "default" and a cell
// stays small enough to copy whole screens cheaply.
type color uint32

const (
	colorDefault color = 0
	colorIndexed color = 1 << 24 // low byte: palette index 0-255
	colorRGB     color = 2 << 24 // low 24 bits: 0xRRGGBB
	colorKind    color = 0xff << 24
)

// indexedColor returns palette colour n (0-255).
func indexedColor(n int) color { return colorIndexed | color(n&0xff) }

// rgbColor returns a 24-bit colour; components are clamped to a byte by the
// caller's masking so junk parameters cannot spill into the kind byte.
func rgbColor(r, g, b int) color {
	return colorRGB | color(r&0xff)<<16 | color(g&0xff)<<8 | color(b&0xff)
}

// attrFlags are the SGR renditions the model keeps. Others (fonts, frames,
// overline, underline styles beyond on/off) are parsed and dropped: a
// classifier has no use for them and ANSI() need not reproduce them.
type attrFlags uint16

const (
	attrBold attrFlags = 1 << iota
	attrDim
	attrItalic
	attrUnderline
	attrBlink
	attrReverse
	attrHidden
	attrStrike
)

// attr is a cell's rendition: colours and flags. The zero value is the
// terminal default.
type attr struct {
	fg, bg color
	flags  attrFlags
}

// cell is one screen position. A wide rune occupies two cells: the head
// (w == 2) holds the rune and the tail (w == 0) holds nothing, so Text()
// prints the rune once while columns stay aligned with the real terminal.
// Cells hold no pointers (combining marks live in the screen's comb table)
// so that filling and scrolling rows is plain memory moves.
type cell struct {
	r    rune // the base rune; ' ' for blank, 0 in a wide tail
	a    attr
	comb uint16 // index in Screen.combs of the zero-width runes drawn on r; 0 for none
	w    uint8  // 1 normal, 2 wide head, 0 wide tail
}

// maxComb bounds the zero-width runes piled onto one cell (in bytes): a
// stream of combining marks must not grow memory without limit.
const maxComb = 32

// maxCombs bounds the comb table; when it is full, entries no cell uses
// any more are reclaimed.
const maxCombs = 1 << 12

// blankCell is an erased cell. Erasing keeps only the current background
// (xterm and tmux "background colour erase"), which ANSI() must reproduce.
func blankCell(bg color) cell { return cell{r: ' ', w: 1, a: attr{bg: bg}} }

// line is one row of the grid. wrapped records that autowrap continued it
// on the next row, as tmux keeps it: a backspace at column 0 of the next
// row moves back onto this one.
type line struct {
	cells   []cell
	wrapped bool
}
