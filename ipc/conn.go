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
// connection costs one goroutine; a subscribed connection adds a second one
// that watches for the client hanging up.
type conn struct {
	srv  *Server
	nc   net.Conn
	br   *bufio.Reader
	log  *slog.Logger
	peer Peer

	done      chan struct{} // closed by close
	closeOnce sync.Once
	requests  int // frames received, for OnClient's "disconnect"

	// guarded by srv.mu
	admitted  bool      // holds a MaxConns slot
	evicted   bool      // closed by admit to free its slot
	idleSince time.Time // zero unless waiting for a request's first byte
}

// notify calls ServerConfig.OnClient, if set, shielding the connection
// from its panics.
func (c *conn) notify(event string, kv ...any) {
	hook := c.srv.cfg.OnClient
	if hook == nil {
		return
	}
	data := map[string]any{"peer_pid": c.peer.PID, "peer_uid": c.peer.UID}
	for i := 0; i+1 < len(kv); i += 2 {
		data[kv[i].(string)] = kv[i+1]
	}
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("ipc: OnClient panicked", "event", event, "panic", r)
		}
	}()
	hook(event, data)
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
			c.notify("disconnect", "requests", c.requests)
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
		c.notify("refused", "code", CodePermissionDenied)
		return
	}
	c.peer = peer
	defer peer.closePIDFD() // after Classify, or on refusal
	c.log = s.log.With("peer_pid", peer.PID)
	if peer.UID != s.cfg.UID {
		s.noisy.warn(c.log, NoisyRefusedPeer, "ipc: refused peer with another uid", "peer_uid", peer.UID, "want_uid", s.cfg.UID)
		c.refuse(Errorf(CodePermissionDenied, "uid %d may not use this socket; only uid %d may", peer.UID, s.cfg.UID))
		c.notify("refused", "code", CodePermissionDenied)
		return
	}
	evicted, ok := s.admit(c)
	if !ok {
		s.noisy.warn(c.log, NoisyTooManyClients, "ipc: refused connection: too many clients, none idle", "max_conns", s.cfg.MaxConns)
		c.refuse(Errorf(CodeTooManyClients, "the server already has %d connections, its limit, and none has been idle for %s",
			s.cfg.MaxConns, s.cfg.EvictIdleAfter))
		c.notify("refused", "code", CodeTooManyClients)
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
			c.notify("refused", "code", CodePermissionDenied)
			return
		}
		c.log = c.log.With("caller", who.Kind)
		c.log.Debug("ipc: caller", "caller", who.Label(), "chain", who.Chain)
		ctx = WithCaller(ctx, who)
		admitted = true
		c.notify("connect", "caller", who)
	} else {
		admitted = true
		c.notify("connect")
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
			res, err := c.hello(req)
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
		s.inflight.Add(1)
		res, err := c.call(ctx, h, req)
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

func (c *conn) hello(req *Request) (any, error) {
	var p HelloParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	if p.Client != "" {
		c.log.Debug("ipc: hello", "client", p.Client)
	}
	return HelloResult{
		Server:   c.srv.cfg.Version,
		Protocol: ProtocolVersion,
		Methods:  c.srv.methods(),
		Events:   append([]string{}, c.srv.events...),
	}, nil
}
