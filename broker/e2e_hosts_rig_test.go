//go:build linux

package broker_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// remoteHost stands in for a second machine: a second local user, created
// by the test, with its own runtime dir, tmux server and supervisors,
// reached through a real sshd on a loopback port with key auth from temp
// files (no ~/.ssh is read or changed: the broker runs ssh -F through
// SUP_SSH_CONFIG).
type remoteHost struct {
	t        testing.TB
	user     string
	uid, gid int
	home     string
	bin      string // a dir the user can read: sup and fakeagent
	tmux     string // its tmux server's -L name
	sshCfg   string // the ssh config file: hosts remote, wrongkey, blackhole
	port     int
	rig      *testutil.Rig
}

// hostsConfig is the local config.yaml's hosts: of a remote rig.
func (r *remoteHost) hostsConfig() string {
	// oldsup: a sup without a relay (false exits 1, as an older sup's
	// usage error does).
	return fmt.Sprintf("hosts:\n  - {name: remote, ssh: remote, sup: %[1]s}\n  - {name: wrongkey, ssh: wrongkey, sup: %[1]s}\n"+
		"  - {name: blackhole, ssh: blackhole, sup: %[1]s}\n  - {name: oldsup, ssh: remote, sup: /bin/false}\n", r.bin+"/sup")
}

// remoteConfig is the remote user's config.yaml: fakeagent -ack's marker
// acknowledges a trigger.
const remoteConfig = "trigger: {ack_marker: \"ACK_TRIGGER:{id}\", retry_backoff: 100ms}\n"

func newRemoteHost(t testing.TB, rig *testutil.Rig) *remoteHost {
	t.Helper()
	if os.Geteuid() != 0 {
		testutil.Missing(t, "creating the second user that stands in for a remote host needs root")
	}
	testutil.File(t, "/usr/sbin/sshd", "apt-get install -y openssh-server")
	testutil.Program(t, "ssh", "apt-get install -y openssh-client")
	keygen := testutil.Program(t, "ssh-keygen", "apt-get install -y openssh-client")
	testutil.Program(t, "useradd", "apt-get install -y passwd")

	var rnd [3]byte
	_, _ = rand.Read(rnd[:])
	r := &remoteHost{t: t, rig: rig, user: "suprt" + hex.EncodeToString(rnd[:])}
	// -p "*": no password, yet not locked ("!"), which sshd without PAM
	// refuses even for key auth.
	func() {
		usersMu.Lock()
		defer usersMu.Unlock()
		run(t, "useradd", "-m", "-p", "*", "-s", "/bin/sh", r.user)
	}()
	t.Cleanup(func() { r.removeUser() })
	u, err := user.Lookup(r.user)
	if err != nil {
		t.Fatal(err)
	}
	r.uid, _ = strconv.Atoi(u.Uid)
	r.gid, _ = strconv.Atoi(u.Gid)
	r.home = u.HomeDir

	// The binaries, where the user can read them.
	r.bin, err = os.MkdirTemp("", "sup-remote-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(r.bin) })
	os.Chmod(r.bin, 0o755)
	copyFile(t, rig.Bins.Sup, r.bin+"/sup")
	copyFile(t, rig.Bins.FakeAgent, r.bin+"/fakeagent")
	r.write(".config/sup/config.yaml", remoteConfig)
	r.write(".config/sup/profiles/claude.yaml", testutil.FakeAgentProfile)

	// Keys: the user's, a wrong one, the server's.
	keys := t.TempDir()
	for _, k := range []string{"id", "wrong", "hostkey"} {
		run(t, keygen, "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(keys, k))
	}
	pub, _ := os.ReadFile(filepath.Join(keys, "id.pub"))
	r.write(".ssh/authorized_keys", string(pub))

	// sshd on a free loopback port.
	r.port = freePort(t)
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // sshd's privilege separation dir
		t.Fatal(err)
	}
	cfg := filepath.Join(keys, "sshd_config")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile none
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AuthorizedKeysFile .ssh/authorized_keys
AllowUsers %s
MaxSessions 200
MaxStartups 100
LogLevel ERROR
SetEnv "GORACE=%s"
`, r.port, filepath.Join(keys, "hostkey"), r.user, os.Getenv("GORACE"))), 0o600)
	sshd := exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", cfg)
	// A file, not a pipe: each connection's sshd inherits it, and Wait
	// would wait for the last of them.
	sshdLog, err := os.Create(filepath.Join(keys, "sshd.log"))
	if err != nil {
		t.Fatal(err)
	}
	sshd.Stdout, sshd.Stderr = sshdLog, sshdLog
	if err := sshd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sshd.Process.Kill()
		sshd.Wait()
		sshdLog.Close()
		if t.Failed() {
			b, _ := os.ReadFile(sshdLog.Name())
			t.Logf("sshd: %s", b)
		}
	})
	testutil.WaitUntil(t, 10*time.Second, "sshd to listen", func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.port))
		if err == nil {
			c.Close()
		}
		return err == nil
	})

	// A port that accepts and never answers.
	hole, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	go func() {
		for {
			c, err := hole.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	t.Cleanup(func() { hole.Close() })

	hostPub, _ := os.ReadFile(filepath.Join(keys, "hostkey.pub"))
	known := filepath.Join(keys, "known_hosts")
	os.WriteFile(known, []byte(fmt.Sprintf("[127.0.0.1]:%d %s", r.port, hostPub)), 0o600)
	r.sshCfg = filepath.Join(keys, "ssh_config")
	entry := func(name, key string, port int) string {
		return fmt.Sprintf("Host %s\n  HostName 127.0.0.1\n  Port %d\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n\n",
			name, port, r.user, filepath.Join(keys, key), known)
	}
	os.WriteFile(r.sshCfg, []byte(entry("remote", "id", r.port)+entry("wrongkey", "wrong", r.port)+
		entry("blackhole", "id", hole.Addr().(*net.TCPAddr).Port)), 0o600)
	rig.Env["SUP_SSH_CONFIG"] = r.sshCfg
	// The multiplexed masters outlive the verbs (ControlPersist): end them.
	t.Cleanup(func() {
		masters, _ := filepath.Glob(filepath.Join(broker.ControlDirOf(rig.Env["SUP_RUNTIME_DIR"]), "*"))
		for _, m := range masters {
			exec.Command("ssh", "-F", r.sshCfg, "-o", "ControlPath="+m, "-O", "exit", "remote").Run() // Best effort: it may have gone.
		}
	})

	// The user's tmux server, holding its supervisors.
	r.tmux = "sup-remote-" + hex.EncodeToString(rnd[:])
	r.runAs("tmux", "-L", r.tmux, "-f", os.DevNull, "new-session", "-d", "-s", "main", "-x", "120", "-y", "40", "sleep 86400")
	t.Cleanup(func() { r.runAsErr("tmux", "-L", r.tmux, "kill-server") })
	return r
}

// env is the remote user's environment: its own home and default
// runtime dir ($TMPDIR unset: /tmp/sup-<uid>), as an ssh login gets.
func (r *remoteHost) env() []string {
	return []string{"HOME=" + r.home, "USER=" + r.user, "LOGNAME=" + r.user, "PATH=" + r.bin + ":/usr/bin:/bin", "TERM=xterm-256color",
		"GORACE=" + os.Getenv("GORACE")} // testutil's: no second of sleep at each race-built exit
}

// usersMu serialises this process's useradd and userdel: both take
// /etc/passwd's lock and fail at once ("cannot lock /etc/passwd") when
// another holds it. The second-host tests run one at a time today (each
// starts an sshd, which a loaded machine already makes slow to answer);
// the lock keeps a parallel one from failing on the other's user.
var usersMu sync.Mutex

func (r *remoteHost) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir = r.env(), r.home
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(r.uid), Gid: uint32(r.gid)}}
	return cmd
}

func (r *remoteHost) runAsErr(name string, args ...string) (string, error) {
	out, err := r.command(name, args...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func (r *remoteHost) runAs(name string, args ...string) string {
	r.t.Helper()
	out, err := r.runAsErr(name, args...)
	if err != nil {
		r.t.Fatalf("%s %v as %s: %v: %s", name, args, r.user, err, out)
	}
	return out
}

// write writes a file of the remote user under its home.
func (r *remoteHost) write(rel, content string) string {
	r.t.Helper()
	p := filepath.Join(r.home, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
	for d := p; d != r.home; d = filepath.Dir(d) {
		os.Chown(d, r.uid, r.gid)
	}
	return p
}

// start supervises a fake agent for NAME.md on the remote host and waits
// until it is ready; it returns its pane (of the remote tmux server).
func (r *remoteHost) start(name string) string {
	r.t.Helper()
	doc := r.write(name+".md", "# "+name+"\n")
	pane := r.runAs("tmux", "-L", r.tmux, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:",
		testutil.ShellCommand(nil, r.bin+"/sup", "start", doc, "--", "fakeagent", "-raw", "-ack"))
	testutil.WaitUntil(r.t, 15*time.Second, name+" to start on the remote host", func() bool {
		out, _ := r.runAsErr("tmux", "-L", r.tmux, "capture-pane", "-p", "-t", pane)
		return strings.Contains(out, "fakeagent ready")
	})
	return pane
}

// auditFile is the remote user's trigger trail.
func (r *remoteHost) auditFile() string { return filepath.Join(r.home, ".local/state/sup/audit.jsonl") }

// removeUser ends what runs as the user (the processes this test started
// under it: its tmux server, supervisors, agents, relays), then the user,
// its home and its runtime dir.
func (r *remoteHost) removeUser() {
	for range 50 {
		pids := userPIDs(r.uid)
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL) // Best effort: it may have exited.
		}
		time.Sleep(20 * time.Millisecond)
	}
	usersMu.Lock()
	exec.Command("userdel", "-r", "-f", r.user).Run() // Best effort: reported below if it stays.
	usersMu.Unlock()
	os.RemoveAll(fmt.Sprintf("/tmp/sup-%d", r.uid))
	os.RemoveAll(fmt.Sprintf("/tmp/tmux-%d", r.uid))
	if _, err := user.Lookup(r.user); err == nil {
		r.t.Errorf("user %s still exists after userdel", r.user)
	}
}

// userPIDs are the processes of uid (only the test's own user has any).
func userPIDs(uid int) []int {
	var pids []int
	for _, p := range testutil.Procs() {
		var st syscall.Stat_t
		if syscall.Stat(fmt.Sprintf("/proc/%d", p.PID), &st) == nil && int(st.Uid) == uid {
			pids = append(pids, p.PID)
		}
	}
	return pids
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v: %s", name, args, err, out)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// remoteSSH is how the test reaches the remote host as the broker does.
func (r *remoteHost) ssh() broker.SSH {
	return broker.SSH{ControlDir: broker.ControlDirOf(r.rig.Env["SUP_RUNTIME_DIR"]), Options: []string{"-F", r.sshCfg}}
}

func (r *remoteHost) hostEntry() broker.Host {
	return broker.Host{Name: "remote", SSH: "remote", Sup: r.bin + "/sup"}
}

// remoteSessions lists the remote host's sessions through its relay.
func (r *remoteHost) sessions() []broker.Listing {
	r.t.Helper()
	fo := broker.Fanout{Hosts: []broker.Host{r.hostEntry()}, SSH: r.ssh(), Timeout: 2 * time.Second, Deadline: 20 * time.Second,
		RuntimeDir: r.rig.Env["SUP_RUNTIME_DIR"]}
	res := fo.DiscoverHosts(context.Background(), false)
	if res[0].Err != nil {
		r.t.Fatal(res[0].Err)
	}
	return res[0].Sessions
}
