//go:build linux

package hooks

import (
	"bytes"

	"github.com/rogpeppe/go-internal/diff"
)

// Diff is the plan's changes as a unified diff, file after file; a new
// file is diffed against /dev/null. Empty when nothing changes.
func (p *Plan) Diff() []byte {
	var b bytes.Buffer
	for _, c := range p.Changes {
		oldName := c.Path
		if !c.Exists {
			oldName = "/dev/null"
		}
		b.Write(diff.Diff(oldName, c.Old, c.Path, c.New))
	}
	return b.Bytes()
}
