//go:build linux

package broker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/ipc"
)

// HostResult is one host's part of a fan-out across hosts.
type HostResult struct {
	Host     string // its name; the local host's is LocalHostName
	Local    bool
	Sessions []Listing                    // Host set for a remote host's
	Errors   []SocketError                // its sockets that did not answer
	Metrics  map[string]ipc.MetricsResult // with Fanout.Metrics: by MetricsKey
	Err      error                        // *HostError: the host itself did not answer
	Elapsed  time.Duration
}

// Fanout is where a fan-out looks: the local runtime dir and the hosts.
type Fanout struct {
	RuntimeDir string
	Hosts      []Host
	SSH        SSH
	Timeout    time.Duration // each supervisor's answer
	Deadline   time.Duration // each remote host's whole answer, connection included
	Metrics    bool          // ask each supervisor's metrics too (HostResult.Metrics)
	// local reads this host's part (Discover when nil; List for display).
	local func(context.Context, string, time.Duration) (Result, error)
}

// DiscoverHosts asks the local supervisors and every host's relay at once:
// each host has its own deadline, so a host that is down, slow, refuses
// the key or runs an older sup costs only its own column, and the local
// part never waits for more than the slowest host's deadline. What a
// remote host answered (or why not) is written to the host cache for
// `sup status-line`.
func (f Fanout) DiscoverHosts(ctx context.Context, local bool) []HostResult {
	var (
		wg  sync.WaitGroup
		out = make([]HostResult, len(f.Hosts)+1)
	)
	if local {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			r := HostResult{Host: LocalHostName(), Local: true}
			if f.Metrics {
				var snap Snapshot
				snap, r.Err = CollectMetrics(ctx, f.RuntimeDir, f.Timeout)
				r.Sessions, r.Metrics = snap.Sessions, snap.Metrics
				for range snap.Unanswered {
					r.Errors = append(r.Errors, SocketError{Socket: "?", Err: errors.New("did not answer")})
				}
			} else {
				var res Result
				local := f.local
				if local == nil {
					local = Discover
				}
				res, r.Err = local(ctx, f.RuntimeDir, f.Timeout)
				r.Sessions, r.Errors = res.Sessions, res.Errors
			}
			r.Elapsed = time.Since(start)
			out[0] = r
		}()
	}
	for i, h := range f.Hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			r := f.listHost(ctx, h)
			r.Elapsed = time.Since(start)
			WriteHostCache(f.RuntimeDir, r, time.Now()) // Best effort: the status line's copy.
			out[i+1] = r
		}()
	}
	wg.Wait()
	if !local {
		out = out[1:]
	}
	return out
}

// listHost asks h's relay for its supervisors within the deadline.
func (f Fanout) listHost(ctx context.Context, h Host) HostResult {
	r := HostResult{Host: h.Name}
	ctx, cancel := context.WithTimeout(ctx, f.Deadline)
	defer cancel()
	hc, err := f.SSH.DialHost(ctx, h, "")
	if err != nil {
		r.Err = err
		return r
	}
	defer hc.Close()
	var list RelayListResult
	_, err = checkRelay(ctx, hc, MethodRelayList)
	if err == nil {
		err = hc.Client.Call(ctx, MethodRelayList, RelayListParams{TimeoutMS: f.Timeout.Milliseconds(), Metrics: f.Metrics}, &list)
	}
	if err != nil {
		if ctx.Err() != nil {
			err = &HostError{Host: h.Name, Status: HostUnreachable, Reason: fmt.Sprintf("no answer within %s", f.Deadline)}
		}
		r.Err = hc.Explain(err)
		return r
	}
	r.Metrics = map[string]ipc.MetricsResult{}
	for _, s := range list.Sessions {
		se := Listing{Socket: s.Socket, State: fromRemote(s.State), Host: h.Name}
		r.Sessions = append(r.Sessions, se)
		if s.Metrics != nil {
			r.Metrics[MetricsKey(se)] = *s.Metrics
		}
	}
	for _, e := range list.Errors {
		r.Errors = append(r.Errors, SocketError{Socket: h.Name + ":" + e.Socket, Err: errors.New(e.Error)})
	}
	return r
}

// AllSessions merges the hosts' sessions (local first, then the hosts in
// their order) for verbs that take one list.
func AllSessions(results []HostResult) []Listing {
	var all []Listing
	for _, r := range results {
		all = append(all, r.Sessions...)
	}
	return all
}

// SelectHosts picks the hosts --host names: "all" (or "") every host,
// else one host by name (the local one too). The result says whether the
// local host is in it.
func SelectHosts(hosts []Host, name string) (remote []Host, local bool, err error) {
	switch name {
	case LocalHostName():
		return nil, true, nil
	case "", "all":
		return hosts, true, nil
	}
	for _, h := range hosts {
		if h.Name == name {
			return []Host{h}, false, nil
		}
	}
	valid := "all, " + LocalHostName()
	for _, h := range hosts {
		valid += ", " + h.Name
	}
	return nil, false, fmt.Errorf("--host %q: no such host; valid: %s (hosts: in config.yaml)", name, valid)
}

// HostsSnapshot merges the hosts' answers into one metrics snapshot,
// every session labelled with its host; a host that did not answer
// counts as one unanswered.
func HostsSnapshot(results []HostResult) Snapshot {
	snap := Snapshot{Metrics: map[string]ipc.MetricsResult{}, LocalHost: LocalHostName(), HostUp: map[string]bool{}}
	for _, r := range results {
		snap.HostUp[r.Host] = r.Err == nil
		snap.Sessions = append(snap.Sessions, r.Sessions...)
		maps.Copy(snap.Metrics, r.Metrics)
		snap.Unanswered += len(r.Errors)
		if r.Err != nil {
			snap.Unanswered++
		}
	}
	return snap
}

// fromRemote is a state another host sent, its text sanitised on arrival
// (specs/security.md, "Untrusted text"): every label and text field a
// safetext.Field, so no remote name reaches a terminal or tmux raw
// whatever prints it. The identifiers sup sends back to that host (the
// session and prompt ids, the pane and its server) stay as they came:
// they are only ever shell-quoted words of the ssh command line.
func fromRemote(st ipc.State) ipc.State {
	safe := safetext.Copy(st)
	safe.SessionID, safe.PromptID, safe.TmuxPane, safe.TmuxSocket = st.SessionID, st.PromptID, st.TmuxPane, st.TmuxSocket
	return safe
}
