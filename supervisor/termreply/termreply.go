package termreply

import (
	"bytes"
	"fmt"

	"github.com/charmbracelet/x/ansi"
)

// MaxHeld bounds the unfinished sequence kept between chunks. Queries are
// a few bytes; a longer sequence (an image, a clipboard write) is dropped.
const MaxHeld = 256

// Reply names, for the session log.
const (
	NameDA1     = "DA1"
	NameDSR     = "DSR"
	NameCPR     = "CPR"
	NameDECXCPR = "DECXCPR"
	NameOSC10   = "OSC10"
	NameOSC11   = "OSC11"
)

// Replies tmux sends (input.c, input_csi_dispatch): DA1 without sixel,
// DSR "terminal OK".
const (
	DA1Reply = "\x1b[?1;2c"
	DSRReply = "\x1b[0n"
)

// Default colours answered to OSC 10 and OSC 11: white on black, in the
// rgb:rrrr/gggg/bbbb form xterm and tmux use.
const (
	DefaultForeground = "rgb:ffff/ffff/ffff"
	DefaultBackground = "rgb:0000/0000/0000"
)

// Reply is the answer to one query, to be written to the child's input.
type Reply struct {
	Name  string // NameDA1, NameDSR, …: what was answered
	Bytes []byte
}

// CursorFunc returns the cursor's column and row, 0-based. The caller
// feeds its screen model a chunk before handing it to Feed, so this is
// the cursor after the chunk: where an agent that waits for the reply to
// its cursor query has left it.
type CursorFunc func() (col, row int)

// Responder finds queries in a child's output and makes their replies.
// It is not safe for concurrent use; the output pump owns it.
type Responder struct {
	cursor     CursorFunc
	Foreground string // OSC 10 answer; DefaultForeground unless changed
	Background string // OSC 11 answer; DefaultBackground unless changed
	held       []byte
	work       []byte
	p          *ansi.Parser
}

// New returns a responder that answers cursor queries from cursor.
func New(cursor CursorFunc) *Responder {
	p := ansi.NewParser()
	p.SetDataSize(MaxHeld)
	return &Responder{cursor: cursor, Foreground: DefaultForeground, Background: DefaultBackground, p: p}
}

// Feed scans the next chunk of the child's output and returns the replies
// to the queries it completes, in order. A chunk that ends inside a
// sequence keeps that sequence's start until the next chunk. Replies are
// new slices the caller may keep.
func (r *Responder) Feed(p []byte) []Reply {
	data := p
	if len(r.held) > 0 {
		r.work = append(append(r.work[:0], r.held...), p...)
		data = r.work
	}
	var out []Reply
	// DecodeSequence also ends a string at 0x9c, which cuts a UTF-8 title
	// (✳ is E2 9C B3) short; harmless here: the rest holds no ESC, so no
	// query is found in it.
	for {
		i := bytes.IndexByte(data, 0x1b)
		if i < 0 {
			r.held = r.held[:0]
			return out
		}
		data = data[i:]
		seq, _, n, state := ansi.DecodeSequence(data, ansi.NormalState, nil)
		if state != ansi.NormalState || n == len(data)-1 && data[n] == 0x1b && cutAtEsc(data[:n]) {
			// Unfinished: keep it for the next chunk, unless it is too
			// long to be a query.
			if len(data) > MaxHeld {
				data = data[1:]
				continue
			}
			r.held = append(r.held[:0], data...)
			return out
		}
		if n == 0 {
			n = 1
		}
		if rep, ok := r.answer(seq); ok {
			out = append(out, rep)
		}
		data = data[n:]
	}
}

// cutAtEsc reports whether seq, a string sequence DecodeSequence ended at
// an ESC, was cut there rather than ended: an ESC at the end of a chunk
// may be the first half of ST.
func cutAtEsc(seq []byte) bool {
	if len(seq) < 2 || seq[1] == '[' {
		return false
	}
	_, _, _, state := ansi.DecodeSequence(seq, ansi.NormalState, nil)
	return state != ansi.NormalState
}

// maxSeparators keeps ansi.DecodeSequence within its parameter array:
// v0.11.9 panics on a CSI with more than 32 parameters. No query has more
// than one.
const maxSeparators = 8

// answer returns the reply to seq if it is a query this package answers.
func (r *Responder) answer(seq []byte) (Reply, bool) {
	switch {
	case len(seq) < 3:
		return Reply{}, false
	case seq[1] == ']':
		return r.answerOSC(seq)
	case seq[1] != '[' || bytes.Count(seq, []byte(";"))+bytes.Count(seq, []byte(":")) > maxSeparators:
		return Reply{}, false
	}
	ansi.DecodeSequence(seq, ansi.NormalState, r.p)
	cmd := ansi.Cmd(r.p.Command())
	params := r.p.Params()
	if cmd.Intermediate() != 0 || len(params) > 1 {
		return Reply{}, false
	}
	first := 0
	if len(params) == 1 {
		first = params[0].Param(0)
	}
	switch prefix := cmd.Prefix(); {
	case cmd.Final() == 'c' && prefix == 0 && first == 0:
		return Reply{NameDA1, []byte(DA1Reply)}, true
	case cmd.Final() == 'n' && prefix == 0 && first == 5:
		return Reply{NameDSR, []byte(DSRReply)}, true
	case cmd.Final() == 'n' && prefix == 0 && first == 6:
		col, row := r.cursor()
		return Reply{NameCPR, fmt.Appendf(nil, "\x1b[%d;%dR", row+1, col+1)}, true
	case cmd.Final() == 'n' && prefix == '?' && first == 6:
		// xterm's DECXCPR reply adds the page, always 1.
		col, row := r.cursor()
		return Reply{NameDECXCPR, fmt.Appendf(nil, "\x1b[?%d;%d;1R", row+1, col+1)}, true
	}
	return Reply{}, false
}

// answerOSC answers "OSC 10 ; ?" and "OSC 11 ; ?", ended as the query was
// (BEL or ST), as tmux does.
func (r *Responder) answerOSC(seq []byte) (Reply, bool) {
	var body, end []byte
	switch {
	case bytes.HasSuffix(seq, []byte("\a")):
		body, end = seq[2:len(seq)-1], []byte("\a")
	case bytes.HasSuffix(seq, []byte("\x1b\\")):
		body, end = seq[2:len(seq)-2], []byte("\x1b\\")
	default:
		return Reply{}, false // cancelled, or ended by an 8-bit ST
	}
	var name, colour string
	switch string(body) {
	case "10;?":
		name, colour = NameOSC10, r.Foreground
	case "11;?":
		name, colour = NameOSC11, r.Background
	default:
		return Reply{}, false
	}
	return Reply{name, fmt.Appendf(nil, "\x1b]%s;%s%s", body[:2], colour, end)}, true
}
