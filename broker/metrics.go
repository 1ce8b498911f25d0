//go:build linux

package broker

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Every lifecycle and activity a state can report: each session exports
// one 0/1 series per value (a Prometheus state set), so a value that is
// never current still exists and rates and alerts work.
var (
	lifecycles = []string{"starting", "running", "restarting", "exited", "halted", "stopped"}
	activities = []string{"unknown", "ready", "busy", "needs_confirmation", "error"}
)

// WriteMetrics writes the Prometheus text exposition (format 0.0.4) of
// every session's state: labelled by session, name, workspace, role and
// profile. unanswered counts the sockets that did not answer.
func WriteMetrics(w io.Writer, sessions []Session, unanswered int, now time.Time) error {
	m := &metricWriter{w: w}
	q := Queue(sessions, now)
	m.family("sup_sessions", "gauge", "Live supervisors that answered.")
	m.sample("sup_sessions", "", float64(len(sessions)))
	m.family("sup_discovery_unanswered", "gauge", "Sockets that did not answer the state call.")
	m.sample("sup_discovery_unanswered", "", float64(unanswered))
	m.family("sup_queue_length", "gauge", "Sessions waiting on the human that may be head (not cooling after a skip).")
	m.sample("sup_queue_length", "", float64(Eligible(q)))
	m.family("sup_queue_cooling", "gauge", "Sessions waiting on the human inside a skip cooldown.")
	m.sample("sup_queue_cooling", "", float64(len(q)-Eligible(q)))

	m.family("sup_session_lifecycle", "gauge", "1 for the session's lifecycle, 0 for the others.")
	for _, s := range sessions {
		for _, l := range lifecycles {
			m.sample("sup_session_lifecycle", labels(s, "lifecycle", l), bool01(s.State.Lifecycle == l))
		}
	}
	m.family("sup_session_activity", "gauge", "1 for the agent's activity, 0 for the others.")
	for _, s := range sessions {
		for _, a := range activities {
			m.sample("sup_session_activity", labels(s, "activity", a), bool01(s.State.Activity == a))
		}
	}
	m.family("sup_session_waiting_seconds", "gauge", "How long the session has waited on the human; 0 when it does not.")
	for _, s := range sessions {
		v := 0.0
		if s.State.WaitingSince != 0 {
			v = max(now.Sub(time.UnixMilli(s.State.WaitingSince)).Seconds(), 0)
		}
		m.sample("sup_session_waiting_seconds", labels(s), v)
	}
	m.family("sup_session_skip_cooling", "gauge", "1 while a skip keeps the session from being queue head.")
	for _, s := range sessions {
		m.sample("sup_session_skip_cooling", labels(s), bool01(s.State.SkipUntil > now.UnixMilli()))
	}
	m.family("sup_session_operator_busy", "gauge", "1 while the human types in the pane or left a draft.")
	for _, s := range sessions {
		m.sample("sup_session_operator_busy", labels(s), bool01(s.State.OperatorBusy))
	}
	m.family("sup_session_restarts_total", "counter", "Restarts of the agent since its supervisor started.")
	for _, s := range sessions {
		m.sample("sup_session_restarts_total", labels(s), float64(s.State.RestartCount))
	}
	m.family("sup_session_triggers_total", "counter", "Triggers by outcome since the supervisor started.")
	for _, s := range sessions {
		outcomes := make([]string, 0, len(s.State.Triggers))
		for o := range s.State.Triggers {
			outcomes = append(outcomes, o)
		}
		sort.Strings(outcomes)
		for _, o := range outcomes {
			m.sample("sup_session_triggers_total", labels(s, "outcome", o), float64(s.State.Triggers[o]))
		}
	}
	return m.err
}

type metricWriter struct {
	w   io.Writer
	err error
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
	m.printf("%s%s %g\n", name, labels, v)
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// labels is the session's label set plus extra name/value pairs.
func labels(s Session, extra ...string) string {
	st := s.State
	kv := append([]string{"session", st.SessionID, "name", st.Name, "workspace", st.Workspace, "role", st.Role, "profile", st.Profile}, extra...)
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
