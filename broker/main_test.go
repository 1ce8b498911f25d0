//go:build linux

package broker_test

import (
	"os"
	"testing"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestMain asks for a race-built sup (fakeagent is always plain:
// testutil.FakeAgent): these end-to-end tests are where races in the
// supervisor's process show (specs/testing.md, "The suite's time").
func TestMain(m *testing.M) { os.Exit(testutil.MainRaceBuilds(m)) }
