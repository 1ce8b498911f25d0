//go:build linux

package main

import (
	"context"
	"fmt"
	"os"

	"github.com/sup-tmux/sup/internal/config"
	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/supervisor/modelread"
)

// classifyModel runs the model reader's request on a rendered screen, as a
// session would (the profile's few-shot examples, the config's redaction),
// against the endpoint in config.yaml: `sup classify --model`. With
// requestOnly it prints what would be sent and sends nothing.
func classifyModel(ctx context.Context, examples []config.ModelExample, screen string, requestOnly bool) (*modelread.Reply, error) {
	dir := paths.ConfigDir(os.Getenv)
	cfg, err := plan.LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	if !cfg.Model.Enabled() {
		return nil, fmt.Errorf("--model: %s has no model: section with an endpoint (see README, \"A model for screens no rule reads\")", paths.ConfigFile(dir))
	}
	key := ""
	if !requestOnly {
		if key, err = cfg.Model.LoadKey(os.LookupEnv); err != nil {
			return nil, err
		}
	}
	c, err := modelread.NewClient(cfg.Model, key)
	if err != nil {
		return nil, err
	}
	if requestOnly {
		body, err := c.Request(examples, screen)
		if err != nil {
			return nil, err
		}
		// The body is JSON: encoding/json escapes C0 but passes C1 and
		// bidi runes (a recording's U+202E) raw; EscapeJSON writes them
		// as \uXXXX, which reads back as the same request.
		outf("POST %s\n", c.URL())
		fmt.Printf("%s\n", safetext.EscapeJSON(body))
		return nil, nil
	}
	r, err := c.Read(ctx, examples, screen)
	if err != nil {
		return nil, err
	}
	return &r, nil
}
