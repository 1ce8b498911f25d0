//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sup-tmux/sup/hooks"
	"github.com/sup-tmux/sup/ipc"
	"github.com/urfave/cli/v3"
)

// hooksCommand is `sup hooks install|status`: sup's entries in the agents'
// settings files (specs/hooks.md).
func hooksCommand() *cli.Command {
	return &cli.Command{
		Name:  "hooks",
		Usage: "install or check the agent hooks that report to sup",
		Commands: []*cli.Command{
			hooksInstallCommand(),
			hooksStatusCommand(),
		},
	}
}

func hooksInstallCommand() *cli.Command {
	return &cli.Command{
		Name:      "install",
		Usage:     "add sup's hooks to an agent's settings (" + ipc.AgentChoices() + ")",
		ArgsUsage: "AGENT",
		Description: "Merges sup's hook entries into the agent's settings, leaving every other entry and key\n" +
			"as it is. --user: the user's settings (~/.claude/settings.json; $CODEX_HOME/config.toml\n" +
			"(notify) and hooks.json; ~/.gemini/settings.json). --project DIR: DIR/.claude/settings.json,\n" +
			"DIR/.codex/hooks.json, DIR/.gemini/settings.json. Running it again changes nothing. A file\n" +
			"it changes is first copied to FILE.sup-backup-TIME.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "user", Usage: "install into the user's settings"},
			&cli.StringFlag{Name: "project", Usage: "install into the settings of the project in `DIR`"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the change as a unified diff; write nothing"},
			&cli.BoolFlag{Name: "force", Usage: "codex: replace a notify that runs another program"},
			&cli.StringFlag{Name: "sup-path", Usage: "the sup `PATH` the hooks run (default: this binary's absolute path; \"sup\" finds it in PATH)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return fmt.Errorf("hooks install: want one AGENT (%s)", ipc.AgentChoices())
			}
			agent, err := hooks.ParseAgent(cmd.Args().First())
			if err != nil {
				return fmt.Errorf("hooks install: %w", err)
			}
			target := hooks.Target{Agent: agent, Scope: hooks.User}
			switch {
			case cmd.Bool("user") && cmd.IsSet("project"):
				return fmt.Errorf("hooks install: --user and --project are exclusive")
			case cmd.IsSet("project"):
				dir, err := projectDir(cmd.String("project"))
				if err != nil {
					return fmt.Errorf("hooks install: %w", err)
				}
				target = hooks.Target{Agent: agent, Scope: hooks.Project, Dir: dir}
			case !cmd.Bool("user"):
				return fmt.Errorf("hooks install: say where: --user (your settings for every project) or --project DIR")
			}
			sup, err := supPath(cmd.String("sup-path"))
			if err != nil {
				return fmt.Errorf("hooks install: %w", err)
			}
			env, err := hooks.EnvFrom(os.Getenv)
			if err != nil {
				return fmt.Errorf("hooks install: %w", err)
			}
			plan, err := hooks.Prepare(env, target, hooks.Options{Sup: sup, Force: cmd.Bool("force")})
			if err != nil {
				return fmt.Errorf("hooks install: %w (nothing written)", err)
			}
			if cmd.Bool("dry-run") {
				os.Stdout.Write(plan.Diff())
				w := os.Stderr
				if plan.Installed() {
					w = os.Stdout
				}
				printPlan(w, plan, nil, true)
				return nil
			}
			written, err := plan.Apply(time.Now())
			if err == nil || len(written) > 0 { // else nothing was installed: the error says why
				printPlan(os.Stdout, plan, written, false)
			}
			if err != nil {
				return fmt.Errorf("hooks install: %w", err)
			}
			return nil
		},
	}
}

// projectDir makes --project's DIR absolute and checks it is a directory.
func projectDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("--project: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("--project: %s is not a directory", abs)
	}
	return abs, nil
}

// supPath is the sup the hooks run: --sup-path (a bare name stays a name,
// found in PATH when the hook runs; a path becomes absolute), else this
// binary.
func supPath(flag string) (string, error) {
	switch {
	case flag == "":
		return hooks.DefaultSup()
	case !strings.ContainsRune(flag, '/'):
		return flag, nil
	}
	return filepath.Abs(flag)
}

// printPlan tells what install did (written) or would do (dryRun).
func printPlan(w io.Writer, p *hooks.Plan, written []hooks.Written, dryRun bool) {
	if p.Installed() {
		fprintf(w, "%s: already installed in %s\n", p.Target, strings.Join(p.Current, ", "))
		return
	}
	verb := "installed"
	if dryRun {
		verb = "dry run, nothing written; would install"
	}
	fprintf(w, "%s: %s sup's hooks\n", p.Target, verb)
	for i, c := range p.Changes {
		switch {
		case dryRun:
			fprintf(w, "  %s: would %s\n", c.Path, c.Summary)
		case i < len(written):
			backup := "new file"
			if written[i].Backup != "" {
				backup = "backup " + written[i].Backup
			}
			fprintf(w, "  %s: %s (%s)\n", c.Path, c.Summary, backup)
		default:
			fprintf(w, "  %s: NOT written\n", c.Path)
		}
	}
	for _, path := range p.Current {
		fprintf(w, "  %s: already installed\n", path)
	}
	fprintf(w, "  hooks run: %s\n", p.Command)
	for _, n := range p.Notes {
		fprintf(w, "note: %s\n", n)
	}
}

func hooksStatusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show where sup's hooks are installed: each agent's user settings and the current project's",
		Flags: []cli.Flag{
			jsonFlag,
			&cli.StringFlag{Name: "project", Usage: "the project `DIR` to check (default: the current directory)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 0 {
				return usagef("hooks status: unexpected argument %q", cmd.Args().First())
			}
			env, err := hooks.EnvFrom(os.Getenv)
			if err != nil {
				return fmt.Errorf("hooks status: %w", err)
			}
			dir := cmd.String("project")
			if dir == "" {
				dir = "."
			}
			if dir, err = projectDir(dir); err != nil {
				return fmt.Errorf("hooks status: %w", err)
			}
			st := hooks.Status(env, dir)
			if cmd.Bool("json") {
				return printJSON(os.Stdout, st)
			}
			printStatus(os.Stdout, st)
			return nil
		},
	}
}

func printStatus(w io.Writer, st []hooks.FileStatus) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSCOPE\tSTATE\tFILE\tDETAIL")
	for _, s := range st {
		var detail []string
		if s.Kind == hooks.KindNotify {
			detail = append(detail, "notify")
		}
		if !s.Exists && s.State != hooks.Malformed {
			detail = append(detail, "no file")
		}
		if len(s.Missing) > 0 {
			detail = append(detail, "missing "+strings.Join(s.Missing, ", "))
		}
		if s.Problem != "" {
			detail = append(detail, strings.TrimPrefix(s.Problem, s.Path+":"))
		}
		fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Agent, s.Scope, strings.ReplaceAll(string(s.State), "_", " "), s.Path, strings.Join(detail, "; "))
	}
	tw.Flush()
}
