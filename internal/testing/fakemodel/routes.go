package fakemodel

import "net/http"

func (s *Server) routes(mux *http.ServeMux) {
	s.anthropicRoutes(mux)
	s.openaiRoutes(mux)
	s.geminiRoutes(mux)
	s.chatRoutes(mux)
	// Anything else: logged and answered 404 (unknown.go).
	mux.HandleFunc("/", s.unknownRoute)
}
