package store

import (
	"fmt"
	"os"

	"github.com/sup-tmux/sup/internal/paths"
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
