//go:build linux

package main

import "github.com/sup-tmux/sup/supervisor"

func versionString() string { return supervisor.Version }
