//go:build linux

package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/broker/web"
)

func webCommand() *cli.Command {
	return &cli.Command{
		Name:  "web",
		Usage: "the queue and every session in a browser, live; answer, send, skip and jump from it (prints its URL once, with a random token)",
		Description: "sup web serves one page on 127.0.0.1:7717 (--listen) and prints its URL once, with a random token:\n" +
			"open that URL; the token becomes a cookie and leaves the address bar. From a phone, tunnel the port\n" +
			"(ssh -L 7717:127.0.0.1:7717 HOST) or use a tailnet; do not open the port to a network.\n" +
			"--allow-remote listens on an address other hosts reach and REQUIRES --tls-cert and --tls-key\n" +
			"(the page then answers only to the names the certificate holds). specs/web.md has the rules.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: web.DefaultListen, Usage: "serve on HOST:PORT (loopback unless --allow-remote; PORT 0 picks a free one)"},
			&cli.BoolFlag{Name: "allow-remote", Usage: "let --listen use an address other hosts reach; requires --tls-cert and --tls-key (https only)"},
			&cli.StringFlag{Name: "tls-cert", Usage: "PEM certificate FILE: serve https (with --tls-key); its names are the host names the page answers to"},
			&cli.StringFlag{Name: "tls-key", Usage: "PEM private key FILE for --tls-cert"},
			clientFlag, hostFlag,
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			f, err := fleet()
			if err != nil {
				return err
			}
			fo, local, err := f.Select(hostName(cmd))
			if err != nil {
				return err
			}
			s, err := web.New(web.Config{
				Listen: cmd.String("listen"), AllowRemote: cmd.Bool("allow-remote"),
				TLSCert: cmd.String("tls-cert"), TLSKey: cmd.String("tls-key"),
				Fleet: f, Fanout: fo, Local: local,
				TmuxSocket: broker.CallerTmux(os.Getenv), TmuxClient: cmd.String("client"),
				Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
			})
			if err != nil {
				return err
			}
			// The URL is printed once: it holds the token.
			outln("sup web: open " + s.URL())
			return s.Run(ctx)
		},
	}
}
