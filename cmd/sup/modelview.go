//go:build linux

package main

import (
	"io"

	"github.com/sup-tmux/sup/ipc"
)

// modelRows are `sup state`'s lines for the model reader's reading.
func modelRows(w io.Writer, st ipc.State) {
	if st.ModelState == "" {
		return
	}
	fprintf(w, "model\t%s: %s\n", st.ModelState, st.ModelSummary)
	for _, o := range st.ModelOptions {
		fprintf(w, "\t%s. %s [%s]\n", o.Choice, o.Label, o.Key)
	}
}

// printExplainModel is explain's line for the model reader's reading.
func printExplainModel(w io.Writer, m *ipc.ExplainModel) {
	if m == nil {
		return
	}
	fprintf(w, "model reading %s: %s (screen %s)\n", m.State, m.Summary, m.ScreenHash)
	for _, o := range m.Options {
		fprintf(w, "  %s. %s [%s]\n", o.Choice, o.Label, o.Key)
	}
}
