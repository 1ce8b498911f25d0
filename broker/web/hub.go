//go:build linux

package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"sort"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/ipc"
)

// Bounds on what one row carries to the page: a 1 MB summary line must
// not become 1 MB per event per page.
const (
	maxSummary = 4 << 10
	maxScreen  = 64 << 10
	// pageQueue is how many events a page may have pending before it is
	// dropped (its EventSource reconnects and gets a fresh snapshot).
	pageQueue = 256
)

// Row is one session as the page sees it (specs/web.md, "Rows").
type Row struct {
	ID            string             `json:"id"`
	Host          string             `json:"host"` // "" for this host
	Name          string             `json:"name"`
	SessionID     string             `json:"session_id"`
	Document      string             `json:"document"`
	Workspace     string             `json:"workspace"`
	Profile       string             `json:"profile"`
	Lifecycle     string             `json:"lifecycle"`
	Activity      string             `json:"activity"`
	Reason        string             `json:"reason"`
	Summary       string             `json:"summary"`
	WaitingSince  int64              `json:"waiting_since"`
	SkipUntil     int64              `json:"skip_until"`
	OperatorBusy  bool               `json:"operator_busy"`
	Health        string             `json:"health"`
	PromptID      string             `json:"prompt_id"`
	PromptChoices []string           `json:"prompt_choices"`
	PromptOptions []ipc.PromptOption `json:"prompt_options"`
	PromptDetail  string             `json:"prompt_detail"`
	// ScreenSeq counts the screen's re-reads (0: none yet); the page
	// fetches the text (GET /api/screen) only for an open preview, so the
	// snapshot and the events stay small.
	ScreenSeq  int    `json:"screen_seq"`
	screen     string // the screen model's text
	screenCols int
	listing    broker.Listing
}

// rowID is a row's key for the page: opaque, stable while the supervisor
// keeps its socket, and free of paths.
func rowID(l broker.Listing) string {
	sum := sha256.Sum256([]byte(l.Host + "\x00" + l.Socket))
	return hex.EncodeToString(sum[:8])
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… [cut]"
}

func newRow(l broker.Listing) *Row {
	st := l.State
	return &Row{
		ID: rowID(l), Host: l.Host, Name: st.Name, SessionID: st.SessionID, Document: st.Document,
		Workspace: st.Workspace, Profile: st.Profile, Lifecycle: st.Lifecycle, Activity: st.Activity,
		Reason: st.Reason, Summary: clip(st.Summary, maxSummary), WaitingSince: st.WaitingSince,
		SkipUntil: st.SkipUntil, OperatorBusy: st.OperatorBusy, Health: st.Health,
		PromptID: st.PromptID, PromptChoices: st.PromptChoices, PromptOptions: st.PromptOptions,
		PromptDetail: clip(st.PromptDetail, ipc.MaxPromptDetail), listing: l,
	}
}

// message is one server-sent event's data.
type message struct {
	Type  string            `json:"type"` // snapshot, session, gone, hosts
	Rows  []*Row            `json:"rows,omitempty"`
	Row   *Row              `json:"row,omitempty"`
	ID    string            `json:"id,omitempty"`
	Hosts map[string]string `json:"hosts,omitempty"` // host → "" (up) or why it is down
	Dir   string            `json:"dir,omitempty"`   // snapshot: "missing" when the runtime dir is
	Now   int64             `json:"now"`             // the server's clock, unix ms
}

// page is one open EventSource.
type page struct {
	ch      chan []byte
	dropped chan struct{} // closed when the hub gave up on it
}

// Hub is the one follower of every supervisor and the open pages it
// feeds.
type Hub struct {
	now    func() time.Time
	log    *slog.Logger
	screen func(ctx context.Context, l broker.Listing) (ipc.ScreenResult, error)
	// retry is the first pause before a timed-out screen read is tried
	// again (screenRetry; tests shorten it).
	retry time.Duration

	mu         sync.Mutex
	rows       map[string]*Row
	hosts      map[string]string
	dirMissing bool
	pages      map[*page]struct{}
	reading    map[string]bool // rows whose screen is being read
	stale      map[string]bool // rows whose screen changed while read
	ctx        context.Context
}

func newHub(now func() time.Time, log *slog.Logger, screen func(context.Context, broker.Listing) (ipc.ScreenResult, error)) *Hub {
	return &Hub{now: now, log: log, screen: screen, retry: screenRetry, rows: map[string]*Row{}, hosts: map[string]string{},
		pages: map[*page]struct{}{}, reading: map[string]bool{}, stale: map[string]bool{}, ctx: context.Background()}
}

// apply takes one change from Watch or WatchHost.
func (h *Hub) apply(c broker.Change) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch c.Kind {
	case broker.SessionUpdated:
		r := newRow(c.Session)
		if old, ok := h.rows[r.ID]; ok {
			r.screen, r.screenCols, r.ScreenSeq = old.screen, old.screenCols, old.ScreenSeq
		}
		h.rows[r.ID] = r
		h.broadcast(message{Type: "session", Row: r})
		h.readScreen(r.ID)
	case broker.SessionGone:
		id := rowID(c.Session)
		if _, ok := h.rows[id]; ok {
			delete(h.rows, id)
			h.broadcast(message{Type: "gone", ID: id})
		}
	case broker.DirMissing, broker.DirPresent:
		h.dirMissing = c.Kind == broker.DirMissing
	case broker.HostUp, broker.HostDown:
		why := ""
		if c.Kind == broker.HostDown {
			why = "down"
			if c.Err != nil {
				why = c.Err.Error()
			}
			for id, r := range h.rows { // its rows are gone until it is back
				if r.Host == c.Host {
					delete(h.rows, id)
					h.broadcast(message{Type: "gone", ID: id})
				}
			}
		}
		h.hosts[c.Host] = why
		h.broadcast(message{Type: "hosts", Hosts: h.hostsCopy()})
	}
}

func (h *Hub) hostsCopy() map[string]string {
	m := make(map[string]string, len(h.hosts))
	for k, v := range h.hosts {
		m[k] = v
	}
	return m
}

// A screen read that timed out is tried again after screenRetry, then
// twice as long each time, screenRetries times (the last 16 s after the
// one before).
const (
	screenRetry   = 500 * time.Millisecond
	screenRetries = 6
)

// readScreen re-reads row id's screen aside, one read per row at a time:
// a change during a read asks for one more read after it, so a burst of
// events costs two reads, not one per event. h.mu held.
func (h *Hub) readScreen(id string) {
	if h.screen == nil {
		return
	}
	if h.reading[id] {
		h.stale[id] = true
		return
	}
	h.reading[id] = true
	r := h.rows[id]
	go func() {
		retry, tries := h.retry, 0
		for {
			ctx, cancel := context.WithTimeout(h.ctx, 2*time.Second)
			res, err := h.screen(ctx, r.listing)
			cancel()
			h.mu.Lock()
			cur, ok := h.rows[id]
			if text := clip(res.Text, maxScreen); err == nil && ok && (text != cur.screen || cur.ScreenSeq == 0) {
				cur.screen, cur.screenCols = text, res.Cols
				cur.ScreenSeq++
				h.broadcast(message{Type: "session", Row: cur})
			} else if err != nil {
				h.log.Debug("web: screen", "session", r.Name, "err", err)
			}
			var answered *ipc.Error
			if err != nil && ok && !errors.As(err, &answered) && tries < screenRetries && h.ctx.Err() == nil {
				// Not read, and not refused: the supervisor did not answer
				// in time (a loaded machine, a large screen). Nothing else
				// asks again until the session changes, so the row would
				// stay without its screen: read again after a pause.
				h.mu.Unlock()
				select {
				case <-time.After(retry):
				case <-h.ctx.Done():
				}
				retry, tries = 2*retry, tries+1
				h.mu.Lock()
				if cur, ok = h.rows[id]; ok && h.ctx.Err() == nil {
					delete(h.stale, id)
					r = cur
					h.mu.Unlock()
					continue
				}
			}
			if !ok || !h.stale[id] || h.ctx.Err() != nil {
				delete(h.reading, id)
				delete(h.stale, id)
				h.mu.Unlock()
				return
			}
			delete(h.stale, id)
			r = cur
			h.mu.Unlock()
		}
	}()
}

// broadcast queues m for every page; a page whose queue is full is
// dropped. h.mu held.
func (h *Hub) broadcast(m message) {
	if len(h.pages) == 0 {
		return
	}
	m.Now = h.now().UnixMilli()
	b, err := json.Marshal(m)
	if err != nil {
		h.log.Error("web: encode event", "err", err)
		return
	}
	frame := sseFrame(m.Type, b)
	for p := range h.pages {
		select {
		case p.ch <- frame:
		default:
			delete(h.pages, p)
			close(p.dropped)
			h.log.Warn("web: a page fell behind; dropped it (it reconnects)", "queued", pageQueue)
		}
	}
}

func sseFrame(event string, data []byte) []byte {
	b := make([]byte, 0, len(data)+len(event)+16)
	b = append(b, "event: "...)
	b = append(b, event...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// snapshot is every row, the queue first (oldest waiting first, the
// cooling ones after), then the others by name.
func (h *Hub) snapshotLocked() message {
	rows := make([]*Row, 0, len(h.rows))
	for _, r := range h.rows {
		rows = append(rows, r)
	}
	nowMS := h.now().UnixMilli()
	rank := func(r *Row) int {
		switch {
		case r.WaitingSince == 0:
			return 2
		case r.SkipUntil > nowMS:
			return 1
		}
		return 0
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		if a.WaitingSince != b.WaitingSince {
			return a.WaitingSince < b.WaitingSince
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
	m := message{Type: "snapshot", Rows: rows, Hosts: h.hostsCopy(), Now: nowMS}
	if h.dirMissing {
		m.Dir = "missing"
	}
	return m
}

// join opens a page: its first frame is the snapshot. ok is false when
// MaxPages are open.
func (h *Hub) join(max int) (p *page, first []byte, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.pages) >= max {
		return nil, nil, false
	}
	b, err := json.Marshal(h.snapshotLocked())
	if err != nil {
		return nil, nil, false
	}
	p = &page{ch: make(chan []byte, pageQueue), dropped: make(chan struct{})}
	h.pages[p] = struct{}{}
	return p, sseFrame("snapshot", b), true
}

func (h *Hub) leave(p *page) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.pages[p]; ok {
		delete(h.pages, p)
		close(p.dropped)
	}
}

// screenOf is row id's screen text and columns, as last read.
func (h *Hub) screenOf(id string) (text string, cols, seq int, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.rows[id]
	if !ok {
		return "", 0, 0, false
	}
	return r.screen, r.screenCols, r.ScreenSeq, true
}

// row is the listing behind id, as last seen.
func (h *Hub) row(id string) (Row, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.rows[id]
	if !ok {
		return Row{}, false
	}
	return *r, true
}

// Pages counts the open pages.
func (h *Hub) Pages() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.pages)
}

// snapshotRows is every row now (tests and benchmarks).
func (h *Hub) snapshotRows() []*Row {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.snapshotLocked().Rows
}
