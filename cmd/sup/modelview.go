//go:build linux

package main

import (
	"io"

	"github.com/sup-tmux/sup/ipc"
)

// summaryText is a session's summary as the views show it, marked when the
// model reader wrote it: a reading is a model's guess, and the human should
// know before acting on it (specs/detection.md, "The model reader").
func summaryText(st ipc.State) string {
	if st.ModelSummary != "" && st.Summary == st.ModelSummary {
		return "[model] " + st.Summary
	}
	return st.Summary
}

// optionText is one option of an open prompt; an option the model read
// shows the key `sup answer` would type for it.
func optionText(st ipc.State, o ipc.PromptOption) string {
	for _, m := range st.ModelOptions {
		if m.Choice == o.Choice && m.Label == o.Label {
			return o.Choice + ". " + o.Label + " [" + m.Key + "]"
		}
	}
	return o.Choice + ". " + o.Label
}

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
