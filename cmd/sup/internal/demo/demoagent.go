//go:build linux

package demo

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// Agent is the agent `sup demo` supervises: a prompt, a thinking phase
// and, for risky-sounding tasks, a y/n confirmation. It reports each step
// as an agent's hooks would (straight to its supervisor's socket) and in
// its window title (what the demo profile's screen rules read).
type Agent struct {
	out    io.Writer
	in     *bufio.Reader
	think  time.Duration
	id     string          // the conversation id, as a real agent's session id
	socket string          // "" outside sup: then nothing is reported
	name   string          // in the title after the state mark
	always map[string]bool // commands the human allowed for good (a)
}

// NewAgent is an agent on out and in that thinks for think per task;
// id is the conversation to continue ("" a new one), socket its
// supervisor's ("" outside sup: nothing is reported) and name its title.
func NewAgent(out io.Writer, in io.Reader, think time.Duration, id, socket, name string) *Agent {
	return &Agent{out: out, in: bufio.NewReader(in), think: think, id: id, socket: socket, name: name, always: map[string]bool{}}
}

// Run talks to the human until its input ends, starting on first when
// given (as if typed).
func (a *Agent) Run(ctx context.Context, first string) error {
	source := "resume"
	if a.id == "" {
		var b [6]byte
		_, _ = rand.Read(b[:]) // Best effort: any id will do for a demo.
		a.id, source = "demo-"+hex.EncodeToString(b[:]), "startup"
	}
	a.hook(ctx, ipc.HookParams{Event: "SessionStart", Source: source})
	fmt.Fprintf(a.out, "demo agent %s (%s) — type a task and Enter; tasks that deploy, delete or push ask first\r\n", a.id, source)
	task := first
	for {
		if task == "" {
			a.ready(ctx, "What should I do next?")
			line, err := a.in.ReadString('\n')
			if err != nil {
				return nil // the pane closed: like an agent, just end
			}
			if task = strings.TrimSpace(line); task == "" {
				continue
			}
		}
		a.work(ctx, task)
		task = ""
	}
}

// title sets the window title: the state mark the demo profile's rules
// read first, then the agent's name, so every pane border names its
// session.
func (a *Agent) title(t string) {
	if a.name != "" {
		mark, rest, _ := strings.Cut(t, " ")
		t = mark + " " + a.name + ": " + rest
	}
	fmt.Fprintf(a.out, "\x1b]0;%s\a", t)
}

// ready ends a turn: its last message and the prompt on screen first,
// then the title and the Stop hook that say ready, as an agent's turn
// ends — a reader told "ready" finds the message there (demo_verbs read
// the screen between the hook and the message, run 78).
func (a *Agent) ready(ctx context.Context, msg string) {
	fmt.Fprintf(a.out, "%s\r\n› ", msg)
	a.title("[>] ready")
	a.hook(ctx, ipc.HookParams{Event: "Stop", Message: msg})
}

func (a *Agent) work(ctx context.Context, task string) {
	a.hook(ctx, ipc.HookParams{Event: "UserPromptSubmit"})
	a.title("[*] thinking")
	a.thinking(task)
	if cmdName := "make " + firstWord(task); risky(task) && !a.always[cmdName] {
		a.hook(ctx, ipc.HookParams{Event: "PermissionRequest", ToolName: "Bash", Command: cmdName})
		a.title("[?] allow " + cmdName)
		fmt.Fprintf(a.out, "Allow `%s`? [y]es, [n]o, [a]lways: ", cmdName)
		line, _ := a.in.ReadString('\n') // EOF reads as no
		a.hook(ctx, ipc.HookParams{Event: "PostToolUse", ToolName: "Bash"})
		a.title("[*] thinking")
		answer := strings.ToLower(strings.TrimSpace(line))
		if strings.HasPrefix(answer, "a") {
			a.always[cmdName] = true
			fmt.Fprintf(a.out, "\r\nAllowed `%s` from now on.\r\n", cmdName)
		} else if !strings.HasPrefix(answer, "y") {
			a.ready(ctx, fmt.Sprintf("OK, I did not run make %s. What instead?", firstWord(task)))
			fmt.Fprint(a.out, "\r\n")
			return
		}
		a.thinking("make " + firstWord(task))
	}
	fmt.Fprintf(a.out, "Done: %s.\r\n", task)
}

// thinking shows a spinner for the agent's think time.
func (a *Agent) thinking(what string) {
	frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	deadline := time.Now().Add(a.think)
	for i := 0; time.Now().Before(deadline); i++ {
		fmt.Fprintf(a.out, "\r%s thinking about %s…", frames[i%len(frames)], what)
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Fprint(a.out, "\r\x1b[K")
}

func risky(task string) bool {
	t := strings.ToLower(task)
	for _, w := range []string{"deploy", "delete", "push"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

func firstWord(s string) string {
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 0 {
		return "it"
	}
	return f[0]
}

// hook reports a step to the supervisor as `sup hook` would for Claude
// Code. Best effort: the demo goes on without a supervisor.
func (a *Agent) hook(ctx context.Context, p ipc.HookParams) {
	if a.socket == "" {
		return
	}
	p.Agent, p.SessionID = "claude", a.id
	c, err := ipc.Dial(a.socket, time.Second)
	if err != nil {
		return
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_ = c.Call(ctx, ipc.MethodHook, p, nil) // Best effort.
}
