//go:build linux

package screen

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// The agent corpus (testdata/corpus at the module root, recorded by
// internal/testing/agenttest): raw pty streams of real Claude Code and Codex
// sessions, each ending at a labelled moment. Only the fields this package
// needs are read, so the index may grow without breaking these tests.
type corpusIndex struct {
	Recordings []struct {
		File   string `json:"file"`
		Cols   int    `json:"cols"`
		Rows   int    `json:"rows"`
		Marker string `json:"marker"`
		Draft  string `json:"draft"`
	} `json:"recordings"`
}

const corpusDir = "../../testdata/corpus"

func loadCorpus(t *testing.T) corpusIndex {
	t.Helper()
	js, err := os.ReadFile(filepath.Join(corpusDir, "corpus.json"))
	if os.IsNotExist(err) {
		testutil.Missing(t, "no testdata/corpus/corpus.json")
	}
	if err != nil {
		t.Fatal(err)
	}
	var c corpusIndex
	if err := json.Unmarshal(js, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Recordings) == 0 {
		t.Fatal("corpus.json lists no recordings")
	}
	return c
}

// TestCorpusMarkers renders every recording at its size and checks that
// the last screen shows its marker (and its draft).
func TestCorpusMarkers(t *testing.T) {
	for _, e := range loadCorpus(t).Recordings {
		t.Run(e.File, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(corpusDir, e.File))
			if err != nil {
				t.Fatal(err)
			}
			s := New(e.Cols, e.Rows)
			s.Write(data)
			text := s.Text()
			if !strings.Contains(text, e.Marker) {
				t.Fatalf("marker %q not on the screen:\n%s", e.Marker, text)
			}
			if e.Draft != "" && !strings.Contains(text, e.Draft) {
				t.Fatalf("draft %q not on the screen:\n%s", e.Draft, text)
			}
		})
	}
}

// TestCorpusMatchesTmux replays every recording into a tmux pane of its
// size and compares tmux's screen with ours, row for row: the strongest
// check that the model shows what the user sees. Needs tmux; skipped in
// -short mode.
func TestCorpusMatchesTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	c := loadCorpus(t)
	var replays []replay
	for _, e := range c.Recordings {
		path, err := filepath.Abs(filepath.Join(corpusDir, e.File))
		if err != nil {
			t.Fatal(err)
		}
		replays = append(replays, replay{path, e.Cols, e.Rows})
	}
	// testutil's private server: cleaned up even when the test fails.
	shots := tmuxReplay(t, testutil.NewTmux(t), replays)
	for i, e := range c.Recordings {
		t.Run(e.File, func(t *testing.T) {
			data, err := os.ReadFile(replays[i].path)
			if err != nil {
				t.Fatal(err)
			}
			// A failure, not a skip: this comparison is also the proof
			// that tmux shows each recording's marker (agenttest's
			// TestCorpusValid relies on it).
			if shots[i].size != fmt.Sprintf("%dx%d", e.Cols, e.Rows) {
				t.Fatalf("tmux made the pane %s, not %dx%d", shots[i].size, e.Cols, e.Rows)
			}
			s := New(e.Cols, e.Rows)
			s.Write(data)
			want := trimText(acsText(shots[i].capture))
			if got := s.Text(); got != want {
				t.Fatalf("screen differs from tmux\n%s", diffText(want, got))
			}
		})
	}
}
