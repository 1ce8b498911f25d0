package fakemodel

import "net/http"

func (s *Server) routes(mux *http.ServeMux) {
	s.anthropicRoutes(mux)
	s.openaiRoutes(mux)
}
