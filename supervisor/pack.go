//go:build linux

package supervisor

import (
	"fmt"

	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/supervisor/classify"
)

// CompilePack compiles a profile's classify: section into its classifier
// pack; nil when the profile has none. The plan keeps the section as
// written (the broker imports the plan and must not pull in the screen
// emulator), so a bad rule is found here, with the same error it had when
// profiles were compiled at load: the profile's origin, then the rule and
// its line ("profile …/claude.yaml: classify: rule "spin" (line 3): …").
func CompilePack(src *plan.PackSource) (*classify.Pack, error) {
	if src == nil {
		return nil, nil
	}
	p := &classify.Pack{}
	if err := p.UnmarshalYAML(&src.Node); err != nil {
		return nil, fmt.Errorf("%s: %w", src.Origin, err)
	}
	return p, nil
}

// LoadProfile is plan.LoadProfile with the profile's classifier pack
// compiled: every error a profile can have, at once.
func LoadProfile(configDir, name string) (plan.Profile, *classify.Pack, error) {
	p, err := plan.LoadProfile(configDir, name)
	if err != nil {
		return p, nil, err
	}
	pack, err := CompilePack(p.Classify)
	return p, pack, err
}
