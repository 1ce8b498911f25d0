//go:build linux

package supervisor_test

import (
	"os"
	"testing"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestMain asks for a race-built sup (fakeagent is always plain:
// testutil.FakeAgent): these end-to-end tests are where races in the
// supervisor's process show (specs/testing.md, "The suite's time"). Their client verbs run a plain sup
// (testutil.PlainClients): the broker package's tests race those.
func TestMain(m *testing.M) {
	testutil.PlainClients()
	os.Exit(testutil.MainRaceBuilds(m))
}
