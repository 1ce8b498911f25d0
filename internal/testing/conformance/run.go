//go:build linux

package conformance

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/vmihailenco/msgpack/v5"
)

// caseTimeout bounds one case; a trigger with wait is the slowest.
const caseTimeout = 20 * time.Second

// Run runs every case of s against the sockets (suite socket name → path)
// with the Go client and returns one error per failed case; none means the
// Go client conforms.
func Run(ctx context.Context, s *Suite, sockets map[string]string) []error {
	var failed []error
	for _, c := range s.Cases {
		path, ok := sockets[c.Socket]
		if !ok {
			failed = append(failed, fmt.Errorf("%s: no socket %q given", c.Name, c.Socket))
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, caseTimeout)
		err := runCase(cctx, c, path)
		cancel()
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", c.Name, err))
		}
	}
	return failed
}

func runCase(ctx context.Context, c Case, path string) error {
	switch {
	case c.Call != nil:
		return runCall(ctx, c, path)
	case c.Subscribe != nil:
		return runSubscribe(ctx, c, path)
	default:
		return runRaw(ctx, c.Raw, path)
	}
}

func runCall(ctx context.Context, c Case, path string) error {
	cl, err := ipc.Dial(path, 5*time.Second)
	if err != nil {
		return err
	}
	defer cl.Close()
	var params any
	if c.Call.Params != nil {
		params = Expand(c.Call.Params)
	}
	var result any
	err = cl.Call(ctx, c.Call.Method, params, &result)
	if c.Error != nil {
		var e *ipc.Error
		if !errors.As(err, &e) {
			return fmt.Errorf("got result %v (err %v), want error %v", result, err, c.Error)
		}
		// As decoded from the wire: a plain string, not the typed ipc.Code
		// (Match compares a string with a string).
		return Match(c.Error, map[string]any{"code": string(e.Code), "message": e.Message})
	}
	if err != nil {
		return err
	}
	return Match(c.Result, result)
}

func runSubscribe(ctx context.Context, c Case, path string) error {
	cl, err := ipc.Dial(path, 5*time.Second)
	if err != nil {
		return err
	}
	defer cl.Close()
	sub, err := cl.Subscribe(ctx, c.Subscribe.Events)
	if err != nil {
		return err
	}
	events := make([]any, len(sub.Events()))
	for i, e := range sub.Events() {
		events[i] = e
	}
	if err := Match(c.Result, map[string]any{"events": events}); err != nil {
		return fmt.Errorf("subscribe result: %w", err)
	}
	other, err := ipc.Dial(path, 5*time.Second)
	if err != nil {
		return err
	}
	other.Close()
	stop := context.AfterFunc(ctx, func() { sub.Close() })
	defer stop()
	ev, err := sub.Next()
	if err != nil {
		return fmt.Errorf("waiting for an event: %w", err)
	}
	return Match(c.Event, map[string]any{"event": ev.Event, "seq": ev.Seq, "at": ev.At, "data": ev.Data})
}

func runRaw(ctx context.Context, r *Raw, path string) error {
	var held []net.Conn
	defer func() {
		for _, h := range held {
			h.Close()
		}
	}()
	for i := 0; i < r.Hold; i++ {
		h, err := dialRaw(ctx, path)
		if err != nil {
			return fmt.Errorf("held connection %d: %w", i+1, err)
		}
		held = append(held, h)
		if err := helloOn(h, 99); err != nil {
			return fmt.Errorf("held connection %d: %w", i+1, err)
		}
	}
	conn, err := dialRaw(ctx, path)
	if err != nil {
		return err
	}
	defer conn.Close()
	var out bytes.Buffer
	for _, s := range r.Send {
		b, err := s.bytes()
		if err != nil {
			return err
		}
		out.Write(b)
	}
	if out.Len() > 0 {
		if _, err := conn.Write(out.Bytes()); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	for i, want := range r.Expect {
		got, err := readValue(conn)
		if err != nil {
			return fmt.Errorf("answer %d: %w", i+1, err)
		}
		if err := Match(want, got); err != nil {
			return fmt.Errorf("answer %d: %w", i+1, err)
		}
	}
	switch r.Then {
	case ThenOpen:
		return helloOn(conn, 99)
	case ThenClosed:
		return expectEOF(conn)
	case ThenByteCloses:
		if _, err := conn.Write([]byte{0}); err != nil {
			return fmt.Errorf("write one byte: %w", err)
		}
		return expectEOF(conn)
	default: // ThenClientClose: the server must live on.
		conn.Close()
		return liveAt(ctx, path)
	}
}

func dialRaw(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl) // Best effort: the case fails on its timeout anyway.
	}
	return conn, nil
}

// bytes is what s puts on the wire.
func (s Send) bytes() ([]byte, error) {
	if s.Msg != nil {
		body, err := msgpack.Marshal(Expand(s.Msg))
		if err != nil {
			return nil, err
		}
		return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...), nil
	}
	b, err := hex.DecodeString(strings.ReplaceAll(s.Hex, " ", ""))
	if err != nil {
		return nil, fmt.Errorf("hex %q: %w", s.Hex, err)
	}
	return b, nil
}

func readValue(conn net.Conn) (any, error) {
	body, err := ipc.ReadFrame(conn, ipc.DefaultMaxFrame)
	if err != nil {
		return nil, err
	}
	var v any
	dec := msgpack.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode answer: %w", err)
	}
	return v, nil
}

// helloOn sends hello with id on conn and checks the answer.
func helloOn(conn net.Conn, id int) error {
	b, err := Send{Msg: map[string]any{"v": 1, "id": id, "method": "hello"}}.bytes()
	if err != nil {
		return err
	}
	if _, err := conn.Write(b); err != nil {
		return fmt.Errorf("hello: %w", err)
	}
	got, err := readValue(conn)
	if err != nil {
		return fmt.Errorf("hello: %w", err)
	}
	return Match(map[string]any{"id": id, "ok": true}, got)
}

func expectEOF(conn net.Conn) error {
	var b [1]byte
	n, err := conn.Read(b[:])
	if n == 0 && (errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err)) {
		return nil
	}
	return fmt.Errorf("want the server to close the connection, read %d bytes (err %v)", n, err)
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}

// liveAt checks that a new connection to path is answered.
func liveAt(ctx context.Context, path string) error {
	conn, err := dialRaw(ctx, path)
	if err != nil {
		return fmt.Errorf("server gone: %w", err)
	}
	defer conn.Close()
	return helloOn(conn, 99)
}
