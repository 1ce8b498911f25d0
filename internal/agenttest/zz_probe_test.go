//go:build linux

package agenttest

import (
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testutil"
)

func TestZZProbeGemini(t *testing.T) {
	r := NewRecorder(t, "/tmp/gemfirst2.raw")
	a := StartGemini(t, testutil.NewTmux(t), WithFirstRun(), r.Option())
	a.WaitScreen("Do you trust the files")
	time.Sleep(time.Second)
	a.PressUntil("Gemini CLI is restarting to apply the trust changes", "Enter")
	a.WaitGeminiReady()
	time.Sleep(time.Second)
	r.Stop()
	dumpSupLog(t, a)
}
