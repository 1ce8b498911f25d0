package broker

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/sup-tmux/sup/ipc"
)

// ReadQueueFiles returns the sessions that published queue facts in
// <runtimeDir>/queue (ipc.QueueFacts), without dialling any socket: the
// fast path of `sup status-line`. Only Socket and the facts' fields of each
// State are set. A file whose supervisor is gone (its socket missing, or
// sup_pid not alive) is ignored and removed; a file that does not parse is
// ignored, and removed too if its socket is missing. A missing dir is an
// empty result.
func ReadQueueFiles(runtimeDir string) ([]Session, error) {
	dir := ipc.QueueDir(runtimeDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list queue dir: %w", err)
	}
	var sessions []Session
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || strings.HasPrefix(id, ".") {
			continue // a writer's temporary file, or not ours
		}
		path := filepath.Join(dir, e.Name())
		sock := filepath.Join(runtimeDir, id+".sock")
		f, err := readQueueFile(path)
		alive := socketExists(sock) && (err != nil || pidAlive(f.SupPID))
		if !alive {
			os.Remove(path) // Best effort: another reader may have won.
		}
		if err != nil || !alive || f.SessionID != id {
			continue
		}
		sessions = append(sessions, Session{Socket: sock, State: f.State()})
	}
	return sessions, nil
}

func readQueueFile(path string) (ipc.QueueFacts, error) {
	var f ipc.QueueFacts
	data, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	return f, json.Unmarshal(data, &f)
}

func socketExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// pidAlive is kill(pid, 0): EPERM still means a process holds the pid.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
