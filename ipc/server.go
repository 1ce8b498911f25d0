package ipc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// HandlerFunc answers one request. The result is encoded as the response's
// "result". An *Error is sent as it is (a protocol error with its code); any
// other error is sent as INTERNAL with the error's text. ctx is cancelled
// when the server closes, and carries the caller's Peer (PeerFromContext);
// handlers must return promptly once it is done, since Close waits for them.
// Requests on one connection are handled one at a time, in order; handlers of
// different connections run concurrently.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// ServerConfig holds a server's limits. Zero values take the defaults, which
// are what the protocol spec promises clients.
type ServerConfig struct {
	// MaxFrame is the largest frame body accepted from clients and sent to
	// them. Default DefaultMaxFrame.
	MaxFrame int
	// MaxConns is how many connections may be open at once. When they are
	// all taken, a new connection closes the oldest idle one (see
	// EvictIdleAfter) and takes its slot; when none is idle, it gets one
	// TOO_MANY_CLIENTS error frame and is closed, so a runaway script
	// cannot exhaust the supervisor's file descriptors. At most
	// MaxConns-MaxConns/8 of them may be held — subscribed, or inside a
	// handler of a method outside reservedMethods — so that event
	// followers and waiting calls cannot take every slot either: the
	// rest are idle (evictable) or serve reserved calls, which are
	// quick. Default DefaultMaxConns.
	MaxConns int
	// MaxWaitingPerPeer is how many held connections — subscriptions and
	// calls of methods outside reservedMethods inside handlers, together —
	// one peer process (SO_PEERCRED pid) may have at once, and, when
	// Classify names the caller an agent, one agent session (its outermost
	// enclosing session: every process of its tree, nested supervisors'
	// agents included) may have. Its next waiting call is answered
	// TOO_MANY_CLIENTS and its connection closed; its next subscribe is
	// answered TOO_MANY_CLIENTS and the connection stays. Default
	// MaxConns/8 (16 of 128) but at least 4 (or maxHeld, if fewer), so
	// one process or one agent holds at most an eighth of the held budget
	// and the operator's calls keep room.
	MaxWaitingPerPeer int
	// EvictIdleAfter is how long a connection must have been idle (no
	// request in flight, none being read, not subscribed) before a new
	// connection may close it for its slot: a client between its connect
	// and its first write is not idle. Default DefaultEvictIdleAfter.
	EvictIdleAfter time.Duration
	// FrameTimeout is how long a frame may take to arrive once its first byte
	// has: a client stalled mid-frame is closed rather than holding the
	// connection forever. Default 5s.
	FrameTimeout time.Duration
	// IdleTimeout closes a connection that sends nothing for this long
	// between requests. Subscribed connections are exempt (they only
	// listen). Default DefaultIdleTimeout.
	IdleTimeout time.Duration
	// WriteTimeout bounds each response or event write. A client that does
	// not read its responses, or a subscriber that cannot keep up, is
	// dropped instead of stalling the server. Default 5s.
	WriteTimeout time.Duration
	// EventBuffer is how many events may wait for one subscriber's socket.
	// A subscriber whose buffer overflows is dropped (its connection is
	// closed), so Publish never waits. Default 256.
	EventBuffer int
	// Version is the server's version, reported by hello. Default "devel".
	Version string
	// Events are the event names subscribe accepts and Publish delivers.
	Events []string
	// Logger receives refused peers, malformed frames and handler panics.
	// nil discards them.
	Logger *slog.Logger
	// OnClient, when set, is told about connections: ClientConnect
	// (admitted), ClientDisconnect (with how many requests it made) and
	// ClientRefused (PERMISSION_DENIED or TOO_MANY_CLIENTS), each with its
	// phase and peer filled in, ready to Publish as a "client" event. It
	// runs on the connection's goroutine, outside the server's locks (so it
	// may call Publish); a panic in it is logged and ignored.
	OnClient func(ev ClientEvent)
	// NoisyBurst is how many warnings of one kind (bad frames, refused
	// peers, …; see Server.Warn) are logged in full per NoisyInterval
	// before they are only counted and summarised. Defaults
	// DefaultNoisyBurst and DefaultNoisyInterval.
	NoisyBurst    int
	NoisyInterval time.Duration
	// Now is the clock of the warning rate limit and of idle ages;
	// time.Now when nil.
	Now func() time.Time
	// Classify, when set, decides who a connection's peer is, once, when
	// the connection is admitted (before its first request is read); the
	// verdict reaches every handler (CallerFromContext) and the log. An
	// error refuses the connection with PERMISSION_DENIED: a caller that
	// cannot be told is not guessed.
	Classify func(Peer) (Caller, error)
	// UID is the only user id allowed to connect. 0 means os.Geteuid(), the
	// user the server runs as. Root is not exempt: an accidental
	// `sudo sup inject` into another user's agent is refused.
	UID int
}

// DefaultMaxConns bounds concurrent connections. 128, not 64: a broker fan-out,
// an events follower per dashboard and a hundred editor windows polling
// `state` must all fit, while a runaway client still cannot exhaust fds.
const DefaultMaxConns = 128

// DefaultIdleTimeout closes a connection that sends nothing for this long.
// sup's own clients make one call per connection (a hook, a verb) or
// subscribe; 30 s, not the 5 min it once was, so that a buggy client's
// forgotten connections free their slots soon (specs/ipc.md, "Connection
// slots").
const DefaultIdleTimeout = 30 * time.Second

// minWaitingPerPeer is the least MaxWaitingPerPeer defaults to, however
// few the connections (unless fewer may be held at all).
const minWaitingPerPeer = 4

// DefaultEvictIdleAfter: a second is far longer than any client's gap
// between connect and first request, and far shorter than anyone waits.
const DefaultEvictIdleAfter = time.Second

// maxHeld is how many connections may be held (subscribed, or inside a
// handler of a method outside reservedMethods): all but an eighth of the
// slots, which stay for reserved calls (hooks, stop, state).
func (c *ServerConfig) maxHeld() int {
	if c.MaxConns < 2 {
		return c.MaxConns
	}
	return c.MaxConns - max(1, c.MaxConns/8)
}

func (c *ServerConfig) setDefaults() {
	if c.MaxFrame <= 0 {
		c.MaxFrame = DefaultMaxFrame
	}
	if c.MaxConns <= 0 {
		c.MaxConns = DefaultMaxConns
	}
	if c.FrameTimeout <= 0 {
		c.FrameTimeout = 5 * time.Second
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.MaxWaitingPerPeer <= 0 {
		// At least a few, or a small server (max_clients 6 gives an
		// eighth of 0) would hold one process to one: a client whose
		// closed subscription the server has not yet seen hang up was
		// refused its next inject (the conformance suite, in CI).
		c.MaxWaitingPerPeer = max(min(minWaitingPerPeer, c.maxHeld()), c.MaxConns/8)
	}
	if c.EvictIdleAfter <= 0 {
		c.EvictIdleAfter = DefaultEvictIdleAfter
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 5 * time.Second
	}
	if c.EventBuffer <= 0 {
		c.EventBuffer = 256
	}
	if c.Version == "" {
		c.Version = "devel"
	}
	if c.UID == 0 {
		c.UID = os.Geteuid()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.NoisyBurst <= 0 {
		c.NoisyBurst = DefaultNoisyBurst
	}
	if c.NoisyInterval <= 0 {
		c.NoisyInterval = DefaultNoisyInterval
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Server serves protocol v1 on Unix socket listeners: it checks each peer's
// uid, enforces the limits of its ServerConfig, answers hello and subscribe
// itself and dispatches every other method to the handler registered with
// Handle. Nothing a client sends can crash it: malformed input gets an error
// frame (and, when the stream is out of sync, a closed connection), and a
// handler panic becomes an INTERNAL error.
type Server struct {
	cfg    ServerConfig
	log    *slog.Logger
	noisy  *noisy
	events []string // sorted
	evSet  map[string]bool

	ctx    context.Context // cancelled by Close; parent of handler contexts
	cancel context.CancelFunc

	mu        sync.Mutex
	handlers  map[string]HandlerFunc
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	admitted  int
	perPID    map[int]int    // admitted connections per peer process
	held      int            // connections subscribed or in a waiting call; see holdSlot
	heldBy    map[int]int    // held connections per peer process; see holdSlot
	heldByAg  map[string]int // held connections per agent (conn.agent); see holdSlot
	closed    bool
	wg        sync.WaitGroup
	inflight  atomic.Int64 // handler calls not yet answered; see Shutdown

	subMu  sync.Mutex
	subs   map[*subscriber]struct{} // nil once closed
	seq    uint64
	replay replayBuffer // the last EventBuffer events, for since_seq
}

// NewServer returns a server with cfg's limits (defaults filled in) and only
// the built-in methods hello and subscribe.
func NewServer(cfg ServerConfig) *Server {
	cfg.setDefaults()
	s := &Server{
		cfg:       cfg,
		log:       cfg.Logger,
		noisy:     newNoisy(cfg.Logger, cfg.Now, cfg.NoisyBurst, cfg.NoisyInterval),
		evSet:     map[string]bool{},
		handlers:  map[string]HandlerFunc{},
		listeners: map[net.Listener]struct{}{},
		conns:     map[*conn]struct{}{},
		perPID:    map[int]int{},
		heldBy:    map[int]int{},
		heldByAg:  map[string]int{},
		subs:      map[*subscriber]struct{}{},
		replay:    replayBuffer{max: cfg.EventBuffer},
	}
	for _, e := range cfg.Events {
		if !s.evSet[e] {
			s.evSet[e] = true
			s.events = append(s.events, e)
		}
	}
	sort.Strings(s.events)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s
}

// Handle registers h for method. Registering an empty name, a built-in
// (hello, subscribe) or a method twice panics: those are programming errors,
// like duplicate routes in net/http.
func (s *Server) Handle(method string, h HandlerFunc) {
	if method == "" || h == nil {
		panic("ipc: Handle needs a method name and a handler")
	}
	if method == MethodHello || method == MethodSubscribe {
		panic("ipc: " + method + " is built in and cannot be replaced")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.handlers[method]; dup {
		panic("ipc: method " + method + " registered twice")
	}
	s.handlers[method] = h
}

// methods lists every method the server answers, built-ins included, sorted.
func (s *Server) methods() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := []string{MethodHello, MethodSubscribe}
	for m := range s.handlers {
		ms = append(ms, m)
	}
	sort.Strings(ms)
	return ms
}

func (s *Server) handler(method string) (HandlerFunc, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.handlers[method]
	return h, ok
}

// Serve accepts connections on ln until Close, then returns nil. Any other
// accept failure is returned (transient ones such as EMFILE are retried
// with backoff). Serve may be called for several listeners.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
	}()

	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.isClosed() {
				return nil
			}
			if transientAcceptError(err) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.log.Warn("ipc: accept failed; retrying", "err", err, "in", backoff)
				select {
				case <-time.After(backoff):
				case <-s.ctx.Done():
					return nil
				}
				continue
			}
			return fmt.Errorf("ipc: accept: %w", err)
		}
		backoff = 0
		c := &conn{srv: s, nc: nc, done: make(chan struct{}), log: s.log}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			return nil
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go c.serve()
	}
}

func transientAcceptError(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.EINTR, syscall.EAGAIN} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// admit counts c against MaxConns. When every slot is taken it closes an
// idle connection and gives c its slot, so idle clients cannot lock hooks
// and control verbs out; it returns the evicted connection (nil if none).
// The one evicted is the connection idle the longest, if that is at least
// EvictIdleAfter; else the longest idle one of the process holding the
// most connections, if it holds a hog's share (hogConns) — a process
// looping over connect is the likeliest buggy client, and its fresh
// connections must not shut out everyone else's (a newcomer from that
// process itself does not get this second chance). false means no slot
// could be freed.
func (s *Server) admit(c *conn) (evicted *conn, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.admitted >= s.cfg.MaxConns {
		if evicted = s.oldestIdle(c.peer.PID); evicted == nil {
			return nil, false
		}
		evicted.evicted = true
		s.unadmit(evicted)
		evicted.close() // its read fails; its goroutine ends and logs nothing more
	}
	s.admitted++
	s.perPID[c.peer.PID]++
	c.admitted = true
	// Idle from admission, not only from its first read: a hog's
	// newcomers must be evictable at once (oldestIdle), and this one is
	// not yet busy with anything.
	c.idleSince = s.cfg.Now()
	return evicted, true
}

// hogConns is how many connections make a process a hog: an eighth of the
// slots (sup's own clients use one or two per process).
func (s *Server) hogConns() int { return max(2, s.cfg.MaxConns/8) }

// unadmit gives c's slot back. s.mu is held.
func (s *Server) unadmit(c *conn) {
	if !c.admitted {
		return
	}
	c.admitted = false
	s.admitted--
	if s.perPID[c.peer.PID]--; s.perPID[c.peer.PID] <= 0 {
		delete(s.perPID, c.peer.PID)
	}
}

// oldestIdle is the connection to evict for a newcomer of process pid
// (see admit), or nil. s.mu is held.
func (s *Server) oldestIdle(pid int) *conn {
	limit := s.cfg.Now().Add(-s.cfg.EvictIdleAfter)
	hog, most := 0, 0
	for p, n := range s.perPID {
		if n > most {
			hog, most = p, n
		}
	}
	var oldest, oldestOfHog *conn
	for c := range s.conns {
		if !c.admitted || c.idleSince.IsZero() {
			continue
		}
		if !c.idleSince.After(limit) && (oldest == nil || c.idleSince.Before(oldest.idleSince)) {
			oldest = c
		}
		if most >= s.hogConns() && c.peer.PID == hog && hog != pid && (oldestOfHog == nil || c.idleSince.Before(oldestOfHog.idleSince)) {
			oldestOfHog = c
		}
	}
	if oldest != nil {
		return oldest
	}
	return oldestOfHog
}

// setIdle marks c idle (waiting for a request, or its frame still on the
// way: since that frame's first byte) or busy (handling). It
// reports false when c was evicted meanwhile: its slot is gone, and a
// request that raced the eviction is dropped with the connection.
func (s *Server) setIdle(c *conn, idle bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.evicted {
		return false
	}
	if idle {
		c.idleSince = s.cfg.Now()
	} else {
		c.idleSince = time.Time{}
	}
	return true
}

// wasEvicted reports whether c was closed to give its slot to a newcomer.
func (s *Server) wasEvicted(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return c.evicted
}

// reservedMethods are the methods that always find room: hooks (an
// agent's hooks must land, or its state goes stale), state (the operator's
// and every view's read), stop (the way out, with or without --force) and
// cancel_trigger (a waiting `sup trigger`'s Ctrl-C). Their handlers are
// quick. A call of any other method is a *waiting* call while its handler
// runs (a trigger with wait, an inject, a restart); waiting calls are what
// could otherwise pin every slot, since busy connections are never
// evicted. See specs/ipc.md, "Connection slots".
var reservedMethods = map[string]bool{
	MethodHook: true, MethodState: true, MethodStop: true, MethodCancelTrigger: true,
}

// holdSlot admits a held connection of c's — a waiting call (a method
// outside reservedMethods) or a subscription — into the budgets that keep
// room for reserved calls and for the operator: its peer process may hold
// at most MaxWaitingPerPeer, so may its agent session when Classify named
// one (conn.agent), and all connections together at most maxHeld. The
// per-process and per-agent caps count subscriptions and waiting calls
// together: the attack review's agent held 112 subscriptions from one
// process, which left no room for the operator's `answer`. Why the reserve
// holds although a slot is taken at accept, before the method is known:
// at most maxHeld connections are ever busy for long, so of the MaxConns
// slots at least MaxConns/8 are idle (evictable by a newcomer, see admit)
// or serve reserved calls, which end in milliseconds. A waiting call
// refused here gets the error and its connection is closed (see serve),
// so the slot frees at once — given back here already, before the answer
// is written, so that a process retrying in a loop never holds more than
// its waiting calls. A refused subscribe keeps its connection (idle,
// evictable). nil means held: pair it with unholdSlot.
func (s *Server) holdSlot(c *conn, waiting bool) *Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	what := "subscriptions"
	if waiting {
		what = "waiting calls"
	}
	refuse := func(e *Error) *Error {
		if waiting {
			s.unadmit(c)
		}
		return e
	}
	if c.agent != "" && s.heldByAg[c.agent] >= s.cfg.MaxWaitingPerPeer {
		return refuse(Errorf(CodeTooManyClients,
			"%s already has %d calls waiting or subscriptions on this server, its limit for one agent; no room for more %s (hook, state, stop and cancel_trigger are not limited)",
			c.agentLabel, s.heldByAg[c.agent], what))
	}
	if n := s.heldBy[c.peer.PID]; n >= s.cfg.MaxWaitingPerPeer {
		return refuse(Errorf(CodeTooManyClients,
			"process %d already has %d calls waiting or subscriptions on this server, its limit; no room for more %s (hook, state, stop and cancel_trigger are not limited)",
			c.peer.PID, n, what))
	}
	if s.held >= s.cfg.maxHeld() {
		return refuse(Errorf(CodeTooManyClients,
			"the server already has %d subscribed connections and waiting calls, its limit (%d of its %d slots stay for hook, state, stop and cancel_trigger); no room for more %s",
			s.held, s.cfg.MaxConns-s.cfg.maxHeld(), s.cfg.MaxConns, what))
	}
	s.held++
	s.heldBy[c.peer.PID]++
	if c.agent != "" {
		s.heldByAg[c.agent]++
	}
	return nil
}

// unholdSlot ends what holdSlot admitted. A hung-up client's call stays
// counted until its handler returns (handlers end soon once their context
// is cancelled), so handlers that are slow to notice stay bounded too.
func (s *Server) unholdSlot(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held--
	if s.heldBy[c.peer.PID]--; s.heldBy[c.peer.PID] <= 0 {
		delete(s.heldBy, c.peer.PID)
	}
	if c.agent != "" {
		if s.heldByAg[c.agent]--; s.heldByAg[c.agent] <= 0 {
			delete(s.heldByAg, c.agent)
		}
	}
}

// hangUp gives the slot of c back at once because its client hung up
// while a handler ran (conn.watchHangup): the handler's context is
// cancelled and its answer has no one to go to, so the slot need not wait
// for it. The connection is closed; its goroutine ends when the handler
// returns.
func (s *Server) hangUp(c *conn) {
	s.mu.Lock()
	c.hungUp = true
	s.unadmit(c)
	s.mu.Unlock()
	c.close()
}

func (s *Server) release(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
	s.unadmit(c)
}

// Shutdown stops accepting connections (unlinking the socket), lets the
// requests being handled finish and their answers reach the clients, for at
// most grace, then closes everything like Close. A `stop` request must see
// its answer even though answering it ends the server.
func (s *Server) Shutdown(grace time.Duration) error {
	s.mu.Lock()
	for ln := range s.listeners {
		ln.Close() // Best effort: Close below reports listener errors.
	}
	s.mu.Unlock()
	// Polling, not a WaitGroup: requests may still arrive on open
	// connections while we wait, and a WaitGroup may not grow from zero
	// during a Wait.
	deadline := time.Now().Add(grace)
	for s.inflight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	return s.Close()
}

// Close stops the server: it closes every listener (which, for listeners
// from Listen, unlinks the socket) and every connection, cancels handler
// contexts and waits for the connection goroutines to finish. Serve then
// returns nil. Close is idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	var errs []error
	for ln := range s.listeners {
		if err := ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
	}
	for c := range s.conns {
		c.close()
	}
	s.mu.Unlock()

	s.cancel()
	s.subMu.Lock()
	for sub := range s.subs {
		close(sub.ch)
	}
	s.subs = nil
	s.subMu.Unlock()

	s.wg.Wait()
	s.noisy.flush() // the last interval's suppressed warnings
	return errors.Join(errs...)
}
