package fakemodel

import (
	"io"
	"log"
	"net/http"
)

// unknownRoute answers every path no API handles: it logs the request
// (API "unknown", a side request, so no turn is spent) and answers 404 with
// an Anthropic-style error body, which the SDKs report without retrying.
// Claude Code, kept offline as in specs/testing.md, calls nothing but the
// Messages API; a new call showing up here is worth a look.
func (s *Server) unknownRoute(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, anthropicMaxBody)) // Best effort: only for the log.
	log.Printf("fakemodel: no handler for %s %s", req.Method, req.URL.Path)
	s.decide(Request{API: "unknown", Method: req.Method, Path: req.URL.Path, Body: body, Side: true})
	anthropicError(w, http.StatusNotFound, "fakemodel: no handler for "+req.Method+" "+req.URL.Path)
}
