//go:build !linux

package broker

import "errors"

// inotify exists only on Linux; elsewhere Watch polls the runtime dir.
type inotify struct{}

func newInotify() (*inotify, error) { return nil, errors.New("inotify is Linux-only") }

func (*inotify) close()                  {}
func (*inotify) watch(string, bool) bool { return false }
func (*inotify) run(func())              {}
