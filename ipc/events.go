package ipc

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"
)

// subscriber is one subscribed connection's queue of encoded event frames.
// Publish only ever does a non-blocking send on ch; the connection's
// goroutine drains it onto the socket. Whoever removes the subscriber from
// Server.subs closes ch (Publish on overflow, the connection when it ends,
// Close for all).
type subscriber struct {
	ch   chan []byte
	all  bool
	want map[string]bool
}

func (sub *subscriber) wants(event string) bool { return sub.all || sub.want[event] }

// Publish sends an event to every subscriber that asked for it. The server
// numbers events itself ("seq", from 1, increasing across all events of this
// server, so a subscriber filtering by name sees gaps) and stamps "at" with
// the current wall-clock time in unix milliseconds. data is one of the
// event types of eventdata.go for a supervisor's events (any value that
// encodes as a map for others'); it is encoded before Publish returns, so
// the caller may reuse it; nil is sent as an empty map.
//
// Publish never blocks on a subscriber: each has a bounded buffer
// (ServerConfig.EventBuffer), and one whose buffer is full is dropped (its
// connection is closed; it reconnects and re-reads state). Events whose name
// is not in ServerConfig.Events are a programming error: they are logged and
// not sent, so hello's event list stays the whole truth; so is an
// EventData published under another event's name.
func (s *Server) Publish(event string, data any) {
	if !s.evSet[event] {
		s.log.Error("ipc: Publish of an event not in ServerConfig.Events; not sent", "event", event)
		return
	}
	if d, ok := data.(EventData); ok && d.EventName() != event {
		s.log.Error("ipc: Publish of an event's data under another name; not sent", "event", event, "data", fmt.Sprintf("%T", data))
		return
	}
	if data == nil {
		data = struct{}{}
	}
	s.subMu.Lock()
	defer s.subMu.Unlock()
	if s.subs == nil { // closed
		return
	}
	s.seq++
	// Every event is encoded, subscribers or not: the replay buffer keeps
	// it for a subscriber that reconnects (subscribe's since_seq).
	frame := s.encodeEvent(&eventFrame{Event: event, Seq: s.seq, At: time.Now().UnixMilli(), Data: data})
	if frame == nil {
		return
	}
	s.replay.add(bufferedEvent{seq: s.seq, event: event, frame: frame})
	for sub := range s.subs {
		if !sub.wants(event) {
			continue
		}
		select {
		case sub.ch <- frame:
		default:
			delete(s.subs, sub)
			close(sub.ch)
		}
	}
}

// eventFrame is an event as the server writes it (Event is how clients
// read one).
type eventFrame struct {
	Event string `msgpack:"event"`
	Seq   uint64 `msgpack:"seq"`
	At    int64  `msgpack:"at"`
	Data  any    `msgpack:"data"`
}

// encodeEvent returns ev as a frame, or nil (logged) when it cannot be
// encoded or exceeds MaxFrame.
func (s *Server) encodeEvent(ev *eventFrame) []byte {
	eb := getEncBuf()
	defer putEncBuf(eb)
	if err := eb.frame(ev); err != nil {
		s.log.Error("ipc: cannot encode event; not sent", "event", ev.Event, "err", err)
		return nil
	}
	if n := eb.buf.Len() - frameHeaderLen; n > s.cfg.MaxFrame {
		s.log.Error("ipc: event larger than MaxFrame; not sent", "event", ev.Event, "size", n, "max", s.cfg.MaxFrame)
		return nil
	}
	return bytes.Clone(eb.buf.Bytes())
}

func (s *Server) unsubscribe(sub *subscriber) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	if _, ok := s.subs[sub]; ok {
		delete(s.subs, sub)
		close(sub.ch)
	}
}

// subscribe answers a subscribe request. If the request is invalid it sends
// the error and reports false: the connection goes on taking requests.
// Otherwise the connection becomes an event stream until it ends, and
// subscribe reports true.
func (c *conn) subscribe(req *Request) bool {
	s := c.srv
	var p SubscribeParams
	if err := req.DecodeParams(&p); err != nil {
		return !c.respond(req.ID, nil, err)
	}
	sub := &subscriber{ch: make(chan []byte, s.cfg.EventBuffer)}
	var names []string
	if len(p.Events) == 0 {
		sub.all = true
		names = append([]string{}, s.events...)
	} else {
		sub.want = map[string]bool{}
		for _, e := range p.Events {
			if !s.evSet[e] {
				known := strings.Join(s.events, ", ")
				if known == "" {
					known = "none"
				}
				return !c.respond(req.ID, nil, Errorf(CodeBadRequest, "unknown event %q; known events: %s", e, known))
			}
			if !sub.want[e] {
				sub.want[e] = true
				names = append(names, e)
			}
		}
		sort.Strings(names)
	}

	// Register before answering, so that no event published after the
	// answer is missed; events published meanwhile wait in the buffer.
	// The replay goes into the same buffer first, under the same lock, so
	// it and the live events neither overlap nor leave a hole.
	// A subscription holds its slot for good: it counts against the same
	// budget as waiting calls (Server.holdSlot), so followers cannot take
	// the slots kept for hooks, state and stop.
	if e := s.holdSlot(c, false); e != nil {
		s.noisy.warn(c.log, NoisyTooManyClients, "ipc: refused subscribe: held connections full", "msg", e.Message)
		e.Message += "; this connection still takes requests"
		return !c.respond(req.ID, nil, e)
	}
	defer s.unholdSlot(c)
	s.subMu.Lock()
	if s.subs == nil {
		s.subMu.Unlock()
		return true
	}
	res := SubscribeResult{Events: names, Seq: s.seq}
	if p.SinceSeq != nil {
		res.Gap = s.replay.replay(*p.SinceSeq, s.seq, sub)
	}
	s.subs[sub] = struct{}{}
	s.subMu.Unlock()
	defer s.unsubscribe(sub)

	if !c.respond(req.ID, res, nil) {
		return true
	}
	c.log.Debug("ipc: subscribed", "events", names)

	// From here the client may only listen. Any byte from it (or its
	// hanging up) ends the stream; without this reader a vanished
	// subscriber would hold its MaxConns slot until the next event write
	// failed.
	c.nc.SetReadDeadline(time.Time{})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		var b [1]byte
		if n, _ := c.br.Read(b[:]); n > 0 {
			c.log.Info("ipc: client sent data on a subscribed connection; closing")
		}
		c.close()
	}()

	for {
		select {
		case frame, ok := <-sub.ch:
			if !ok {
				if !s.isClosed() {
					c.log.Warn("ipc: dropping subscriber that cannot keep up", "buffer", s.cfg.EventBuffer)
				}
				return true
			}
			if !c.write(frame) {
				select {
				case <-c.done: // closed by the client or by Close
				default:
					c.log.Warn("ipc: dropping subscriber: event write failed or timed out")
				}
				return true
			}
		case <-c.done:
			return true
		}
	}
}
