//go:build linux

package broker

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/ipc"
)

// followBackoff bounds the wait before a dead relay is started again.
const (
	followBackoffMin = 250 * time.Millisecond
	followBackoffMax = 10 * time.Second
)

// FollowHost streams the events of h's supervisors through its relay until
// ctx ends, calling emit (from this goroutine) with each, Host set. A relay
// or ssh that dies is started again with backoff (report is told why),
// and each supervisor is resumed from the last seq emitted for it
// (relay.watch's since → subscribe's since_seq), so across a restart no
// event comes twice and none is lost while the supervisor still buffers
// it; when it no longer does, a "gap" event says so.
func (s SSH) FollowHost(ctx context.Context, h Host, emit func(SessionEvent), report func(error)) {
	last := map[string]uint64{}
	retryWithBackoff(ctx, "following", func() error { return s.followOnce(ctx, h, last, emit) }, report)
}

// followOnce runs one relay and streams its events until it ends.
func (s SSH) followOnce(ctx context.Context, h Host, last map[string]uint64, emit func(SessionEvent)) error {
	hc, err := s.DialHost(ctx, h, "")
	if err != nil {
		return err
	}
	defer hc.Close()
	callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := checkRelay(callCtx, hc, MethodRelayWatch); err != nil {
		return err
	}
	if err := hc.Client.Call(callCtx, MethodRelayWatch, RelayWatchParams{Since: maps.Clone(last)}, nil); err != nil {
		return hc.Explain(err)
	}
	// Since 0: the relay's own buffer from its start, so nothing it
	// published between relay.watch and here is missed.
	sub, _, err := hc.Client.SubscribeSince(callCtx, nil, 0)
	if err != nil {
		return hc.Explain(err)
	}
	cancel()
	for {
		ev, err := sub.Next()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return hc.Explain(fmt.Errorf("relay stream: %w", err))
		}
		se, ok := relayEvent(h.Name, ev)
		if !ok {
			continue
		}
		if se.Event == gapEvent {
			delete(last, se.Session) // what follows starts afresh
			emit(se)
			continue
		}
		if se.Seq <= last[se.Session] {
			continue // replayed and already emitted
		}
		last[se.Session] = se.Seq
		emit(se)
	}
}

// relayEvent unpacks a relay's session_event or session_gap.
func relayEvent(host string, ev ipc.Event) (SessionEvent, bool) {
	switch ev.Event {
	case RelayEvent:
		var d RelayEventData
		if ev.DecodeData(&d) != nil {
			return SessionEvent{}, false
		}
		return SessionEvent{Host: host, Session: d.SessionID, Name: safetext.Field(d.Name),
			Event: d.Event, Seq: d.Seq, At: d.At, Data: d.Data}, d.SessionID != ""
	case RelayGap:
		var d RelayGapData
		if ev.DecodeData(&d) != nil {
			return SessionEvent{}, false
		}
		return SessionEvent{Host: host, Session: d.SessionID, Name: safetext.Field(d.Name),
			Event: gapEvent, Seq: d.Seq, Data: map[string]any{"since": d.Since}}, d.SessionID != ""
	}
	return SessionEvent{}, false
}
