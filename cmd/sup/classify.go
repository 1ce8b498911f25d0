//go:build linux

package main

import (
	"context"

	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/supervisor"
	"github.com/sup-tmux/sup/supervisor/classify"
	"github.com/sup-tmux/sup/supervisor/modelread"
	"github.com/urfave/cli/v3"
)

// maxScreenDim is the screen model's largest side (supervisor/screen).
const maxScreenDim = 4096

// classifyCommand is `sup classify`: render a raw pty recording and say what
// the profile's classifier pack makes of its last screen (specs/detection.md,
// "Classifier packs"). A tool for writing and checking packs.
func classifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "classify",
		Usage:     "classify the last screen of a raw pty recording with a profile's classifier pack",
		ArgsUsage: "[FILE]",
		Description: "Renders FILE (or stdin, also with FILE \"-\"), the raw bytes an agent wrote to its terminal\n" +
			"(e.g. from tmux pipe-pane -O), on a COLSxROWS screen and applies the profile's classify:\n" +
			"rules. Prints activity, reason, the deciding rule, the draft in the input box (a\n" +
			"multi-line draft with \\n between its lines) and the rule's summary (a permission prompt's\n" +
			"command); --json prints the same as one object.\n\n" +
			"--model also sends the screen to the model reader configured in config.yaml (model:),\n" +
			"redacted and with the profile's model_examples, exactly as a session would, and prints its\n" +
			"reading (model_state, model_summary, model_option lines); --model-request prints the\n" +
			"request that would be sent (what leaves the machine) and sends nothing.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "profile", Usage: "the profile whose pack to use: claude, codex, gemini or a user profile"},
			&cli.StringFlag{Name: "size", Value: "120x40", Usage: "screen size COLSxROWS the bytes were written for"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
			&cli.BoolFlag{Name: "model", Usage: "also ask the model reader configured in config.yaml (model:) to read the screen"},
			&cli.BoolFlag{Name: "model-request", Usage: "print the model reader's request for the screen (what would leave the machine); send nothing"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 1 {
				return fmt.Errorf("classify: want at most one FILE, got %d arguments", cmd.Args().Len())
			}
			name := cmd.String("profile")
			if name == "" {
				return fmt.Errorf("classify: --profile NAME is required (%s)", strings.Join(plan.ProfileNames(paths.ConfigDir(os.Getenv)), ", "))
			}
			size, err := parseSize(cmd.String("size"))
			if err != nil {
				return fmt.Errorf("classify: %w", err)
			}
			if size.Cols > maxScreenDim || size.Rows > maxScreenDim {
				return fmt.Errorf("classify: --size %q: at most %dx%d", cmd.String("size"), maxScreenDim, maxScreenDim)
			}
			prof, pack, err := supervisor.LoadProfile(paths.ConfigDir(os.Getenv), name)
			if err != nil {
				return fmt.Errorf("classify: %w", err)
			}
			if pack == nil && !cmd.Bool("model") && !cmd.Bool("model-request") {
				return fmt.Errorf("classify: profile %s (%s) has no classify: section", name, prof.Source)
			}
			data, err := readInput(cmd.Args().First())
			if err != nil {
				return fmt.Errorf("classify: %w", err)
			}
			snap := classify.Render(data, int(size.Cols), int(size.Rows))
			if cmd.Bool("model-request") {
				_, err := classifyModel(ctx, prof.ModelExamples, snap.Text, true)
				return err
			}
			var res classify.Result
			if pack != nil {
				res = pack.Classify(snap)
			}
			var reading *modelread.Reply
			if cmd.Bool("model") {
				if reading, err = classifyModel(ctx, prof.ModelExamples, snap.Text, false); err != nil {
					return fmt.Errorf("classify: %w", err)
				}
			}
			if snap.InFrame {
				fmt.Fprintln(os.Stderr, "sup classify: note: the input ends inside a synchronized-output frame (?2026): the screen may be half drawn")
			}
			switch {
			case pack != nil && !pack.HasRules():
				errf("sup classify: note: profile %s has no screen rules; the supervisor reads its activity from the pty's foreground process instead\n", name)
			case pack != nil && pack.OnlyPrompts() && !res.Matched:
				errf("sup classify: note: profile %s's rules only name prompts; the supervisor reads its other activity from the pty's foreground process\n", name)
			}
			if cmd.Bool("json") {
				out := struct {
					classify.Result
					InFrame bool             `json:"in_frame"`
					Model   *modelread.Reply `json:"model,omitempty"`
				}{res, snap.InFrame, reading}
				enc := safetext.NewEncoder(os.Stdout)
				return enc.Encode(out)
			}
			for _, kv := range [][2]string{
				{"activity", string(res.Activity)},
				{"reason", res.Reason},
				{"rule", res.Rule},
				{"draft", strings.ReplaceAll(res.Draft, "\n", `\n`)},
				{"summary", res.Summary},
			} {
				outln(strings.TrimRight(kv[0]+" "+kv[1], " "))
			}
			if reading != nil {
				outln(strings.TrimRight("model_state "+reading.Activity(), " "))
				outln(strings.TrimRight("model_summary "+reading.Summary, " "))
				for i, a := range reading.Actions {
					outf("model_option %d %s (key %s)\n", i+1, a.Label, a.Key)
				}
			}
			return nil
		},
	}
}

func readInput(file string) ([]byte, error) {
	if file == "" || file == "-" {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
		return data, nil
	}
	return os.ReadFile(file)
}
