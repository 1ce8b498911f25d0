package paths

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// The three directories.

// RuntimeDir is the directory of the supervisors' sockets and the other
// files that live as long as a session: $SUP_RUNTIME_DIR if set (tests,
// unusual setups), else $XDG_RUNTIME_DIR/sup (per-user, tmpfs, cleaned at
// logout: the right home for sockets), else $TMPDIR/sup-<euid> with TMPDIR
// defaulting to /tmp (the tmux layout, for systems without a user runtime
// dir). A relative XDG_RUNTIME_DIR is ignored, as the XDG spec requires.
// getenv is os.Getenv outside tests.
func RuntimeDir(getenv func(string) string) string {
	if d := getenv("SUP_RUNTIME_DIR"); d != "" {
		return filepath.Clean(d)
	}
	if d := getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "sup")
	}
	tmp := getenv("TMPDIR")
	if tmp == "" {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, fmt.Sprintf("sup-%d", os.Geteuid()))
}

// ConfigDir is $XDG_CONFIG_HOME/sup (default ~/.config/sup).
func ConfigDir(getenv func(string) string) string {
	return xdgDir(getenv, "XDG_CONFIG_HOME", ".config")
}

// StateDir is $XDG_STATE_HOME/sup (default ~/.local/state/sup): session logs,
// the session registry and the audit trail.
func StateDir(getenv func(string) string) string {
	return xdgDir(getenv, "XDG_STATE_HOME", filepath.Join(".local", "state"))
}

func xdgDir(getenv func(string) string, variable, homeRel string) string {
	if d := getenv(variable); filepath.IsAbs(d) {
		return filepath.Join(d, "sup")
	}
	home := getenv("HOME")
	if home == "" {
		home = "/"
	}
	return filepath.Join(home, homeRel, "sup")
}

// In the runtime dir.

// Socket is <runtimeDir>/<sessionID>.sock. It fails when the session id is
// not a plain file name or when the path would not fit in sun_path: bind
// and connect would fail later with an unhelpful EINVAL.
func Socket(runtimeDir, sessionID string) (string, error) {
	if sessionID == "" || sessionID == "." || sessionID == ".." ||
		strings.ContainsAny(sessionID, "/\x00") {
		return "", fmt.Errorf("session id %q cannot name a socket file", sessionID)
	}
	p := filepath.Join(runtimeDir, sessionID+".sock")
	if err := CheckSocketLen(p); err != nil {
		return "", err
	}
	return p, nil
}

// CheckSocketLen fails when socket p would not fit in sun_path.
func CheckSocketLen(p string) error {
	if len(p) > MaxSocketPath {
		return fmt.Errorf("socket path %s is %d bytes; Unix sockets allow at most %d; "+
			"set SUP_RUNTIME_DIR to a shorter directory", p, len(p), MaxSocketPath)
	}
	return nil
}

// SocketLock is the flock file beside a socket (<socket>.lock) that
// listening and stale-socket cleanup take, so a cleaner never unlinks a
// socket being born.
func SocketLock(socket string) string { return socket + ".lock" }

// QueueDirName is the subdirectory of the runtime dir of the queue facts.
const QueueDirName = "queue"

// QueueDir is <runtimeDir>/queue.
func QueueDir(runtimeDir string) string { return filepath.Join(runtimeDir, QueueDirName) }

// QueueFile is <runtimeDir>/queue/<sessionID>.json. The session id must be
// one Socket accepts.
func QueueFile(runtimeDir, sessionID string) string {
	return filepath.Join(QueueDir(runtimeDir), sessionID+".json")
}

// StateFileDirName is the subdirectory of the runtime dir of the state
// files: each session's whole state, as its socket's `state` answers it,
// for the listings (specs/broker.md, "The state files").
const StateFileDirName = "state"

// StateFileDir is <runtimeDir>/state.
func StateFileDir(runtimeDir string) string { return filepath.Join(runtimeDir, StateFileDirName) }

// StateFile is <runtimeDir>/state/<sessionID>.json. The session id must be
// one Socket accepts.
func StateFile(runtimeDir, sessionID string) string {
	return filepath.Join(StateFileDir(runtimeDir), sessionID+".json")
}

// HostCacheDir is <runtimeDir>/hosts, the last answer of each remote host
// as <host>.json.
func HostCacheDir(runtimeDir string) string { return filepath.Join(runtimeDir, "hosts") }

// HostCache is <runtimeDir>/hosts/<host>.json.
func HostCache(runtimeDir, host string) string {
	return filepath.Join(HostCacheDir(runtimeDir), host+".json")
}

// HostCacheRefresh is <runtimeDir>/hosts/.refresh, the stamp of the last
// background refresh the status line started.
func HostCacheRefresh(runtimeDir string) string {
	return filepath.Join(HostCacheDir(runtimeDir), ".refresh")
}

// SSHControlDir is <runtimeDir>/ssh, the ssh ControlMaster sockets.
func SSHControlDir(runtimeDir string) string { return filepath.Join(runtimeDir, "ssh") }

// DocLockDirName is the subdirectory of the runtime dir of the
// per-document locks.
const DocLockDirName = "docs"

// DocLock is the lock file of a document's key (its identity or its
// resolved path: supervisor.docKeys), <runtimeDir>/docs/<hash>.lock: a
// hash, since a path can be longer than a file name and holds slashes.
func DocLock(runtimeDir, key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(runtimeDir, DocLockDirName, hex.EncodeToString(sum[:12])+".lock")
}

// ModelBudget is <runtimeDir>/model-budget, the model reader's shared
// call window.
func ModelBudget(runtimeDir string) string { return filepath.Join(runtimeDir, "model-budget") }

// RouteReport is <runtimeDir>/route-<pid>-<nanos>.err, where a supervisor
// the router started writes why its start failed.
func RouteReport(runtimeDir string, pid int, nanos int64) string {
	return filepath.Join(runtimeDir, fmt.Sprintf("route-%d-%d.err", pid, nanos))
}

// In the state dir.

// Names of the session registry and the audit trail in the state dir.
const (
	RegistryFile = "sessions.json"
	AuditFile    = "audit.jsonl" // the file appended to
	AuditLock    = "audit.lock"  // flock'd by every append and rotation; never removed
)

// Registry is <stateDir>/sessions.json.
func Registry(stateDir string) string { return filepath.Join(stateDir, RegistryFile) }

// RegistryLock is <stateDir>/sessions.json.lock, flock'd by every write of
// the registry.
func RegistryLock(stateDir string) string { return Registry(stateDir) + ".lock" }

// Audit is <stateDir>/audit.jsonl.
func Audit(stateDir string) string { return filepath.Join(stateDir, AuditFile) }

// AuditRotated is the name of a rotated audit file,
// audit-<stamp>Z[-n].jsonl: stamp is the UTC time as 20060102T150405, n
// (above 0) tells apart rotations within one second.
func AuditRotated(stamp string, n int) string {
	if n > 0 {
		return "audit-" + stamp + "Z-" + strconv.Itoa(n) + ".jsonl"
	}
	return "audit-" + stamp + "Z.jsonl"
}

var auditRotated = regexp.MustCompile(`^audit-(\d{8}T\d{6})Z(?:-(\d+))?\.jsonl$`)

// ParseAuditRotated undoes AuditRotated; ok is false for any other name.
func ParseAuditRotated(name string) (stamp string, n int, ok bool) {
	m := auditRotated.FindStringSubmatch(name)
	if m == nil {
		return "", 0, false
	}
	n, _ = strconv.Atoi(m[2]) // "" is 0: the first rotation of that second
	return m[1], n, true
}

// SessionLog is <stateDir>/<sessionID>.log; its one rotation is the same
// name with ".1" added.
func SessionLog(stateDir, sessionID string) string {
	return filepath.Join(stateDir, sessionID+".log")
}

// LogSession is the session id of a session log's file name, <id>.log or
// <id>.log.1; ok is false for any other name (hidden files included).
func LogSession(name string) (id string, ok bool) {
	base, ok := strings.CutSuffix(name, ".log")
	if !ok {
		base, ok = strings.CutSuffix(name, ".log.1")
	}
	return base, ok && base != "" && !strings.HasPrefix(base, ".")
}

// HeadlessLog is <stateDir>/headless-<unix ms>.log, the output of a
// headless resume the router ran.
func HeadlessLog(stateDir string, ms int64) string {
	return filepath.Join(stateDir, fmt.Sprintf("headless-%d.log", ms))
}

// DemoDir is <stateDir>/demo, `sup demo`'s files.
func DemoDir(stateDir string) string { return filepath.Join(stateDir, "demo") }

// In the config dir.

// ConfigFile is <configDir>/config.yaml.
func ConfigFile(configDir string) string { return filepath.Join(configDir, "config.yaml") }

// ProfilesDir is <configDir>/profiles, the user's profiles.
func ProfilesDir(configDir string) string { return filepath.Join(configDir, "profiles") }

// TmuxKeys is <configDir>/tmux.conf, the key bindings `sup tmux-keys`
// writes and ~/.tmux.conf sources.
func TmuxKeys(configDir string) string { return filepath.Join(configDir, "tmux.conf") }

// Profile is <configDir>/profiles/<name>.yaml.
func Profile(configDir, name string) string {
	return filepath.Join(ProfilesDir(configDir), name+".yaml")
}
