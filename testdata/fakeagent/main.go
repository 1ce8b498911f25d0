// Command fakeagent stands in for an AI coding agent in sup's tests. It is a
// small, predictable program that sup can run behind its pty, restart,
// resize and signal, and whose every reaction shows up as a line of output
// that tests can wait for.
//
// Tests build it with
//
//	go build -o X ./testdata/fakeagent
//
// (internal/testing/testutil.BuildPackage does this once per test process).
//
// Startup, in this order, each step only when its flag is given:
//
//	-starts FILE          append "start pid=<pid>" to FILE (to count restarts)
//	-daemon               start a detached grandchild (new session and process
//	                      group, SIGHUP ignored, stdio on /dev/null) that sleeps
//	                      forever; it writes its pid to -daemon-pidfile FILE,
//	                      and fakeagent waits for that file before going on
//	-daemon-keep-tty      let the grandchild keep fakeagent's stdin, stdout and
//	                      stderr (the pty) open instead of /dev/null
//	-print-cwd            print "cwd=<dir>"
//	-print-env            print "env NAME=VALUE" for every variable, sorted
//	-print-size           print "size=COLSxROWS" of the terminal on stdin
//	-title T              emit the OSC 0 sequence ESC ] 0 ; T BEL
//	-bracketed            enable bracketed paste (ESC [ ? 2004 h)
//	-draft TEXT           draw a Claude Code-style input box holding the
//	                      unsent TEXT (a rule, "❯" U+00A0 TEXT, a rule), so
//	                      the claude profile's classifier sees a draft
//	-raw                  put the terminal on stdin in raw mode (restored on
//	                      a clean exit)
//
// then it prints "fakeagent ready pid=<pid>"; tests wait for that line. Signal
// handlers are installed before it, so a resize or SIGTERM sent after it is
// never missed. Then:
//
//	-ready                tell the supervisor it waits for a prompt, as an
//	                      agent with sup's hooks does: a Claude-style Stop
//	                      hook over $SUP_SOCKET. Without it (and without a
//	                      profile whose screen rules read it) the session
//	                      stays unknown, and sup never types into an unknown
//	                      screen (specs/triggers.md).
//
// While running:
//
//	SIGWINCH              print "winch size=COLSxROWS"
//	SIGTERM               print "fakeagent got SIGTERM" and exit 143; with
//	                      -ignore-term print "fakeagent got SIGTERM, ignoring"
//	                      and keep running (for grace-period tests)
//	SIGHUP                the default: die of it; with -ignore-hup print
//	                      "fakeagent got SIGHUP, ignoring" and keep running
//	SIGINT                print "fakeagent got SIGINT" and exit 130
//	-echo                 print "got: <line>" for every line read from stdin;
//	                      with -raw, print "key: <hex>" for every byte instead
//	-record FILE          with -raw, append every byte read from stdin to FILE
//	                      (byte-exact checks of what sup typed)
//	-ack                  with -raw, on each \r print "ACK_TRIGGER:<id>" if
//	                      the input since the last \r holds a trigger
//	                      envelope "[BRIDGE_TRIGGER id=<id> ...", else
//	                      "SUBMITTED <n> bytes" (a trigger ack marker)
//	stdin EOF             print "fakeagent stdin EOF" and exit 0
//	-exit N -after DUR    exit with code N, DUR after ready (default 0s)
//	-signal NAME -after DUR
//	                      die by signal NAME (KILL, SEGV, ABRT, HUP, ...) DUR
//	                      after ready; the process really is killed by the
//	                      signal, so its wait status says so
//	-confirm Q            with -raw, after ready ask "Allow Q? [y/n]" with
//	                      the options "  1. Yes" / "  2. No" below it and
//	                      the title "[?] Q"; a key y, n or a digit answers
//	                      it: "answered: <key>" and the title "[>] idle";
//	                      with -reask DUR it asks again DUR later; with
//	                      -options=false it lists no options
//	-menu Q               with -raw, after ready draw a dialog no rule of the
//	                      confirm profile reads (no title, no "[y/n]"): the
//	                      line Q, then "  (s) staging" / "  (p) production"
//	                      and "Press s or p"; a key s or p answers it:
//	                      "picked: <key>" and the title "[>] idle"
//	-spinner              after ready, redraw one Claude Code-style spinner
//	                      line in place every 100ms, its elapsed time and
//	                      token counter going up ("✶ Working… (3s · ↓ 40
//	                      tokens)"), forever: busy, and no progress
//	-work-after DUR       with -spinner, DUR after ready print the line of
//	                      real work "● Ran the tests: 12 passed" above it
//	-flood N              after ready, write N bytes of printable lines (79
//	                      characters and '\n') as fast as possible, then print
//	                      "fakeagent flood done" and exit 0; the pty adds a
//	                      '\r' to each '\n' unless it is in raw mode
//
// Without -exit, -signal or -flood it runs until stdin reaches EOF or a
// signal ends it. In raw mode every line ends in "\r\n", since the terminal
// no longer adds the '\r'.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// daemonEnv marks a re-executed fakeagent as the detached grandchild; its
// value is the pid file. An environment variable rather than a flag keeps the
// grandchild's command line free of test flags.
const daemonEnv = "FAKEAGENT_DAEMON_PIDFILE"

var (
	flagStarts     = flag.String("starts", "", "append `start pid=<pid>` to this `file` at start")
	flagDaemon     = flag.Bool("daemon", false, "start a detached grandchild that sleeps forever")
	flagDaemonPID  = flag.String("daemon-pidfile", "", "`file` the grandchild writes its pid to")
	flagDaemonTTY  = flag.Bool("daemon-keep-tty", false, "let the grandchild keep stdio open")
	flagPrintCwd   = flag.Bool("print-cwd", false, "print cwd=<dir> at start")
	flagPrintEnv   = flag.Bool("print-env", false, "print env NAME=VALUE, sorted, at start")
	flagPrintSize  = flag.Bool("print-size", false, "print size=COLSxROWS at start")
	flagTitle      = flag.String("title", "", "emit an OSC 0 `title`")
	flagBracketed  = flag.Bool("bracketed", false, "enable bracketed paste")
	flagRaw        = flag.Bool("raw", false, "put stdin's terminal in raw mode")
	flagEcho       = flag.Bool("echo", false, "print got: <line> (or key: <hex> with -raw) for input")
	flagExit       = flag.Int("exit", -1, "exit with this `code` after -after")
	flagSignal     = flag.String("signal", "", "die by this signal `name` after -after")
	flagAfter      = flag.Duration("after", 0, "delay before -exit or -signal")
	flagFlood      = flag.Int64("flood", -1, "write this many `bytes` of output, then exit 0")
	flagIgnoreTerm = flag.Bool("ignore-term", false, "keep running on SIGTERM")
	flagIgnoreHup  = flag.Bool("ignore-hup", false, "keep running on SIGHUP (a plain fakeagent dies of it, as most programs do)")
	flagRecord     = flag.String("record", "", "with -raw, append every byte read from stdin to this `file`")
	flagAck        = flag.Bool("ack", false, "with -raw, print ACK_TRIGGER:<id> when a trigger envelope is submitted")
	flagConfirm    = flag.String("confirm", "", "with -raw, ask `question` and take y, n or a digit as its answer")
	flagMenu       = flag.String("menu", "", "with -raw, draw a dialog asking `question` that no confirm-profile rule reads; s or p answers it")
	flagReask      = flag.Duration("reask", 0, "with -confirm, ask again this long after an answer (0: never)")
	flagAskOnInput = flag.Bool("ask-on-input", false, "with -confirm, start idle and ask at the first input byte (a dialog that opens under a paste); an Enter while asking prints `enter reached the question`")
	flagOptions    = flag.Bool("options", true, "with -confirm, list the numbered options under the question")
	flagDraft      = flag.String("draft", "", "at start, draw a Claude Code-style input box holding this `text`")
	flagReady      = flag.Bool("ready", false, "after ready, report it to $SUP_SOCKET with a Stop hook")
	flagSpinner    = flag.Bool("spinner", false, "after ready, redraw a Claude Code-style spinner line with a counter every 100ms")
	flagWorkAfter  = flag.Duration("work-after", 0, "with -spinner, print a line of real work this long after ready")
	rawState       *term.State
	outMu          sync.Mutex
	pid            = os.Getpid()
	stdinFD        = int(os.Stdin.Fd())
)

func main() {
	if file := os.Getenv(daemonEnv); file != "" {
		daemon(file)
		return
	}
	flag.Parse()
	if flag.NArg() > 0 {
		fatalf("unexpected arguments: %q", flag.Args())
	}
	var sig syscall.Signal
	if *flagSignal != "" {
		var err error
		if sig, err = signalByName(*flagSignal); err != nil {
			fatalf("-signal %s: %v", *flagSignal, err)
		}
	}

	if *flagStarts != "" {
		appendLine(*flagStarts, fmt.Sprintf("start pid=%d", pid))
	}
	if *flagDaemon {
		startDaemon()
	}
	if *flagPrintCwd {
		dir, err := os.Getwd()
		if err != nil {
			fatalf("getwd: %v", err)
		}
		say("cwd=" + dir)
	}
	if *flagPrintEnv {
		env := os.Environ()
		sort.Strings(env)
		for _, kv := range env {
			say("env " + kv)
		}
	}
	if *flagPrintSize {
		say("size=" + size())
	}
	if *flagTitle != "" {
		write("\x1b]0;" + *flagTitle + "\a")
	}
	if *flagBracketed {
		write("\x1b[?2004h")
	}
	if *flagRaw {
		st, err := term.MakeRaw(stdinFD)
		if err != nil {
			fatalf("raw mode: %v", err)
		}
		rawState = st
	}

	// Handlers go in before "ready" so tests may act as soon as they see it.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGWINCH, syscall.SIGTERM, syscall.SIGINT)
	if *flagIgnoreHup {
		signal.Notify(sigs, syscall.SIGHUP)
	}
	say(fmt.Sprintf("fakeagent ready pid=%d", pid))
	if *flagReady {
		reportReady()
	}
	if *flagDraft != "" {
		rule := strings.Repeat("─", 40)
		say(rule)
		say("❯\u00a0" + *flagDraft)
		say(rule)
	}

	switch {
	case *flagConfirm != "" && *flagAskOnInput:
		write("\x1b]0;[>] idle\a")
	case *flagConfirm != "":
		ask()
	}
	if *flagMenu != "" {
		menuOpen.Store(true)
		say(*flagMenu)
		say("  (s) staging")
		say("  (p) production")
		write("Press s or p ")
	}
	if *flagSpinner {
		go spin(time.Now())
	}
	if *flagFlood >= 0 {
		flood(*flagFlood)
		say("fakeagent flood done")
		exit(0)
	}
	if *flagExit >= 0 || sig != 0 {
		code := *flagExit
		time.AfterFunc(*flagAfter, func() {
			if sig != 0 {
				die(sig)
			}
			exit(code)
		})
	}
	go readInput()
	for s := range sigs {
		switch s {
		case syscall.SIGWINCH:
			say("winch size=" + size())
		case syscall.SIGTERM:
			if *flagIgnoreTerm {
				say("fakeagent got SIGTERM, ignoring")
				continue
			}
			say("fakeagent got SIGTERM")
			exit(143)
		case syscall.SIGINT:
			say("fakeagent got SIGINT")
			exit(130)
		case syscall.SIGHUP:
			say("fakeagent got SIGHUP, ignoring")
		}
	}
}

// readInput reads stdin until EOF, echoing it if -echo asks.
func readInput() {
	if rawState != nil {
		buf := make([]byte, 256)
		var line []byte // since the last \r, for -ack
		for {
			n, err := os.Stdin.Read(buf)
			if *flagRecord != "" && n > 0 {
				appendBytes(*flagRecord, buf[:n])
			}
			if *flagAck {
				for _, b := range buf[:n] {
					if b != '\r' {
						line = append(line, b)
						continue
					}
					ackTrigger(line)
					line = line[:0]
				}
			}
			if *flagEcho {
				for _, b := range buf[:n] {
					say(fmt.Sprintf("key: %02x", b))
				}
			}
			if *flagConfirm != "" {
				// The input that opens the question does not answer it.
				if !*flagAskOnInput || !askOnInput(buf[:n]) {
					confirm(buf[:n])
				}
			}
			if *flagMenu != "" {
				pick(buf[:n])
			}
			if err != nil {
				eof()
			}
		}
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if *flagEcho {
			say("got: " + sc.Text())
		}
	}
	eof()
}

// asking is whether -confirm's question is open (-reask's timer sets it).
var asking atomic.Bool

// ask shows -confirm's question.
func ask() {
	asking.Store(true)
	write("\x1b]0;[?] " + *flagConfirm + "\a")
	say("Allow " + *flagConfirm + "? [y/n]")
	if *flagOptions {
		say("  1. Yes")
		say("  2. No")
	}
}

// asked is whether -ask-on-input has asked its question.
var asked atomic.Bool

// askOnInput opens the question at the first byte of input, reporting
// whether p opened it, and reports an Enter that reaches it.
func askOnInput(p []byte) (opened bool) {
	for _, b := range p {
		switch {
		case b == '\r' && asking.Load():
			say("enter reached the question")
		case b != '\r' && asked.CompareAndSwap(false, true):
			ask()
			opened = true
		}
	}
	return opened
}

// confirm answers an open question with the first answer key in p.
func confirm(p []byte) {
	for _, b := range p {
		if !(b == 'y' || b == 'n' || b >= '1' && b <= '9') || !asking.CompareAndSwap(true, false) {
			continue
		}
		write("\x1b]0;[>] idle\a")
		say("answered: " + string(b))
		if *flagReask > 0 {
			time.AfterFunc(*flagReask, ask)
		}
	}
}

// menuOpen is whether -menu's dialog is open.
var menuOpen atomic.Bool

// pick answers -menu's dialog with the first s or p in p.
func pick(p []byte) {
	for _, b := range p {
		if (b == 's' || b == 'p') && menuOpen.CompareAndSwap(true, false) {
			write("\r\n")
			say("picked: " + string(b))
			write("\x1b]0;[>] idle\a")
		}
	}
}

// ackTrigger prints ACK_TRIGGER:<id> for a submitted line holding a trigger
// envelope's "id=<id>", and SUBMITTED <n> bytes for any other.
func ackTrigger(line []byte) {
	_, rest, ok := strings.Cut(string(line), "[BRIDGE_TRIGGER id=")
	if !ok {
		say(fmt.Sprintf("SUBMITTED %d bytes", len(line)))
		return
	}
	id, _, _ := strings.Cut(rest, " ")
	say("ACK_TRIGGER:" + id)
}

// appendBytes appends p to file, as -record asks.
func appendBytes(file string, p []byte) {
	f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fatalf("-record: %v", err)
	}
	defer f.Close()
	if _, err := f.Write(p); err != nil {
		fatalf("-record: %v", err)
	}
}

func eof() {
	say("fakeagent stdin EOF")
	exit(0)
}

// size reports the size of the terminal on stdin as COLSxROWS.
func size() string {
	cols, rows, err := term.GetSize(stdinFD)
	if err != nil {
		return "error:" + err.Error()
	}
	return fmt.Sprintf("%dx%d", cols, rows)
}

// flood writes n bytes of printable lines in large writes, so that the
// reader, not fakeagent, is the bottleneck.
func flood(n int64) {
	const lineLen = 80
	var line [lineLen]byte
	for i := range lineLen - 1 {
		line[i] = byte('!' + i%94)
	}
	line[lineLen-1] = '\n'
	chunk := make([]byte, 0, 64<<10)
	for len(chunk)+lineLen <= cap(chunk) {
		chunk = append(chunk, line[:]...)
	}
	outMu.Lock()
	defer outMu.Unlock()
	for n > 0 {
		c := chunk
		if int64(len(c)) > n {
			c = c[:n]
		}
		w, err := os.Stdout.Write(c)
		if err != nil {
			os.Exit(1)
		}
		n -= int64(w)
	}
}

// spin redraws the spinner line in place until the process ends; after
// -work-after it prints one line of real work first.
func spin(start time.Time) {
	glyphs := []string{"✶", "✻", "✢", "✳"}
	worked := *flagWorkAfter <= 0
	for i := 0; ; i++ {
		elapsed := time.Since(start)
		if !worked && elapsed >= *flagWorkAfter {
			worked = true
			write("\r\x1b[2K● Ran the tests: 12 passed\r\n")
		}
		write(fmt.Sprintf("\r\x1b[2K%s Working… (%ds · ↓ %d tokens)", glyphs[i%len(glyphs)], int(elapsed.Seconds()), 40*i))
		time.Sleep(100 * time.Millisecond)
	}
}

// say writes s and a line ending suited to the terminal mode.
func say(s string) {
	if rawState != nil {
		write(s + "\r\n")
	} else {
		write(s + "\n")
	}
}

func write(s string) {
	outMu.Lock()
	defer outMu.Unlock()
	// Write errors mean the pty is gone; the SIGHUP that comes with that
	// ends us, so there is nothing useful to do here.
	_, _ = os.Stdout.WriteString(s)
}

// exit restores the terminal and exits. Holding outMu keeps a half-written
// line from being cut off by another goroutine's exit.
func exit(code int) {
	outMu.Lock()
	if rawState != nil {
		_ = term.Restore(stdinFD, rawState)
	}
	os.Exit(code)
}

// die makes the process end by sig, as a crashing agent would. The Go
// runtime catches most signals and turns them into exit codes (a SIGSEGV
// sent with kill does not even stop it), so fakeagent replaces itself with
// a shell, which keeps the pid and has default dispositions, and lets the
// shell signal itself.
func die(sig syscall.Signal) {
	say(fmt.Sprintf("fakeagent dying by %s", unix.SignalName(sig)))
	outMu.Lock()
	if sig == syscall.SIGKILL {
		// Cannot be caught, so no detour is needed.
		_ = syscall.Kill(pid, sig)
		time.Sleep(time.Minute)
	}
	sh, err := exec.LookPath("sh")
	if err == nil {
		err = syscall.Exec(sh, []string{"sh", "-c", "kill -" + strconv.Itoa(int(sig)) + " $$; exit 127"}, os.Environ())
	}
	fmt.Fprintf(os.Stderr, "fakeagent: cannot die by %v: %v\n", sig, err)
	os.Exit(127)
}

func signalByName(name string) (syscall.Signal, error) {
	name = strings.ToUpper(name)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	if s := unix.SignalNum(name); s != 0 {
		return s, nil
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(name, "SIG")); err == nil && n > 0 {
		return syscall.Signal(n), nil
	}
	return 0, errors.New("unknown signal")
}

// startDaemon starts the detached grandchild and waits until it has written
// its pid file, so the grandchild exists, detached, by the time fakeagent is
// ready.
func startDaemon() {
	if *flagDaemonPID == "" {
		fatalf("-daemon needs -daemon-pidfile")
	}
	self, err := os.Executable()
	if err != nil {
		fatalf("daemon: %v", err)
	}
	_ = os.Remove(*flagDaemonPID)
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), daemonEnv+"="+*flagDaemonPID)
	// Setsid gives it a new session and process group, and no controlling
	// terminal, so neither the pty's hangup nor a signal to our group
	// reaches it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if *flagDaemonTTY {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	}
	if err := cmd.Start(); err != nil {
		fatalf("daemon: %v", err)
	}
	// Not waited for: when fakeagent dies the grandchild is reparented,
	// like a real daemon's.
	_ = cmd.Process.Release()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(*flagDaemonPID); err == nil && strings.HasSuffix(string(b), "\n") {
			return
		}
		if time.Now().After(deadline) {
			fatalf("daemon never wrote %s", *flagDaemonPID)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// daemon is the grandchild's whole life.
func daemon(pidfile string) {
	signal.Ignore(syscall.SIGHUP)
	// Write then rename, so the parent never reads a partial pid.
	tmp := pidfile + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		os.Exit(1)
	}
	if err := os.Rename(tmp, pidfile); err != nil {
		os.Exit(1)
	}
	// Sleep rather than select{}: with no other goroutine the runtime
	// would call an empty select a deadlock.
	for {
		time.Sleep(time.Hour)
	}
}

func appendLine(file, line string) {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fatalf("%v", err)
	}
	// One write with O_APPEND, so lines from concurrent starts never mix.
	if _, err := f.WriteString(line + "\n"); err != nil {
		fatalf("%v", err)
	}
	if err := f.Close(); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fakeagent: "+format+"\n", args...)
	if rawState != nil {
		_ = term.Restore(stdinFD, rawState)
	}
	os.Exit(2)
}

// reportReady sends the Stop hook an agent's hooks would send at its
// prompt.
func reportReady() {
	sock := os.Getenv("SUP_SOCKET")
	if sock == "" {
		fatalf("-ready: SUP_SOCKET is not set (run under sup start)")
	}
	c, err := ipc.Dial(sock, 5*time.Second)
	if err != nil {
		fatalf("-ready: %v", err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var res ipc.HookResult
	if err := c.Call(ctx, ipc.MethodHook, ipc.HookParams{Agent: "claude", Event: "Stop", Message: "fakeagent ready"}, &res); err != nil {
		fatalf("-ready: hook: %v", err)
	}
}
