package ipc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

// ErrStale is wrapped by Dial's error when the socket file exists but
// nothing listens on it (ECONNREFUSED): its server died without removing
// it. Callers may remove it with CleanStale.
var ErrStale = errors.New("stale socket (nothing listens on it)")

// ErrSubscribed is returned by Call on a client whose connection was turned
// into an event stream by Subscribe: the server would close the connection
// on any further request.
var ErrSubscribed = errors.New("ipc: the connection is subscribed and carries only events")

// Client is a connection to one server. Calls are serialised: the protocol
// answers requests on a connection in order, so a Client is safe for
// concurrent use but runs one call at a time; open several Clients for
// parallelism.
//
// After a transport failure, a cancelled context or a connection-level
// error (a response with id 0), the connection's state is unknown and the
// Client is closed: every later Call fails. Dial again.
type Client struct {
	conn net.Conn
	br   *bufio.Reader
	sem  chan struct{} // holds one token while a call runs

	// guarded by sem
	nextID uint64
	err    error // sticky failure
	sub    bool

	closed    atomic.Bool
	closeOnce sync.Once
}

// ErrForeignServer is wrapped by Dial's error when the process serving the
// socket runs as another uid than ours. The error also matches an *Error
// with code PERMISSION_DENIED, the code a server gives a foreign client.
var ErrForeignServer = errors.New("refusing a socket served by another user")

// Dial connects to the server at path, waiting at most timeout (0: no
// limit), and checks who serves it (CheckServer) before sending a byte: a
// socket served by another uid gives an error wrapping ErrForeignServer. No
// hello is exchanged. A refused connection (a stale socket) gives an error
// wrapping ErrStale; a missing socket gives one matching fs.ErrNotExist.
//
// A full accept backlog (EAGAIN: a burst of connections, or one process
// connecting in a loop) is retried with a short backoff until timeout
// (at most dialBusyWait when timeout is 0): the server accepts quickly,
// and a hook or `sup state` must not fail for a queue that drains in
// milliseconds (specs/ipc.md, "Connection slots").
func Dial(path string, timeout time.Duration) (*Client, error) {
	start := time.Now()
	giveUp := start.Add(dialBusyWait)
	if timeout > 0 {
		giveUp = start.Add(timeout)
	}
	var nc net.Conn
	var err error
	for pause := time.Millisecond; ; pause = min(2*pause, 16*time.Millisecond) {
		d := net.Dialer{Deadline: giveUp}
		if timeout == 0 {
			d.Deadline = time.Time{}
		}
		nc, err = d.Dial("unix", path)
		if !errors.Is(err, syscall.EAGAIN) || time.Now().Add(pause).After(giveUp) {
			break
		}
		time.Sleep(pause)
	}
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("ipc: %w: %w", ErrStale, err)
		}
		return nil, fmt.Errorf("ipc: %w", err)
	}
	if err := CheckServer(nc, path); err != nil {
		nc.Close()
		return nil, err
	}
	return NewClient(nc), nil
}

// dialBusyWait bounds Dial's retries of a full backlog when it has no
// timeout of its own.
const dialBusyWait = 2 * time.Second

// CheckServer refuses a connection whose server runs as another uid than
// ours (the kernel's SO_PEERCRED, read at connect time), before anything is
// sent on it: a hook's message, a trigger's prompt or an injected secret
// would otherwise reach whoever planted the socket. Root is not exempt, as
// on the server side. path only names the socket in the error.
func CheckServer(nc net.Conn, path string) error {
	p, err := peerCred(nc)
	p.closePIDFD()
	if err != nil {
		return fmt.Errorf("ipc: %w: %w", ErrForeignServer,
			Errorf(CodePermissionDenied, "cannot verify who serves %s: %v", path, err))
	}
	if euid := os.Geteuid(); p.UID != euid {
		return fmt.Errorf("ipc: %w: %w", ErrForeignServer, Errorf(CodePermissionDenied,
			"%s is served by %s (pid %d), not by you (uid %d); sup talks only to your own supervisors: "+
				"remove the socket (or fix SUP_SOCKET / SUP_RUNTIME_DIR if they point there)",
			path, userName(uint32(p.UID)), p.PID, euid))
	}
	return nil
}

// ServerPID is the pid of the process serving c's socket, as the kernel
// reported it at connect time.
func (c *Client) ServerPID() (int, error) {
	p, err := peerCred(c.conn)
	p.closePIDFD()
	return p.PID, err
}

// NewClient is a Client on an established connection that speaks v1, such
// as a relay's stdio over ssh (broker.DialHost): no socket to dial and no
// stale-socket handling.
func NewClient(nc net.Conn) *Client {
	return &Client{conn: nc, br: bufio.NewReader(nc), sem: make(chan struct{}, 1)}
}

// Close closes the connection. It may be called at any time, from any
// goroutine, to interrupt a blocked Call or Subscription.Next.
func (c *Client) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		err = c.conn.Close()
	})
	return err
}

// do runs f holding the call token, waiting for it no longer than ctx.
func (c *Client) do(ctx context.Context, f func() error) error {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-c.sem }()
	switch {
	case c.err != nil:
		return fmt.Errorf("ipc: client unusable after an earlier failure: %w", c.err)
	case c.closed.Load():
		return fmt.Errorf("ipc: client: %w", net.ErrClosed)
	case c.sub:
		return ErrSubscribed
	}
	return f()
}

// Call sends method with params (nil: none; otherwise anything that encodes
// to a msgpack map, usually a struct with msgpack tags) and decodes the
// result into result (a pointer; nil to discard). Unknown keys in the result
// are ignored, so a newer server may add keys. A protocol error comes back as
// *Error (use errors.As); its Code is one of the Code constants. ctx bounds
// the whole call, including waiting for an earlier call on this Client.
func (c *Client) Call(ctx context.Context, method string, params any, result any) error {
	return c.do(ctx, func() error { return c.call(ctx, method, params, result) })
}

func (c *Client) call(ctx context.Context, method string, params any, result any) error {
	resp, err := c.roundTrip(ctx, method, params)
	if err != nil {
		return err
	}
	if !resp.OK {
		if resp.Error == nil {
			return Errorf(CodeInternal, "the server answered ok=false without an error")
		}
		return resp.Error
	}
	if result != nil && len(resp.Result) > 0 {
		if err := unmarshal(resp.Result, result); err != nil {
			return fmt.Errorf("ipc: %s: decode result into %T: %w", method, result, err)
		}
	}
	return nil
}

// callGuard stops a context's AfterFunc from touching the connection once
// the call it belonged to is over.
type callGuard struct {
	mu   sync.Mutex
	over bool
}

func (c *Client) roundTrip(ctx context.Context, method string, params any) (*Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.nextID++
	id := c.nextID
	req := Request{V: ProtocolVersion, ID: id, Method: method}
	if params != nil {
		raw, err := marshal(params)
		if err != nil {
			return nil, fmt.Errorf("ipc: %s: %w", method, err)
		}
		req.Params = raw
	}

	// The deadline covers the write and the read; cancellation without a
	// deadline interrupts them by moving the deadline into the past.
	dl, _ := ctx.Deadline()
	c.conn.SetDeadline(dl)
	g := &callGuard{}
	stop := context.AfterFunc(ctx, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if !g.over {
			c.conn.SetDeadline(time.Unix(1, 0))
		}
	})
	defer func() {
		stop()
		g.mu.Lock()
		g.over = true
		g.mu.Unlock()
	}()

	if err := WriteFrame(c.conn, &req); err != nil {
		// A server refusing us (PERMISSION_DENIED, TOO_MANY_CLIENTS) may
		// have said why and closed before our write: report its reason.
		if e := c.pendingError(); e != nil {
			return nil, c.fail(e)
		}
		return nil, c.fail(c.ioError(ctx, method, err))
	}
	body, err := ReadFrame(c.br, DefaultMaxFrame)
	if err != nil {
		return nil, c.fail(c.ioError(ctx, method, err))
	}
	var resp Response
	if err := unmarshal(body, &resp); err != nil {
		return nil, c.fail(fmt.Errorf("ipc: %s: malformed response: %w", method, err))
	}
	switch {
	case resp.ID == id:
		return &resp, nil
	case resp.ID == 0 && resp.Error != nil: // connection-level: the server closes
		return nil, c.fail(resp.Error)
	}
	return nil, c.fail(fmt.Errorf("ipc: %s: response for id %d while waiting for id %d", method, resp.ID, id))
}

// pendingError reads, briefly, an error frame the server may have sent
// before closing.
func (c *Client) pendingError() *Error {
	c.conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	body, err := ReadFrame(c.br, DefaultMaxFrame)
	if err != nil {
		return nil
	}
	var resp Response
	if unmarshal(body, &resp) != nil || resp.ID != 0 {
		return nil
	}
	return resp.Error
}

// ioError explains a transport error, preferring the context's reason.
func (c *Client) ioError(ctx context.Context, method string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("ipc: %s: %w", method, cerr)
	}
	if _, has := ctx.Deadline(); has && errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("ipc: %s: %w", method, context.DeadlineExceeded)
	}
	if c.closed.Load() {
		return fmt.Errorf("ipc: %s: %w", method, net.ErrClosed)
	}
	return fmt.Errorf("ipc: %s: %w", method, err)
}

// fail records err as the client's sticky failure and closes the
// connection.
func (c *Client) fail(err error) error {
	c.err = err
	c.Close()
	return err
}

// Subscription is a connection turned into an event stream by
// Client.Subscribe.
type Subscription struct {
	c      *Client
	events []string
}

// Subscribe asks for events (nil or empty: every event the server has) and
// turns the connection into an event stream: Call fails with ErrSubscribed
// from then on. An unknown event name gives a BAD_REQUEST *Error and leaves
// the Client usable.
func (c *Client) Subscribe(ctx context.Context, events []string) (*Subscription, error) {
	sub, _, err := c.subscribe(ctx, SubscribeParams{Events: events})
	return sub, err
}

// SubscribeSince is Subscribe that first replays the server's buffered
// events numbered above since (specs/ipc.md, since_seq); the result tells
// the last seq before the stream and whether some events after since were
// no longer buffered.
func (c *Client) SubscribeSince(ctx context.Context, events []string, since uint64) (*Subscription, SubscribeResult, error) {
	return c.subscribe(ctx, SubscribeParams{Events: events, SinceSeq: &since})
}

func (c *Client) subscribe(ctx context.Context, p SubscribeParams) (*Subscription, SubscribeResult, error) {
	var res SubscribeResult
	err := c.do(ctx, func() error {
		if err := c.call(ctx, MethodSubscribe, p, &res); err != nil {
			return err
		}
		c.sub = true
		c.conn.SetDeadline(time.Time{})
		return nil
	})
	if err != nil {
		return nil, res, err
	}
	return &Subscription{c: c, events: res.Events}, res, nil
}

// Events lists the event names this stream carries, as the server
// confirmed them.
func (s *Subscription) Events() []string { return s.events }

// Next blocks until the next event. The stream ends with an error matching
// io.EOF when the server closes it (shutdown, or this subscriber fell too
// far behind and was dropped): reconnect and re-read state, since events
// may have been missed. Close the Subscription from another goroutine to
// stop a blocked Next. Next is not safe for concurrent use.
func (s *Subscription) Next() (Event, error) {
	body, err := ReadFrame(s.c.br, DefaultMaxFrame)
	if err != nil {
		if s.c.closed.Load() {
			err = net.ErrClosed
		}
		return Event{}, fmt.Errorf("ipc: subscription: %w", err)
	}
	var f struct {
		Event string             `msgpack:"event"`
		Seq   uint64             `msgpack:"seq"`
		At    int64              `msgpack:"at"`
		Data  msgpack.RawMessage `msgpack:"data"`
		Error *Error             `msgpack:"error"`
	}
	if err := unmarshal(body, &f); err != nil {
		return Event{}, fmt.Errorf("ipc: subscription: malformed event: %w", err)
	}
	if f.Event == "" {
		if f.Error != nil {
			return Event{}, f.Error
		}
		return Event{}, errors.New("ipc: subscription: frame without an event name")
	}
	ev := Event{Event: f.Event, Seq: f.Seq, At: f.At, raw: f.Data}
	if len(f.Data) > 0 {
		if err := unmarshal(f.Data, &ev.Data); err != nil {
			return Event{}, fmt.Errorf("ipc: subscription: malformed %s event: %w", f.Event, err)
		}
	}
	return ev, nil
}

// Close ends the subscription and its connection.
func (s *Subscription) Close() error { return s.c.Close() }
