//go:build linux

package broker

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// FindTarget picks the session a user named: an exact session id, a unique
// id prefix, a name, or the path of the session's document (relative to
// cwd). Unknown and ambiguous targets are errors that list the candidates.
func FindTarget(sessions []Listing, target, cwd string) (Listing, error) {
	if target == "" {
		return Listing{}, fmt.Errorf("missing TARGET: give a session id, id prefix, name or document path%s", listing(sessions))
	}
	docPath := target
	if !filepath.IsAbs(docPath) {
		docPath = filepath.Join(cwd, docPath)
	}
	docPath = filepath.Clean(docPath)
	rules := []func(Listing) bool{
		func(s Listing) bool { return s.State.SessionID == target },
		func(s Listing) bool { return s.State.Name == target },
		func(s Listing) bool { return s.State.Document == docPath },
		func(s Listing) bool { return strings.HasPrefix(s.State.SessionID, target) },
	}
	for _, match := range rules {
		var found []Listing
		for _, s := range sessions {
			if match(s) {
				found = append(found, s)
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], nil
		default:
			return Listing{}, fmt.Errorf("target %q %w: it matches %d sessions; use the session id%s", target, ErrAmbiguous, len(found), listing(found))
		}
	}
	return Listing{}, fmt.Errorf("%w %q%s", ErrNoMatch, target, listing(sessions))
}

// FindTarget's errors wrap ErrNoMatch when no session matches, and
// ErrAmbiguous when several do.
var (
	ErrNoMatch   = errors.New("no session matches target")
	ErrAmbiguous = errors.New("is ambiguous")
)

func listing(sessions []Listing) string {
	if len(sessions) == 0 {
		return " (no sessions are running)"
	}
	var b strings.Builder
	b.WriteString(":")
	for _, s := range sessions {
		id := s.State.SessionID
		if s.Host != "" {
			id = s.Host + ":" + id // how to name it without ambiguity
		}
		fmt.Fprintf(&b, "\n  %s  %-16s %s", id, s.State.Name, s.State.Document)
	}
	return b.String()
}
