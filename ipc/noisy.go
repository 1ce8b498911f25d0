package ipc

import (
	"log/slog"
	"sort"
	"sync"
	"time"
)

// Kinds of repeated warnings the server rate-limits (Server.Warn) and
// counts (Server.NoisyCounters): the inputs a looping buggy client or
// plugin can send thousands of times.
const (
	NoisyRefusedPeer    = "refused_peer"     // another uid, or credentials unreadable
	NoisyTooManyClients = "too_many_clients" // past MaxConns
	NoisyBadFrame       = "bad_frame"        // empty, incomplete or cut-off frame
	NoisyOversize       = "oversize_request" // frame over MaxFrame
	NoisyBadRequest     = "bad_request"      // a frame that is not a valid request
	NoisyUnknownMethod  = "unknown_method"
	NoisyBadHook        = "bad_hook" // a hook request refused as BAD_REQUEST
	// NoisyHookIgnored: a valid hook the supervisor ignored (no agent
	// running, another agent session's id); a stale hook fires as often.
	NoisyHookIgnored = "hook_ignored"
	// NoisyNotAllowed is a call refused NOT_ALLOWED (the supervisor's
	// policy: an agent answering, injecting, forcing, or a hook from
	// another session's agent).
	NoisyNotAllowed = "not_allowed"
)

// Defaults of ServerConfig.NoisyBurst and NoisyInterval.
const (
	DefaultNoisyBurst    = 5
	DefaultNoisyInterval = time.Minute
)

// noisy rate-limits warnings per kind: in each interval (starting at the
// kind's first warning after a quiet one) the first burst are logged in
// full, the rest only counted; the next warning of that kind after the
// interval, or Close, logs one summary line with how many were suppressed.
// So a kind writes at most burst+1 lines per interval however hard it is
// hit. No timer runs: a storm that stops is summarised by the next warning
// or at Close, and the counters always have the whole count.
type noisy struct {
	log      *slog.Logger
	now      func() time.Time
	burst    int
	interval time.Duration

	mu    sync.Mutex
	kinds map[string]*noisyKind
}

type noisyKind struct {
	total      int64
	start      time.Time // of the current interval
	logged     int       // full lines in it
	suppressed int64     // warnings counted but not logged in it
}

func newNoisy(log *slog.Logger, now func() time.Time, burst int, interval time.Duration) *noisy {
	return &noisy{log: log, now: now, burst: burst, interval: interval, kinds: map[string]*noisyKind{}}
}

// warn counts one warning of kind and logs it unless its interval's burst
// is spent.
func (n *noisy) warn(log *slog.Logger, kind, msg string, args ...any) {
	now := n.now()
	n.mu.Lock()
	k := n.kinds[kind]
	if k == nil {
		k = &noisyKind{start: now}
		n.kinds[kind] = k
	}
	k.total++
	var summary int64
	if now.Sub(k.start) >= n.interval {
		summary, k.suppressed, k.logged, k.start = k.suppressed, 0, 0, now
	}
	full := k.logged < n.burst
	if full {
		k.logged++
	} else {
		k.suppressed++
	}
	n.mu.Unlock()
	if summary > 0 {
		n.summarise(kind, summary)
	}
	if full {
		log.Warn(msg, append(args, "kind", kind)...)
	}
}

func (n *noisy) summarise(kind string, suppressed int64) {
	n.log.Warn("ipc: repeated warnings suppressed", "kind", kind, "suppressed", suppressed, "burst", n.burst, "interval", n.interval)
}

// flush logs the summary of every kind with suppressed warnings.
func (n *noisy) flush() {
	n.mu.Lock()
	pending := map[string]int64{}
	for kind, k := range n.kinds {
		if k.suppressed > 0 {
			pending[kind], k.suppressed = k.suppressed, 0
		}
	}
	n.mu.Unlock()
	kinds := make([]string, 0, len(pending))
	for kind := range pending {
		kinds = append(kinds, kind)
	}
	sort.Strings(kinds)
	for _, kind := range kinds {
		n.summarise(kind, pending[kind])
	}
}

func (n *noisy) counters() map[string]int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make(map[string]int64, len(n.kinds))
	for kind, k := range n.kinds {
		out["ipc_"+kind+"_total"] = k.total
	}
	return out
}

// Warn logs a warning of a noisy kind through the server's rate limit and
// counts it: the first NoisyBurst of an interval in full, then one summary
// line. For warnings a client can cause at will (the supervisor's hook path
// uses it too); kind is one of the Noisy* constants or a new snake_case name.
func (s *Server) Warn(kind, msg string, args ...any) { s.noisy.warn(s.log, kind, msg, args...) }

// NoisyCounters returns, for each kind Warn was called with, the total so
// far (logged or suppressed) as "ipc_<kind>_total", for the metrics method.
// Kinds never seen are absent, as metrics counters appear once non-zero.
func (s *Server) NoisyCounters() map[string]int64 { return s.noisy.counters() }
