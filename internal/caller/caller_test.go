package caller

import (
	"errors"
	"strings"
	"testing"
)

// fake is a process table: pid → proc, pid → exe (missing: unreadable).
type fake struct {
	procs map[int]Proc
	uids  map[int]int // owner of /proc/PID; absent: me
	exes  map[int]string
}

func (f fake) Stat(pid int) (Proc, error) {
	p, ok := f.procs[pid]
	if !ok {
		return Proc{}, ErrGone
	}
	return p, nil
}

func (f fake) Owner(pid int) (int, error) {
	if _, ok := f.procs[pid]; !ok {
		return 0, ErrGone
	}
	if u, ok := f.uids[pid]; ok {
		return u, nil
	}
	return me, nil
}

func (f fake) Exe(pid int) (string, error) {
	if _, ok := f.procs[pid]; !ok {
		return "", ErrGone
	}
	e, ok := f.exes[pid]
	if !ok {
		return "", errors.New("permission denied")
	}
	return e, nil
}

const me = 1000

// host is a typical host: init (root) > tmux server (own session) > a
// shell pane > `sup start` (sid of the pane) > claude (its own session)
// > bash tool > `sup answer`; beside it the operator's shell and a sup
// client's child.
func host() fake {
	uids := map[int]int{}
	p := func(pid, ppid, sid int, start uint64, uid int, comm string) Proc {
		if uid != me {
			uids[pid] = uid
		}
		return Proc{PID: pid, PPID: ppid, SID: sid, Start: start, Comm: comm}
	}
	return fake{
		uids: uids,
		procs: map[int]Proc{
			1:  p(1, 0, 1, 1, me, "init"), // our uid (as root is), exe unreadable
			10: p(10, 1, 10, 5, me, "tmux: server"),
			20: p(20, 10, 20, 6, me, "bash"),   // pane
			30: p(30, 20, 20, 7, me, "sup"),    // sup start
			31: p(31, 30, 20, 8, me, "sup"),    // its guard (sup's session)
			40: p(40, 30, 40, 8, me, "claude"), // the agent
			41: p(41, 40, 40, 9, me, "bash"),   // its tool
			42: p(42, 41, 40, 10, me, "sup"),   // `sup answer` from the tool
			50: p(50, 30, 50, 11, me, "sleep"), // a setsid daemon adopted by 30
			51: p(51, 50, 50, 12, me, "sup"),   // its `sup answer`
			60: p(60, 10, 60, 6, me, "bash"),   // operator's pane
			61: p(61, 60, 60, 13, me, "sup"),   // `sup dash`
			62: p(62, 61, 60, 14, me, "sup"),   // a sup client it runs
			70: p(70, 41, 40, 15, 0, "sudo"),   // sudo from the tool
			71: p(71, 70, 71, 16, me, "sup"),   // … running sup as us
			80: p(80, 41, 80, 17, me, "sup"),   // a nested `sup start` run by the agent
			81: p(81, 80, 81, 18, me, "codex"), // its agent
			82: p(82, 81, 81, 19, me, "sup"),   // calling
			90: p(90, 10, 90, 6, me, "sshd"),   // a process whose exe we cannot read (sshd's session process, some kernels) …
			91: p(91, 90, 91, 20, me, "sup"),   // … above a session leader
			95: p(95, 1, 95, 21, me, "nohup"),  // an orphan adopted by init, whose exe is unreadable
			92: p(92, 10, 92, 6, me, "sup"),    // a sup whose exe we cannot read (not dumpable) …
			93: p(93, 92, 93, 22, me, "bash"),  // … above its agent
			96: p(96, 10, 96, 6, 0, "sup"),     // a sup shown as root's (not dumpable, stock kernel) …
			97: p(97, 96, 97, 23, me, "bash"),  // … above its agent
			98: p(98, 10, 98, 6, 0, "sshd"),    // sshd's session process, shown as root's …
			99: p(99, 98, 99, 24, me, "sup"),   // … above `sup relay`
			// A supervisor started from a 0711 binary is not dumpable:
			// root owns its /proc entry and its exe cannot be read.
			100: p(100, 20, 20, 22, 0, "sup"),
			101: p(101, 100, 101, 23, me, "claude"), // its agent
			102: p(102, 101, 101, 24, me, "sup"),    // calling
			// The operator over ssh: sshd's session process is root's (or
			// not dumpable), in another session, its exe unreadable.
			110: p(110, 1, 110, 25, 0, "sshd"),
			111: p(111, 110, 111, 26, me, "bash"),
			112: p(112, 111, 111, 27, me, "sup"),
		},
		exes: map[int]string{
			10: "/usr/bin/tmux", 20: "/bin/bash", 30: "/usr/local/bin/sup", 31: "/usr/local/bin/sup",
			40: "/usr/bin/node", 41: "/bin/bash", 42: "/usr/local/bin/sup", 50: "/bin/sleep", 51: "/usr/local/bin/sup",
			60: "/bin/bash", 61: "/usr/local/bin/sup", 62: "/usr/local/bin/sup", 70: "/usr/bin/sudo", 71: "/usr/local/bin/sup",
			80: "/usr/local/bin/sup", 81: "/usr/bin/codex", 82: "/usr/local/bin/sup", 91: "/usr/local/bin/sup",
		},
	}
}

func TestDecide(t *testing.T) {
	cfg := Config{UID: me, SelfExe: "/usr/local/bin/sup"}
	for _, tc := range []struct {
		name string
		pid  int
		self int
		kind Kind
		sups []int // enclosing supervisors, innermost first
	}{
		{"operator's client", 61, 0, Operator, nil},
		{"a sup client's child (same session)", 62, 0, Operator, nil},
		{"the agent's tool", 42, 0, Agent, []int{30}},
		{"the agent itself", 40, 0, Agent, []int{30}},
		{"an adopted setsid daemon's child", 51, 0, Agent, []int{30}},
		{"the guard, sup's helper", 31, 0, Operator, nil},
		{"the supervisor itself", 30, 0, Operator, nil},
		{"sudo between the agent and the caller", 71, 0, Agent, []int{30}},
		{"a nested supervisor's agent", 82, 0, Agent, []int{80, 30}},
		{"self encloses whatever its exe", 42, 30, Agent, []int{30}},
		{"an unreadable exe above a session leader: its comm is not sup's (sshd's session process)", 91, 0, Operator, nil},
		{"an unreadable exe above a session leader: its comm is sup's", 93, 0, Agent, []int{92}},
		{"a sup shown as root's (not dumpable) encloses by its comm", 97, 0, Agent, []int{96}},
		{"a root process not named sup does not (sshd above sup relay)", 99, 0, Operator, nil},
		{"pid 0: another pid namespace", 0, 0, Agent, nil},
		{"init never encloses (an orphan of the operator)", 95, 0, Operator, nil},
		{"a non-dumpable supervisor (root owns its /proc, comm sup) fails closed", 102, 0, Agent, []int{100}},
		{"the operator under sshd (root's, not named sup)", 112, 0, Operator, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			c.Self = tc.self
			v, err := Decide(host(), tc.pid, c)
			if err != nil {
				t.Fatal(err)
			}
			if v.Kind != tc.kind {
				t.Fatalf("kind %s, want %s (chain %s)", v.Kind, tc.kind, v)
			}
			var got []int
			for _, s := range v.Supervisors {
				got = append(got, s.PID)
			}
			if len(got) != len(tc.sups) || len(got) > 0 && got[0] != tc.sups[0] || len(got) > 1 && got[1] != tc.sups[1] {
				t.Fatalf("supervisors %v, want %v (chain %s)", got, tc.sups, v)
			}
		})
	}
}

func TestDecideSelfExeRenamed(t *testing.T) {
	tb := host()
	tb.exes[30] = "/opt/sup-2.1 (deleted)"
	// Named otherwise, but the decider's own (deleted) binary: still sup.
	v, err := Decide(tb, 42, Config{UID: me, SelfExe: "/opt/sup-2.1"})
	if err != nil || v.Kind != Agent {
		t.Fatalf("kind %s err %v, want agent", v.Kind, err)
	}
}

func TestDecideRefusesWhatItCannotRead(t *testing.T) {
	cfg := Config{UID: me}
	for _, tc := range []struct {
		name   string
		mutate func(f fake)
		pid    int
		want   string
	}{
		{"caller gone", func(f fake) { delete(f.procs, 42) }, 42, "no such process"},
		{"caller a zombie", func(f fake) { p := f.procs[42]; p.Zombie = true; f.procs[42] = p }, 42, "no such process"},
		{"ancestor gone mid-walk", func(f fake) { delete(f.procs, 40) }, 42, "ancestor 40"},
		{"ancestor's pid reused", func(f fake) { p := f.procs[40]; p.Start = 99; f.procs[40] = p }, 42, "started after its child"},
		{"cycle", func(f fake) { p := f.procs[20]; p.PPID = 42; p.Start = 0; f.procs[20] = p }, 42, "loops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := host()
			tc.mutate(f)
			v, err := Decide(f, tc.pid, cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v (verdict %s %s), want one naming %q", err, v.Kind, v, tc.want)
			}
		})
	}
}

func TestDecideDepthBound(t *testing.T) {
	f := fake{procs: map[int]Proc{}, exes: map[int]string{}}
	for pid := 1; pid <= MaxDepth+5; pid++ {
		f.procs[pid] = Proc{PID: pid, PPID: pid - 1, SID: 1, Start: uint64(pid), Comm: "sh"}
	}
	if _, err := Decide(f, MaxDepth+5, Config{UID: me}); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Fatalf("err %v, want the depth refusal", err)
	}
}

func TestParseStat(t *testing.T) {
	tail := " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 4242 1 2 3"
	for _, tc := range []struct {
		in   string
		want Proc
		bad  bool
	}{
		{in: "42 (bash) S 41 42 40 34816" + tail, want: Proc{PID: 42, PPID: 41, SID: 40, Start: 4242, Comm: "bash"}},
		{in: "42 (a) b) c) Z 41 42 40 1" + tail, want: Proc{PID: 42, PPID: 41, SID: 40, Start: 4242, Comm: "a) b) c", Zombie: true}},
		{in: "42 (x\n) S 7) S 41 42 40 1" + tail, want: Proc{PID: 42, PPID: 41, SID: 40, Start: 4242, Comm: "x\n) S 7"}},
		{in: "42 (bash) S 41 42 40", bad: true},
		{in: "(bash) S 41 42 40 1" + tail, bad: true},
		{in: "42 bash S 41 42 40 1" + tail, bad: true},
		{in: "42 (bash) S -3 42 40 1" + tail, bad: true},
		{in: "", bad: true},
	} {
		got, err := ParseStat([]byte(tc.in))
		if tc.bad {
			if err == nil {
				t.Errorf("ParseStat(%q) = %+v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseStat(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("42 (bash) S 41 42 40 34816 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 4242 1 2 3"))
	f.Add([]byte("1 ()) R 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseStat(b)
		if err != nil {
			return
		}
		if p.PID <= 0 || p.PPID < 0 {
			t.Fatalf("accepted pid %d ppid %d", p.PID, p.PPID)
		}
		if !strings.Contains(string(b), "("+p.Comm+")") {
			t.Fatalf("comm %q is not what the parentheses hold", p.Comm)
		}
	})
}

// TestCommIsSup: a comm names sup when it is "sup" or the decider's own
// executable's name as execve cuts it (15 bytes).
func TestCommIsSup(t *testing.T) {
	for _, c := range []struct {
		comm, self string
		want       bool
	}{
		{"sup", "/usr/local/bin/sup", true},
		{"sup", "", true},
		{"supervisor.tes", "/tmp/go/supervisor.test", false},
		{"supervisor.test", "/tmp/go/supervisor.test", true},
		{"sup-nightly-bui", "/opt/sup-nightly-build", true},
		{"sshd", "/usr/local/bin/sup", false},
		{"", "", false},
		{"sup", "/usr/local/bin/sup (deleted)", true},
	} {
		if got := CommIsSup(c.comm, c.self); got != c.want {
			t.Errorf("CommIsSup(%q, %q) = %v, want %v", c.comm, c.self, got, c.want)
		}
	}
}
