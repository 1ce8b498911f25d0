//go:build linux

package web

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/ipc"
)

// maxBody bounds an action's JSON body (a trigger's prompt included).
const maxBody = 256 << 10

// actionTimeout bounds one action: a trigger waits for its ack.
const actionTimeout = 30 * time.Second

// actionRequest is the body of every POST /api/… (specs/web.md).
type actionRequest struct {
	ID     string `json:"id"`     // the row
	Choice string `json:"choice"` // answer
	Expect string `json:"expect"` // answer: the prompt id the page showed
	Prompt string `json:"prompt"` // trigger
}

// actionReply is what the page gets back.
type actionReply struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"` // an ipc error code, or BAD_REQUEST, NOT_FOUND
}

// action wraps a state-changing handler in the cookie, Origin and CSRF
// checks and the JSON decoding.
func (s *Server) action(do func(ctx context.Context, r *http.Request, row Row, a actionRequest) (string, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		reply := func(status int, rep actionReply) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(rep) // Best effort: the page may be gone.
		}
		if !s.hasCookie(r) {
			reply(http.StatusUnauthorized, actionReply{Code: "UNAUTHORIZED", Message: "not signed in: open the URL sup web printed (it ends in ?token=…)"})
			return
		}
		if why := s.originProblem(r); why != "" {
			s.cfg.Log.Warn("web: refused a cross-origin request", "path", r.URL.Path, "origin", r.Header.Get("Origin"), "client", r.RemoteAddr)
			reply(http.StatusForbidden, actionReply{Code: "FORBIDDEN", Message: why})
			return
		}
		if tok := r.Header.Get(CSRFHeader); subtle.ConstantTimeCompare([]byte(tok), []byte(s.csrf)) != 1 {
			reply(http.StatusForbidden, actionReply{Code: "FORBIDDEN", Message: "missing or wrong " + CSRFHeader + " header: reload the page"})
			return
		}
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			reply(http.StatusUnsupportedMediaType, actionReply{Code: "BAD_REQUEST", Message: fmt.Sprintf("Content-Type %q; valid: application/json", ct)})
			return
		}
		var a actionRequest
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			reply(http.StatusBadRequest, actionReply{Code: "BAD_REQUEST", Message: fmt.Sprintf("body: %v; want JSON {id, choice, expect, prompt}", err)})
			return
		}
		// One object and nothing else: a body that goes on is not one
		// the page sent, and what follows is not guessed at.
		if _, err := dec.Token(); err != io.EOF {
			reply(http.StatusBadRequest, actionReply{Code: "BAD_REQUEST", Message: fmt.Sprintf("body: trailing data after the JSON object (from byte %d); want exactly one JSON object {id, choice, expect, prompt}", dec.InputOffset())})
			return
		}
		row, ok := s.hub.row(a.ID)
		if !ok {
			reply(http.StatusNotFound, actionReply{Code: string(ipc.CodeTargetNotFound), Message: fmt.Sprintf("no session %q here any more; the page shows the live ones", a.ID)})
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
		defer cancel()
		msg, err := do(ctx, r, row, a)
		if err != nil {
			var e *ipc.Error
			status, code, msg := http.StatusBadGateway, "FAILED", err.Error()
			if errors.As(err, &e) {
				code, msg = string(e.Code), e.Message
				switch e.Code {
				case ipc.CodeNotAllowed:
					status = http.StatusForbidden
				case ipc.CodeBadRequest:
					status = http.StatusBadRequest
				default:
					status = http.StatusConflict
				}
			}
			s.cfg.Log.Info("web: action refused", "path", r.URL.Path, "session", row.Name, "code", code, "client", r.RemoteAddr)
			reply(status, actionReply{Code: code, Message: msg})
			return
		}
		s.cfg.Log.Info("web: action", "path", r.URL.Path, "session", row.Name, "client", r.RemoteAddr)
		reply(http.StatusOK, actionReply{OK: true, Message: msg})
	}
}

// originProblem is why r's Origin is not this page's own ("" when it is).
// Browsers send Origin on every POST; a request without one did not come
// from the page.
func (s *Server) originProblem(r *http.Request) string {
	o := r.Header.Get("Origin")
	if o == "" {
		return "no Origin header: actions come only from the sup web page"
	}
	u, err := url.Parse(o)
	if err != nil || u.Scheme != s.scheme() || !strings.EqualFold(u.Host, r.Host) {
		return fmt.Sprintf("Origin %q is not this page's (%s://%s): refused", o, s.scheme(), r.Host)
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return fmt.Sprintf("Sec-Fetch-Site %q: actions come only from the sup web page (same-origin)", site)
	}
	return ""
}

// dialVia dials row's supervisor on a connection whose hello says it acts
// for the browser at r's address: its calls are audited as "the operator
// (web, ADDR)" — and refused NOT_ALLOWED when sup web runs in an agent.
func (s *Server) dialVia(ctx context.Context, r *http.Request, row Row) (*ipc.Client, func(), error) {
	c, done, err := s.cfg.Fleet.Dial(ctx, row.listing)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", row.Name, err)
	}
	hello := ipc.HelloParams{Client: "sup web", Via: &ipc.Via{Kind: ipc.ViaWeb, Client: clientAddr(r)}}
	if err := broker.Call(ctx, c, ipc.MethodHello, hello, nil); err != nil {
		done()
		return nil, nil, err
	}
	return c, done, nil
}

// requester is an action's requester (the client's own words, beside the
// caller the supervisor decides).
func (s *Server) requester(r *http.Request, row Row) string {
	req := "web:" + clientAddr(r)
	if row.Host != "" {
		req = broker.OriginRequester(req)
	}
	return req
}

func (s *Server) answer(ctx context.Context, r *http.Request, row Row, a actionRequest) (string, error) {
	if a.Choice == "" {
		return "", ipc.Errorf(ipc.CodeBadRequest, "answer: no choice; valid: %s", strings.Join(choices(row), ", "))
	}
	if a.Expect == "" {
		// The compare-and-swap is not optional here: a click answers the
		// prompt the page showed, or nothing.
		return "", ipc.Errorf(ipc.CodeBadRequest, "answer: no expect (the prompt id the page showed)")
	}
	c, done, err := s.dialVia(ctx, r, row)
	if err != nil {
		return "", err
	}
	defer done()
	var res ipc.AnswerResult
	p := ipc.AnswerParams{Choice: a.Choice, Expect: a.Expect, Requester: s.requester(r, row)}
	if err := broker.Call(ctx, c, ipc.MethodAnswer, p, &res); err != nil {
		return "", err
	}
	return fmt.Sprintf("answered %s with %s (acked by %s)", row.Name, res.Choice, res.AckedBy), nil
}

// choices are the answers row's prompt takes, for an error.
func choices(row Row) []string {
	out := append([]string{}, row.PromptChoices...)
	for _, o := range row.PromptOptions {
		out = append(out, o.Choice)
	}
	if len(out) == 0 {
		out = []string{"(none: no prompt is open)"}
	}
	return out
}

var triggerSeq atomic.Uint64

func (s *Server) trigger(ctx context.Context, r *http.Request, row Row, a actionRequest) (string, error) {
	if strings.TrimSpace(a.Prompt) == "" {
		return "", ipc.Errorf(ipc.CodeBadRequest, "trigger: empty prompt; type the text to send")
	}
	c, done, err := s.dialVia(ctx, r, row)
	if err != nil {
		return "", err
	}
	defer done()
	p := ipc.TriggerParams{
		TriggerID: fmt.Sprintf("web-%d-%d", s.cfg.Now().UnixMilli(), triggerSeq.Add(1)),
		Reason:    "sup web", Prompt: a.Prompt, Requester: s.requester(r, row), Wait: true,
	}
	var res ipc.TriggerResult
	if err := broker.Call(ctx, c, ipc.MethodTrigger, p, &res); err != nil {
		return "", err
	}
	switch res.Result {
	case ipc.OutcomeDelivered:
		return fmt.Sprintf("delivered to %s (acked by %s)", row.Name, res.AckedBy), nil
	case ipc.OutcomeDeferred:
		return fmt.Sprintf("deferred for %s (%s): %s", row.Name, res.ErrorCode, res.Message), nil
	}
	return "", ipc.Errorf(res.ErrorCode, "trigger %s %s: %s", row.Name, res.Result, res.Message)
}

func (s *Server) skip(ctx context.Context, r *http.Request, row Row, _ actionRequest) (string, error) {
	c, done, err := s.dialVia(ctx, r, row)
	if err != nil {
		return "", err
	}
	defer done()
	var res ipc.SkipResult
	if err := broker.Call(ctx, c, ipc.MethodSkip, ipc.SkipParams{}, &res); err != nil {
		return "", err
	}
	return fmt.Sprintf("skipped %s until %s", row.Name, time.UnixMilli(res.SkipUntil).Format(time.TimeOnly)), nil
}

func (s *Server) jump(ctx context.Context, _ *http.Request, row Row, _ actionRequest) (string, error) {
	if s.cfg.TmuxSocket == "" {
		return "", ipc.Errorf(ipc.CodeBadRequest, "jump: sup web does not run inside tmux, so there is no terminal to move; start it in a tmux pane")
	}
	j, err := s.cfg.Fleet.Jump(ctx, s.cfg.TmuxSocket, s.cfg.TmuxClient, row.listing)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("jumped to %s (%s)", row.Name, j), nil
}
