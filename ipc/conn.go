package ipc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"time"
)

// conn is one accepted connection. One goroutine (serve) reads a request,
// answers it and reads the next, so answers come in request order and a
// connection costs one goroutine; a subscribed connection, and one whose
// request is being handled, adds a second one that watches for the client
// hanging up (watchHangup).
type conn struct {
	srv  *Server
	nc   net.Conn
	br   *bufio.Reader
	log  *slog.Logger
	peer Peer
	// agent keys the agent session the caller runs in, for the held
	// connections' per-agent cap (Server.holdSlot); "" for the operator
	// and when no Classify is set. Set once, before the first request.
	agent      string
	agentLabel string

	done      chan struct{} // closed by close
	closeOnce sync.Once
	requests  int // frames received, for OnClient's "disconnect"

	// guarded by srv.mu
	admitted  bool      // holds a MaxConns slot
	evicted   bool      // closed by admit to free its slot
	hungUp    bool      // its client hung up during a handler; slot given back (Server.hangUp)
	idleSince time.Time // zero unless waiting for a request's first byte
}

// notify calls ServerConfig.OnClient, if set, with ev (a ClientConnect,
// ClientDisconnect or ClientRefused: its phase and details; notify fills
// in the peer), shielding the connection from its panics.
func (c *conn) notify(ev ClientEvent) {
	hook := c.srv.cfg.OnClient
	if hook == nil {
		return
	}
	pid, uid := c.peer.PID, c.peer.UID
	switch e := ev.(type) {
	case ClientConnect:
		e.Phase, e.PeerPID, e.PeerUID = PhaseConnect, pid, uid
		ev = e
	case ClientDisconnect:
		e.Phase, e.PeerPID, e.PeerUID = PhaseDisconnect, pid, uid
		ev = e
	case ClientRefused:
		e.Phase, e.PeerPID, e.PeerUID = PhaseRefused, pid, uid
		ev = e
	}
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("ipc: OnClient panicked", "event", ev, "panic", r)
		}
	}()
	hook(ev)
}

// close closes the connection; safe to call from any goroutine, many times.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		close(c.done)
		c.nc.Close()
	})
}

func (c *conn) serve() {
	s := c.srv
	admitted := false // notified "connect", so "disconnect" follows
	defer s.wg.Done()
	defer func() {
		c.close()
		s.release(c)
		if admitted {
			c.notify(ClientDisconnect{Requests: c.requests})
		}
	}()
	defer func() {
		// Nothing below should panic; if something does, this connection
		// dies and the process lives.
		if r := recover(); r != nil {
			c.log.Error("ipc: connection goroutine panicked", "panic", r, "stack", string(debug.Stack()))
		}
	}()

	// The peer check comes before anything is read from the socket.
	peer, err := peerCred(c.nc)
	if err != nil {
		s.Warn(NoisyRefusedPeer, "ipc: refused connection: cannot read peer credentials", "err", err)
		c.refuse(Errorf(CodePermissionDenied, "cannot verify the peer's uid: %v", err))
		c.notify(ClientRefused{Code: CodePermissionDenied})
		return
	}
	c.peer = peer
	defer peer.closePIDFD() // after Classify, or on refusal
	c.log = s.log.With("peer_pid", peer.PID)
	if peer.UID != s.cfg.UID {
		s.noisy.warn(c.log, NoisyRefusedPeer, "ipc: refused peer with another uid", "peer_uid", peer.UID, "want_uid", s.cfg.UID)
		c.refuse(Errorf(CodePermissionDenied, "uid %d may not use this socket; only uid %d may", peer.UID, s.cfg.UID))
		c.notify(ClientRefused{Code: CodePermissionDenied})
		return
	}
	evicted, ok := s.admit(c)
	if !ok {
		s.noisy.warn(c.log, NoisyTooManyClients, "ipc: refused connection: too many clients, none idle", "max_conns", s.cfg.MaxConns)
		c.refuse(Errorf(CodeTooManyClients, "the server already has %d connections, its limit, and none has been idle for %s",
			s.cfg.MaxConns, s.cfg.EvictIdleAfter))
		c.notify(ClientRefused{Code: CodeTooManyClients})
		return
	}
	if evicted != nil {
		s.noisy.warn(c.log, NoisyTooManyClients, "ipc: connection slots full; closed the oldest idle connection for a new one",
			"max_conns", s.cfg.MaxConns, "evicted_peer_pid", evicted.peer.PID)
	}
	ctx := withPeer(s.ctx, peer)
	if classify := s.cfg.Classify; classify != nil {
		who, err := classify(peer)
		peer.closePIDFD()
		if err != nil {
			s.noisy.warn(c.log, NoisyRefusedPeer, "ipc: refused connection: cannot tell who is calling", "err", err)
			c.refuse(Errorf(CodePermissionDenied, "cannot tell who is calling (pid %d): %v", peer.PID, err))
			c.notify(ClientRefused{Code: CodePermissionDenied})
			return
		}
		c.log = c.log.With("caller", who.Kind)
		c.log.Debug("ipc: caller", "caller", who.Label(), "chain", who.Chain)
		ctx = WithCaller(ctx, who)
		c.agent, c.agentLabel = agentKey(who)
		admitted = true
		c.notify(ClientConnect{Caller: &who})
	} else {
		admitted = true
		c.notify(ClientConnect{})
	}

	c.br = bufio.NewReader(c.nc)
	for {
		body, ok := c.readFrame()
		if !ok {
			return
		}
		c.requests++
		req, id, perr := parseRequest(body)
		if perr != nil {
			s.noisy.warn(c.log, NoisyBadRequest, "ipc: bad request", "code", perr.Code, "msg", perr.Message)
			if !c.respond(id, nil, perr) {
				return
			}
			continue
		}
		switch req.Method {
		case MethodSubscribe:
			if c.subscribe(req) {
				return // the connection carried events until it ended
			}
			continue
		case MethodHello:
			res, who, err := c.hello(ctx, req)
			if who != nil {
				ctx = WithCaller(ctx, *who) // the later calls act via it
			}
			if !c.respond(req.ID, res, err) {
				return
			}
			continue
		}
		h, ok := s.handler(req.Method)
		if !ok {
			perr := Errorf(CodeUnknownMethod, "unknown method %q; hello lists the methods this server answers", req.Method)
			s.noisy.warn(c.log, NoisyUnknownMethod, "ipc: unknown method", "method", req.Method)
			if !c.respond(req.ID, nil, perr) {
				return
			}
			continue
		}
		waiting := !reservedMethods[req.Method]
		if waiting {
			if e := s.holdSlot(c, true); e != nil {
				s.noisy.warn(c.log, NoisyTooManyClients, "ipc: refused a waiting call", "method", req.Method, "msg", e.Message)
				c.respond(req.ID, nil, e)
				return // closed at once, so the refused call frees its slot
			}
		}
		s.inflight.Add(1)
		hctx, stopWatch := c.watchHangup(ctx)
		res, err := c.call(hctx, h, req)
		hungUp := stopWatch()
		if waiting {
			s.unholdSlot(c)
		}
		if hungUp {
			s.inflight.Add(-1)
			return // no one to answer; the slot was given back already
		}
		if req.Method == MethodHook && err != nil && AsError(err).Code == CodeBadRequest {
			// Agents' hooks fire on every tool call: a broken payload
			// would otherwise go unseen or flood the log.
			s.noisy.warn(c.log, NoisyBadHook, "ipc: hook payload refused", "msg", AsError(err).Message)
		}
		ok = c.respond(req.ID, res, err)
		s.inflight.Add(-1)
		if !ok {
			return
		}
	}
}

// aLongTimeAgo is a read deadline in the past: it wakes a blocked read.
var aLongTimeAgo = time.Unix(1, 0)

// hangupPoll is how often a half-closed connection is checked for the
// full close while its request is handled (see watchHangup).
const hangupPoll = 100 * time.Millisecond

// watchHangup returns a child of ctx for one handler call that is
// cancelled when the client hangs up meanwhile, and a stop function to call
// once the handler returned; stop reports whether the client hung up (then
// nothing is to be sent, and the slot was given back at once:
// Server.hangUp). The watcher reads ahead through c.br, which the serve
// goroutine does not touch until stop returns, so a request pipelined
// behind this one stays in the buffer for the next readFrame.
func (c *conn) watchHangup(ctx context.Context) (context.Context, func() bool) {
	hctx, cancel := context.WithCancel(ctx)
	c.nc.SetReadDeadline(time.Time{}) // the handler may take minutes (a trigger with wait)
	stopping := make(chan struct{})
	gone := make(chan bool, 1)
	go func() { gone <- c.awaitHangup(stopping, cancel) }()
	return hctx, func() bool {
		close(stopping)
		c.nc.SetReadDeadline(aLongTimeAgo) // wakes the read ahead
		g := <-gone
		cancel()
		return g
	}
}

// awaitHangup blocks until the client hangs up (then it cancels the call
// and gives the slot back) or stopping is closed. A byte of a next request
// ends the watch without a verdict: the client is there. EOF may be a
// half-close (shutdown(SHUT_WR), as `sup relay` does when its input ends)
// from a client that still reads the answer, so EOF counts only once the
// peer has closed both ways (peerClosed), checked every hangupPoll.
func (c *conn) awaitHangup(stopping <-chan struct{}, cancel context.CancelFunc) bool {
	if _, err := c.br.Peek(1); err == nil || isTimeout(err) {
		return false
	}
	tick := time.NewTicker(hangupPoll)
	defer tick.Stop()
	for {
		select {
		case <-c.done: // closed by the server (Close, or a failed write)
			return false
		default:
		}
		if peerClosed(c.nc) {
			c.log.Debug("ipc: client hung up during its call; cancelling it")
			cancel()
			c.srv.hangUp(c)
			return true
		}
		select {
		case <-stopping:
			return false
		case <-tick.C:
		}
	}
}

// call runs a handler, turning a panic into an INTERNAL error.
func (c *conn) call(ctx context.Context, h HandlerFunc, req *Request) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("ipc: handler panicked", "method", req.Method, "panic", r, "stack", string(debug.Stack()))
			res, err = nil, Errorf(CodeInternal, "the %s handler failed: %v", req.Method, r)
		}
	}()
	return h(ctx, req)
}

// readFrame waits up to IdleTimeout for a frame to start and FrameTimeout
// for it to finish. When the stream is out of sync it sends the error frame
// the spec names (id 0) and reports false: the caller closes.
func (c *conn) readFrame() ([]byte, bool) {
	cfg := &c.srv.cfg
	if !c.srv.setIdle(c, true) {
		return nil, false
	}
	c.nc.SetReadDeadline(time.Now().Add(cfg.IdleTimeout))
	if _, err := c.br.Peek(1); err != nil {
		if isTimeout(err) {
			c.log.Debug("ipc: closing idle connection", "idle", cfg.IdleTimeout)
		}
		return nil, false
	}
	// A frame on its way is still evictable, counted from its first
	// byte: a local client sends a whole frame in microseconds, and one
	// that drips a frame byte by byte would otherwise hold its slot for
	// FrameTimeout while looking busy (found by the attack review: 140
	// dripping connections locked `sup state` and hooks out).
	if !c.srv.setIdle(c, true) {
		return nil, false
	}
	c.nc.SetReadDeadline(time.Now().Add(cfg.FrameTimeout))
	body, err := ReadFrame(c.br, cfg.MaxFrame)
	if err == nil {
		if !c.srv.setIdle(c, false) {
			return nil, false // evicted as the frame completed: dropped with the connection
		}
		return body, true
	}
	if c.srv.wasEvicted(c) {
		return nil, false // its read failed because it was closed for a newcomer
	}
	var tooLarge *FrameTooLargeError
	switch {
	case errors.Is(err, ErrEmptyFrame):
		c.srv.noisy.warn(c.log, NoisyBadFrame, "ipc: closing connection: empty frame")
		c.respond(0, nil, Errorf(CodeBadRequest,
			"frame length 0: every frame holds one msgpack value, so the stream is out of sync; closing"))
	case errors.As(err, &tooLarge):
		c.srv.noisy.warn(c.log, NoisyOversize, "ipc: closing connection: frame too large", "size", tooLarge.Size, "max", tooLarge.Max)
		c.respond(0, nil, Errorf(CodePayloadTooLarge,
			"frame of %d bytes exceeds the limit of %d bytes; closing", tooLarge.Size, tooLarge.Max))
	case isTimeout(err):
		c.srv.noisy.warn(c.log, NoisyBadFrame, "ipc: closing connection: frame incomplete", "frame_timeout", cfg.FrameTimeout)
		c.respond(0, nil, Errorf(CodeBadRequest,
			"frame incomplete %s after its first byte; closing", cfg.FrameTimeout))
	case errors.Is(err, io.ErrUnexpectedEOF):
		c.srv.noisy.warn(c.log, NoisyBadFrame, "ipc: connection ended inside a frame")
	}
	return nil, false
}

func isTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// respond sends the response for id: err when non-nil, else result. A result
// that cannot be encoded becomes INTERNAL; one larger than MaxFrame becomes
// PAYLOAD_TOO_LARGE, so clients never see a frame above the limit. It
// reports whether the write succeeded.
func (c *conn) respond(id uint64, result any, err error) bool {
	resp := Response{ID: id}
	if err != nil {
		resp.Error = AsError(err)
		if resp.Error.Code == "" {
			resp.Error = &Error{Code: CodeInternal, Message: resp.Error.Message}
		}
	} else if raw, merr := marshal(result); merr != nil {
		c.log.Error("ipc: cannot encode result", "err", merr)
		resp.Error = Errorf(CodeInternal, "cannot encode the result: %v", merr)
	} else {
		resp.OK, resp.Result = true, raw
	}
	eb := getEncBuf()
	defer putEncBuf(eb)
	if err := eb.frame(&resp); err != nil {
		c.log.Error("ipc: cannot encode response", "err", err)
		return false
	}
	if n := eb.buf.Len() - frameHeaderLen; n > c.srv.cfg.MaxFrame {
		c.log.Error("ipc: response too large", "size", n, "max", c.srv.cfg.MaxFrame)
		resp = Response{ID: id, Error: Errorf(CodePayloadTooLarge,
			"the response would be %d bytes, more than the limit of %d", n, c.srv.cfg.MaxFrame)}
		if err := eb.frame(&resp); err != nil {
			return false
		}
	}
	return c.write(eb.buf.Bytes())
}

// write sends one complete frame within WriteTimeout.
func (c *conn) write(frame []byte) bool {
	c.nc.SetWriteDeadline(time.Now().Add(c.srv.cfg.WriteTimeout))
	if _, err := c.nc.Write(frame); err != nil {
		c.log.Debug("ipc: write failed; closing", "err", err)
		return false
	}
	return true
}

// refuse sends one connection-level error frame (id 0); the caller closes.
func (c *conn) refuse(e *Error) { c.respond(0, nil, e) }

func (c *conn) hello(ctx context.Context, req *Request) (any, *Caller, error) {
	var p HelloParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, nil, err
	}
	if p.Client != "" {
		c.log.Debug("ipc: hello", "client", p.Client)
	}
	var who *Caller
	if p.Via != nil {
		if err := p.Via.check(); err != nil {
			return nil, nil, err
		}
		w, _ := CallerFromContext(ctx)
		if !w.IsOperator() {
			// An agent must not launder its calls as the operator's
			// browser: refused, and its connection stays an agent's.
			c.srv.Warn(NoisyNotAllowed, "ipc: hello via refused", "caller", w.Label(), "via", p.Via.Kind, "via_client", p.Via.Client)
			return nil, nil, Errorf(CodeNotAllowed, "hello: via %s refused for %s: only the operator may act for a %s client; nothing changed",
				p.Via.Kind, w.Label(), p.Via.Kind)
		}
		v := *p.Via
		w.Via = &v
		who = &w
		c.log.Info("ipc: acts via", "via", v.Kind, "via_client", v.Client)
	}
	return HelloResult{
		Server:   c.srv.cfg.Version,
		Protocol: ProtocolVersion,
		Methods:  c.srv.methods(),
		Events:   append([]string{}, c.srv.events...),
	}, who, nil
}
