//go:build linux

package broker

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// Every lifecycle, activity and health a state can report: each session
// exports one 0/1 series per value (a Prometheus state set), so a value that
// is never current still exists and rates and alerts work.
var (
	lifecycles = []string{"starting", "running", "restarting", "exited", "halted", "stopped"}
	activities = []string{"unknown", "ready", "busy", "needs_confirmation", "error"}
	healths    = []string{"healthy", "degraded", "halted"}
)

// Snapshot is what one exposition shows: the sessions that answered, their
// supervisors' counters and histograms (the `metrics` method; by socket,
// absent for a supervisor that does not answer it) and the sockets that did
// not answer.
type Snapshot struct {
	Sessions   []Listing
	Metrics    map[string]ipc.MetricsResult // by MetricsKey
	Unanswered int
	// LocalHost, when set (hosts: are configured), labels this host's
	// sessions host="…" as the other hosts' are by their names.
	LocalHost string
	// HostUp says, per host, whether it answered (sup_host_up); empty
	// without hosts.
	HostUp map[string]bool
}

// MetricsKey is a session's key in Snapshot.Metrics: its socket, with its
// host for another host's (the same path may exist on two hosts).
func MetricsKey(s Listing) string {
	if s.Host == "" {
		return s.Socket
	}
	return s.Host + ":" + s.Socket
}

// WriteMetrics writes the Prometheus text exposition (format 0.0.4) of a
// snapshot: fleet-wide series, then per-session ones labelled by session,
// name, workspace, role and profile.
func WriteMetrics(w io.Writer, snap Snapshot, now time.Time) error {
	m := &metricWriter{w: w, localHost: snap.LocalHost}
	sessions := snap.Sessions
	q := Queue(sessions, now)
	m.family("sup_sessions", "gauge", "Live supervisors that answered.")
	m.sample("sup_sessions", "", float64(len(sessions)))
	m.family("sup_discovery_unanswered", "gauge", "Sockets that did not answer the state call.")
	m.sample("sup_discovery_unanswered", "", float64(snap.Unanswered))
	if len(snap.HostUp) > 0 {
		m.family("sup_host_up", "gauge", "1 when the host (hosts: in config.yaml, and this one) answered, 0 when it was unreachable, refused the key or runs an older sup.")
		for _, h := range slices.Sorted(maps.Keys(snap.HostUp)) {
			m.sample("sup_host_up", `host="`+escapeLabel(h)+`"`, bool01(snap.HostUp[h]))
		}
	}
	m.family("sup_sessions_by_activity", "gauge", "Sessions by the agent's activity.")
	for _, a := range activities {
		n := 0
		for _, s := range sessions {
			if s.State.Activity == a {
				n++
			}
		}
		m.sample("sup_sessions_by_activity", `activity="`+a+`"`, float64(n))
	}
	m.family("sup_queue_length", "gauge", "Stuck sessions: waiting on the human and not cooling after a skip (what the status line counts).")
	m.sample("sup_queue_length", "", float64(Eligible(q)))
	m.family("sup_queue_cooling", "gauge", "Sessions waiting on the human inside a skip cooldown.")
	m.sample("sup_queue_cooling", "", float64(len(q)-Eligible(q)))
	m.family("sup_queue_oldest_wait_seconds", "gauge", "How long the queue's head has waited on the human; 0 when nothing waits.")
	oldest := 0.0
	if h, ok := Head(q); ok {
		oldest = waitingSeconds(h.State, now)
	}
	m.sample("sup_queue_oldest_wait_seconds", "", oldest)

	m.stateSet("sup_session_lifecycle", "1 for the session's lifecycle, 0 for the others.", sessions, "lifecycle", lifecycles,
		func(st ipc.State) string { return st.Lifecycle })
	m.stateSet("sup_session_activity", "1 for the agent's activity, 0 for the others.", sessions, "activity", activities,
		func(st ipc.State) string { return st.Activity })
	m.stateSet("sup_session_health", "1 for the session's health, 0 for the others.", sessions, "health", healths,
		func(st ipc.State) string { return st.Health })
	m.perSession("sup_session_waiting_seconds", "gauge", "How long the session has waited on the human; 0 when it does not.", sessions,
		func(st ipc.State) float64 { return waitingSeconds(st, now) })
	m.perSession("sup_session_skip_cooling", "gauge", "1 while a skip keeps the session from being queue head.", sessions,
		func(st ipc.State) float64 { return bool01(st.SkipUntil > now.UnixMilli()) })
	m.perSession("sup_session_operator_busy", "gauge", "1 while the human types in the pane or left a draft.", sessions,
		func(st ipc.State) float64 { return bool01(st.OperatorBusy) })
	m.perSession("sup_session_start_time_seconds", "gauge", "When the supervisor started, in unix seconds.", sessions,
		func(st ipc.State) float64 { return float64(st.StartedAt) / 1000 })
	m.perSession("sup_session_restarts_total", "counter", "Restarts of the agent since its supervisor started.", sessions,
		func(st ipc.State) float64 { return float64(st.RestartCount) })
	m.perSession("sup_session_pending_triggers", "gauge", "Triggers queued or being delivered.", sessions,
		func(st ipc.State) float64 { return float64(st.PendingTriggers) })
	m.family("sup_session_triggers_total", "counter", "Triggers by final outcome since the supervisor started.")
	for _, s := range sessions {
		for _, o := range slices.Sorted(maps.Keys(s.State.Triggers)) {
			m.sample("sup_session_triggers_total", m.labels(s, "outcome", o), float64(s.State.Triggers[o]))
		}
	}
	m.supervisorMetrics(snap)
	return m.err
}

func waitingSeconds(st ipc.State, now time.Time) float64 {
	if st.WaitingSince == 0 {
		return 0
	}
	return max(now.Sub(time.UnixMilli(st.WaitingSince)).Seconds(), 0)
}

type metricWriter struct {
	w         io.Writer
	err       error
	localHost string // Snapshot.LocalHost
}

func (m *metricWriter) printf(format string, args ...any) {
	if m.err == nil {
		_, m.err = fmt.Fprintf(m.w, format, args...)
	}
}

func (m *metricWriter) family(name, typ, help string) {
	m.printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

func (m *metricWriter) sample(name, labels string, v float64) {
	if labels != "" {
		labels = "{" + labels + "}"
	}
	m.printf("%s%s %s\n", name, labels, formatValue(v))
}

// formatValue writes a sample value as the text format spells it.
func formatValue(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// stateSet writes one 0/1 series per possible value of a session field.
func (m *metricWriter) stateSet(name, help string, sessions []Listing, label string, values []string, of func(ipc.State) string) {
	m.family(name, "gauge", help)
	for _, s := range sessions {
		cur := of(s.State)
		for _, v := range values {
			m.sample(name, m.labels(s, label, v), bool01(cur == v))
		}
	}
}

// perSession writes one series per session.
func (m *metricWriter) perSession(name, typ, help string, sessions []Listing, value func(ipc.State) float64) {
	m.family(name, typ, help)
	for _, s := range sessions {
		m.sample(name, m.labels(s), value(s.State))
	}
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// labels is the session's label set plus extra name/value pairs; with
// hosts, host comes first.
func (m *metricWriter) labels(s Listing, extra ...string) string {
	st := s.State
	var kv []string
	if host := orDefault(s.Host, m.localHost); host != "" {
		kv = append(kv, "host", host)
	}
	kv = append(append(kv, "session", st.SessionID, "name", st.Name, "workspace", st.Workspace, "role", st.Role, "profile", st.Profile), extra...)
	parts := make([]string, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, kv[i]+`="`+escapeLabel(kv[i+1])+`"`)
	}
	return strings.Join(parts, ",")
}

// escapeLabel escapes a label value as the text format requires:
// backslash, double quote and line feed.
var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func escapeLabel(v string) string { return labelEscaper.Replace(v) }
