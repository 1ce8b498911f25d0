package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// DefaultTimeout bounds a command when Server.Timeout is zero, so that a
// wedged server fails the caller instead of hanging it.
const DefaultTimeout = 5 * time.Second

// Server is one tmux server. The zero value is tmux's default server.
type Server struct {
	Socket  string        // a socket path (tmux -S), as in $TMUX
	Name    string        // a socket name (tmux -L), when Socket is ""
	Config  string        // tmux -f: the file a server this starts reads ("" : ~/.tmux.conf)
	Env     []string      // the command's environment; nil inherits sup's
	Timeout time.Duration // per command; 0 is DefaultTimeout
}

// Caller is the tmux server in the caller's $TMUX ("socket,pid,session"):
// its Socket is "" outside tmux.
func Caller(getenv func(string) string) Server {
	return Server{Socket: SocketOf(getenv("TMUX"))}
}

// SocketOf is the socket path in a $TMUX value, "" for an empty one.
func SocketOf(tmuxEnv string) string {
	sock, _, _ := strings.Cut(tmuxEnv, ",")
	return sock
}

// Format is a tmux format that sup's source wrote, such as
// "#{session_id}\t#{pane_id}". Never convert session data to a Format:
// pass it as a string parameter, which the builders escape.
type Format string

// Escape returns s as tmux shows it in a format position: every # doubled,
// so #(…), #{…} and #[…] are text.
func Escape(s string) string {
	if !strings.Contains(s, "#") {
		return s
	}
	return strings.ReplaceAll(s, "#", "##")
}

// Cmd is one tmux command, built only by this package's constructors.
type Cmd struct {
	words []string
	err   error
}

// expanding are the commands with an argument tmux expands as a format
// (and their aliases): Raw refuses them.
var expanding = map[string]string{
	"display-message": "Display or Query", "display": "Display or Query",
	"new-window": "NewWindow", "neww": "NewWindow",
	"new-session": "NewWindow", "new": "NewWindow",
	"rename-window": "", "renamew": "", "rename-session": "", "rename": "",
	"set-option": "SetOption", "set": "SetOption", "set-window-option": "SetOption", "setw": "SetOption",
	"split-window": "", "splitw": "", "run-shell": "", "run": "", "if-shell": "", "if": "",
	"command-prompt": "", "confirm-before": "", "display-menu": "", "display-popup": "", "popup": "",
}

// Raw is a command whose arguments tmux does not expand as formats (a
// target, a -F Format, a shell command for respawn-pane): list-clients,
// switch-client, has-session, kill-server and the like. It refuses the
// commands that expand an argument, a -c start directory and a ";"
// (chain with Server.Exec).
func Raw(args ...string) Cmd {
	if len(args) == 0 {
		return Cmd{err: errors.New("tmux: empty command")}
	}
	if use, ok := expanding[args[0]]; ok {
		if use == "" {
			use = "Authored, with every word from sup's source"
		}
		return Cmd{err: fmt.Errorf("tmux: %s expands its arguments as formats: build it with tmux.%s", args[0], use)}
	}
	for _, a := range args[1:] {
		switch a {
		case ";", `\;`:
			return Cmd{err: errors.New("tmux: a \";\" in a Raw command: chain commands with Server.Exec")}
		case "-c":
			if args[0] != "switch-client" && args[0] != "detach-client" && args[0] != "refresh-client" && args[0] != "suspend-client" && args[0] != "list-keys" {
				return Cmd{err: fmt.Errorf("tmux: %s -c expands its directory as a format: build it with tmux.NewWindow", args[0])}
			}
		}
	}
	return Cmd{words: args}
}

// Authored is a command whose every word is a constant of sup's source or
// a shell-quoted command line: it is passed as written, unchecked. The
// demo's layout and the test rig use it; never give it session data.
func Authored(args ...string) Cmd { return Cmd{words: args} }

// DisplayCmd shows text on client's status line ("" : tmux's current
// client) as written: it is escaped, never read as a format.
func DisplayCmd(client, text string) Cmd {
	w := []string{"display-message"}
	if client != "" {
		w = append(w, "-c", client)
	}
	return Cmd{words: append(w, "--", Escape(text))}
}

// QueryCmd prints the format f expanded for target ("" : the current
// pane; a client name after -c when target starts with "client:").
func QueryCmd(target string, f Format) Cmd {
	w := []string{"display-message", "-p"}
	if c, ok := strings.CutPrefix(target, "client:"); ok {
		w = append(w, "-c", c)
	} else if target != "" {
		w = append(w, "-t", target)
	}
	return Cmd{words: append(w, "--", string(f))}
}

// Window is a new window (or, with NewSession, a new session and its
// first window). Session, Name and Dir are data: they are escaped where
// tmux expands them. Command is one shell command line, which tmux runs
// as it is.
type Window struct {
	NewSession bool
	Session    string // new-session -s, or the session new-window adds to ("" : current)
	Target     string // new-window -t, overriding Session (e.g. "main:", "$3:")
	Name       string // the window's name ("" : tmux names it)
	Dir        string // start directory ("" : tmux's default)
	Env        []string
	Width      int    // new-session -x, when > 0
	Height     int    // new-session -y, when > 0
	Detached   bool   // -d: never switch a client to it
	Print      Format // -P -F: what to print about the new pane ("" prints nothing)
	Command    string
}

// NewWindowCmd builds w.
func NewWindowCmd(w Window) Cmd {
	var a []string
	if w.NewSession {
		a = []string{"new-session"}
		if w.Session != "" {
			a = append(a, "-s", Escape(w.Session))
		}
		if w.Width > 0 {
			a = append(a, "-x", strconv.Itoa(w.Width))
		}
		if w.Height > 0 {
			a = append(a, "-y", strconv.Itoa(w.Height))
		}
	} else {
		a = []string{"new-window"}
		switch {
		case w.Target != "":
			a = append(a, "-t", w.Target)
		case w.Session != "":
			a = append(a, "-t", w.Session+":")
		}
	}
	if w.Detached {
		a = append(a, "-d")
	}
	if w.Name != "" {
		a = append(a, "-n", Escape(w.Name))
	}
	if w.Print != "" {
		a = append(a, "-P", "-F", string(w.Print))
	}
	if w.Dir != "" {
		a = append(a, "-c", Escape(w.Dir))
	}
	for _, kv := range w.Env {
		a = append(a, "-e", kv)
	}
	if w.Command != "" {
		a = append(a, w.Command)
	}
	return Cmd{words: a}
}

// SetOptionCmd sets option to value: flags are set-option's own ("-g",
// "-w", "-t", target…). value is a Format, because tmux expands the
// status options it draws; a user option (@name) is stored and read back
// literally, so SetUserOptionCmd takes data.
func SetOptionCmd(flags []string, option string, value Format) Cmd {
	return Cmd{words: append(append(append([]string{"set-option"}, flags...), "--"), option, string(value))}
}

// SetUserOptionCmd sets the user option @name of target's window to value
// as written (tmux neither expands a user option's value nor re-expands
// it where #{@name} reads it).
func SetUserOptionCmd(target, name, value string) (Cmd, error) {
	if !strings.HasPrefix(name, "@") {
		return Cmd{}, fmt.Errorf("tmux: user option %q: its name must start with @", name)
	}
	return Cmd{words: []string{"set-option", "-w", "-t", target, "--", name, value}}, nil
}

// Exec runs cmds as one tmux invocation ("a ; b ; c") and returns its
// output without the final newline; an error carries tmux's stderr.
func (s Server) Exec(ctx context.Context, cmds ...Cmd) (string, error) {
	var args []string
	for i, c := range cmds {
		if c.err != nil {
			return "", c.err
		}
		if i > 0 {
			args = append(args, ";")
		}
		for _, w := range c.words {
			args = append(args, literalSemicolon(w))
		}
	}
	return s.run(ctx, args)
}

// literalSemicolon keeps a word's final ";" part of the word: tmux ends a
// command at any argv word that ends in ";" (a name "x;" would split
// new-window there), and reads "\;" at the end as a literal ";" — only the
// one character before it, so "a\;" as data becomes "a\\;" and comes back
// as "a\;". A word that is just ";" is the separator Exec and the callers
// that chain commands put there.
func literalSemicolon(w string) string {
	if len(w) > 1 && w[len(w)-1] == ';' {
		return w[:len(w)-1] + `\;`
	}
	return w
}

// Run runs one Raw command.
func (s Server) Run(ctx context.Context, args ...string) (string, error) {
	return s.Exec(ctx, Raw(args...))
}

// Display shows text on client ("" : the current client) as written.
func (s Server) Display(ctx context.Context, client, text string) error {
	_, err := s.Exec(ctx, DisplayCmd(client, text))
	return err
}

// Query expands f for target (see QueryCmd).
func (s Server) Query(ctx context.Context, target string, f Format) (string, error) {
	return s.Exec(ctx, QueryCmd(target, f))
}

// NewWindow opens w and returns what w.Print asked for.
func (s Server) NewWindow(ctx context.Context, w Window) (string, error) {
	return s.Exec(ctx, NewWindowCmd(w))
}

func (s Server) prefix() []string {
	var p []string
	switch {
	case s.Socket != "":
		p = []string{"-S", s.Socket}
	case s.Name != "":
		p = []string{"-L", s.Name}
	}
	if s.Config != "" {
		p = append(p, "-f", s.Config)
	}
	return p
}

// String names the server as tmux's flags do.
func (s Server) String() string {
	if p := s.prefix(); p != nil {
		return "tmux " + strings.Join(p, " ")
	}
	return "tmux"
}

func (s Server) run(ctx context.Context, args []string) (string, error) {
	d := s.Timeout
	if d == 0 {
		d = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", append(s.prefix(), args...)...)
	cmd.Env = s.Env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return strings.TrimSuffix(out.String(), "\n"), fmt.Errorf("%s %s: %w: %s", s, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}

// WithoutTmuxEnv is env without $TMUX and $TMUX_PANE: for a server that
// is not the caller's (tmux would otherwise find the caller's through
// $TMUX, and a new server copies its environment into its panes).
func WithoutTmuxEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			out = append(out, kv)
		}
	}
	return out
}
