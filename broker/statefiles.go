//go:build linux

package broker

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/ipc"
	"golang.org/x/sys/unix"
)

// maxStateFile bounds a state file: a state with the longest prompt
// detail (ipc.MaxPromptDetail) is far below it, and it is the socket's
// default frame limit, so no state a socket could answer is refused here.
const maxStateFile = 1 << 20

// stateNames lists the state dir's file names, before the runtime dir is
// listed: a supervisor writes its file only once its socket exists, so a
// file listed here whose socket the later listing lacks is a gone
// supervisor's, never a starting one's. A state dir that cannot be read —
// missing, a symlink or not a directory (openSubdir), unreadable — has no
// names: every socket is asked instead (sup doctor reports it).
func stateNames(runtimeDir string) (dir *os.File, names []string) {
	d, err := openSubdir(paths.StateFileDir(runtimeDir))
	if err != nil {
		return nil, nil
	}
	if names, err = d.Readdirnames(-1); err != nil {
		d.Close()
		return nil, nil
	}
	return d, names
}

// readStateFiles returns the sessions whose state file in d is sound,
// whose <id>.sock in the runtime dir's entries is a socket (not a symlink
// or a file of that name: those are dialled, so the client's checks
// apply), and whose supervisor is alive (its sup_pid answers, as for a
// queue file): the listing's read, which wakes no supervisor
// (specs/broker.md, "The state files"). have holds their ids; a socket
// not in it has no usable file (not written yet, an older sup, a
// supervisor that died: its file names a dead pid) and must be asked.
// With clean, a file with no <id>.sock at all is removed.
func readStateFiles(runtimeDir string, d *os.File, names []string, entries []os.DirEntry, clean bool) (sessions []Listing, have map[string]bool) {
	listed := make(map[string]bool, len(entries))
	sockets := make(map[string]bool, len(entries))
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".sock"); ok {
			listed[id] = true
			sockets[id] = e.Type()&os.ModeSocket != 0
		}
	}
	dirfd := int(d.Fd())
	buf := make([]byte, 16<<10)
	have = make(map[string]bool, len(names))
	for _, name := range names {
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || strings.HasPrefix(id, ".") {
			continue // a writer's temporary file, or not ours
		}
		if !listed[id] {
			if clean {
				unix.Unlinkat(dirfd, name, 0) // Best effort: another reader may have won.
			}
			continue
		}
		if !sockets[id] {
			continue // asked over its "socket", which the dial checks
		}
		st, err := readStateFile(dirfd, name, &buf)
		if err != nil || st.SessionID != id || !ipc.PIDAlive(st.SupPID) {
			continue // asked over its socket instead
		}
		sock, err := paths.Socket(runtimeDir, id)
		if err != nil {
			continue // a name no supervisor could listen on
		}
		sessions = append(sessions, Listing{Socket: sock, State: st})
		have[id] = true
	}
	return sessions, have
}

// readStateFile reads dirfd's state file name (buf is reused).
func readStateFile(dirfd int, name string, buf *[]byte) (ipc.State, error) {
	var st ipc.State
	data, err := readRuntimeFile(dirfd, name, buf, maxStateFile)
	if err != nil {
		return st, fmt.Errorf("state file %s: %w", name, err)
	}
	return st, json.Unmarshal(data, &st)
}
