package store

import (
	"fmt"
	"os"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/ipc"
)

// OpenSessionLog opens <stateDir>/<sessionID>.log (dir 0700, file 0600),
// capped at c.MaxSize (zero: the default): what a supervisor hands
// slog.NewTextHandler.
func OpenSessionLog(stateDir, sessionID string, c LogConfig) (*LogWriter, error) {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, fmt.Errorf("session log dir: %w", err)
	}
	return OpenLog(paths.SessionLog(stateDir, sessionID), c.MaxSize)
}

// Liveness is the liveness test pruning uses: a session is live when its
// supervisor answers on <runtimeDir>/<id>.sock, as the broker decides.
func Liveness(runtimeDir string) func(sessionID string) bool {
	return func(id string) bool { return ipc.SessionLive(runtimeDir, id) }
}
