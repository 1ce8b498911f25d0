//go:build linux

package dash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/term"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/view"
	"github.com/sup-tmux/sup/ipc"
)

// Run is `sup dash` on the terminal of stdin and stdout until ctx ends
// or the user quits: the rows of fo's hosts (and of this host's
// supervisors when local), kept live from their events, with actions on
// them through f; jumps move the tmux client named client (the caller's
// when empty).
func Run(ctx context.Context, f *broker.Fleet, fo broker.Fanout, local bool, client string) error {
	in, out := int(os.Stdin.Fd()), int(os.Stdout.Fd())
	if !term.IsTerminal(in) || !term.IsTerminal(out) {
		return errors.New("dash: needs a terminal on stdin and stdout (run it in a tmux pane or a popup)")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dir := fo.RuntimeDir // checked by NewFleet
	m := newDashModel(dir, time.Now, dashIO(ctx, f, client))
	// No renderer: bubbletea's redraws on a 60 fps ticker, which
	// would wake an idle dashboard 60 times a second. The painter
	// draws after each message instead, and only a changed frame;
	// without a renderer bubbletea neither makes the terminal raw
	// nor reports its size, so that is done here.
	p := tea.NewProgram(&dashPainter{m: m, out: os.Stdout}, tea.WithoutRenderer(), tea.WithContext(ctx))
	old, err := term.MakeRaw(in)
	if err != nil {
		return fmt.Errorf("dash: raw terminal: %w", err)
	}
	defer term.Restore(in, old) // Best effort: the terminal may be gone.
	go sendSizes(ctx, p, out)
	if local {
		go func() {
			// Best effort: Watch only fails when ctx ends.
			_ = broker.Watch(ctx, dir, func(c broker.Change) { p.Send(changeMsg(c)) })
		}()
	}
	// Each other host on its own: one that does not answer is a
	// line of its own and never holds up the others' rows.
	for _, h := range fo.Hosts {
		go fo.SSH.WatchHost(ctx, h, fo.Deadline, func(c broker.Change) { p.Send(changeMsg(c)) })
	}
	fmt.Fprint(os.Stdout, "\x1b[?1049h\x1b[?25l") // alternate screen, no cursor
	_, err = p.Run()
	fmt.Fprint(os.Stdout, "\x1b[?25h\x1b[?1049l")
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("dash: %w", err)
	}
	return nil
}

// sendSizes tells the program the terminal's size now and after each
// SIGWINCH, until ctx ends.
func sendSizes(ctx context.Context, p *tea.Program, fd int) {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	for {
		if w, h, err := term.GetSize(fd); err == nil {
			p.Send(tea.WindowSizeMsg{Width: w, Height: h})
		}
		select {
		case <-ctx.Done():
			return
		case <-winch:
		}
	}
}

// dashIO is the dashboard's actions on real supervisors and tmux.
func dashIO(ctx context.Context, f *broker.Fleet, client string) dashActions {
	call1 := func(s broker.Listing, method string, params, result any) error {
		c, done, err := f.Dial(ctx, s)
		if err != nil {
			return fmt.Errorf("%s: %w", s.State.Name, err)
		}
		defer done()
		if err := broker.Call(ctx, c, method, params, result); err != nil {
			return fmt.Errorf("%s %s: %w", method, s.State.Name, err)
		}
		return nil
	}
	return dashActions{
		jump: func(s broker.Listing) (string, error) {
			j, err := f.Jump(ctx, broker.CallerTmux(os.Getenv), client, s)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("jumped to %s (%s)", s.State.Name, j), nil
		},
		trigger: func(s broker.Listing, text string) (string, error) {
			p := ipc.TriggerParams{
				TriggerID: fmt.Sprintf("dash-%d-%d", time.Now().UnixMilli(), os.Getpid()),
				Reason:    "sup dash", Prompt: text, Requester: "dash:" + view.CurrentUser(), Wait: true,
			}
			if s.Host != "" {
				p.Requester = broker.OriginRequester(p.Requester)
			}
			var r ipc.TriggerResult
			if err := call1(s, ipc.MethodTrigger, p, &r); err != nil {
				return "", err
			}
			return view.DescribeTrigger(r, s.State.Name), nil
		},
		answer: func(s broker.Listing, choice string) (string, error) {
			r, err := f.Answer(ctx, s, ipc.AnswerParams{Choice: choice, Expect: s.State.PromptID, Requester: "dash:" + view.CurrentUser()})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("answered %s prompt with %s (acked by %s)", view.Possessive(s.State.Name), r.Choice, r.AckedBy), nil
		},
		restart: func(s broker.Listing) (string, error) {
			var r ipc.RestartResult
			if err := call1(s, ipc.MethodRestart, ipc.RestartParams{Mode: "resume"}, &r); err != nil {
				return "", err
			}
			return fmt.Sprintf("restarted %s (%s, pid %d)", s.State.Name, r.Mode, r.PID), nil
		},
		skip: func(s broker.Listing) (string, error) {
			r, err := f.Skip(ctx, s, 0)
			if err != nil {
				return "", fmt.Errorf("skip %s: %w", s.State.Name, err)
			}
			return fmt.Sprintf("skipped %s until %s", s.State.Name, time.UnixMilli(r.SkipUntil).Format(time.TimeOnly)), nil
		},
	}
}

// dashPainter runs the model and draws its View after every message,
// writing only frames that differ from the last one.
type dashPainter struct {
	m    *dashModel
	out  io.Writer
	last string
}

func (p *dashPainter) Init() tea.Cmd { return p.m.Init() }

func (p *dashPainter) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := p.m.Update(msg)
	p.paint()
	return p, cmd
}

// View is empty: without a renderer bubbletea never draws it.
func (p *dashPainter) View() string { return "" }

// paint redraws the whole frame from the top left, clearing the rest of
// each line and of the screen; the terminal is raw, so lines end in CR LF.
func (p *dashPainter) paint() {
	frame := p.m.View()
	if frame == p.last {
		return
	}
	p.last = frame
	lines := strings.Split(frame, "\n")
	if p.m.height > 0 && len(lines) > p.m.height {
		lines = lines[:p.m.height]
	}
	// Best effort: a terminal that went away ends the program anyway.
	_, _ = io.WriteString(p.out, "\x1b[H"+strings.Join(lines, "\x1b[K\r\n")+"\x1b[K\x1b[J")
}
