package config

import (
	"fmt"
	"regexp"
)

// Questions is a profile's `questions:` section: the wording of
// supervisor/question's rule (its package comment), as RE2 patterns. A nil
// *Questions has no rule: no turn of that profile asks.
type Questions struct {
	// Ask: a question sentence that matches one of these addresses the
	// human, wherever it stands in the final paragraph ("Should I delete
	// them? They are 6 months old.").
	Ask []string `yaml:"ask"`
	// Choice: the final paragraph asks for a decision without a question
	// mark ("Let me know which you prefer.", "Please confirm.").
	Choice []string `yaml:"choice"`
	// Courtesy: question sentences that only invite more work ("Anything
	// else?"); they never ask, even last.
	Courtesy []string `yaml:"courtesy"`
	// Option is one line of an option list ("1. Rebase", "b) Merge",
	// "- **Option A**: …").
	Option string `yaml:"option"`
	// OptionLead: the line right above an option list that presents the
	// options as a choice ("I see two options:"). A plain numbered list
	// (a summary of changes) under another lead-in does not ask.
	OptionLead []string `yaml:"option_lead"`
}

// Validate compiles every pattern; an error names the field and the
// pattern. question.Compile builds the detector from a valid section.
func (c *Questions) Validate() error {
	if c == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		src  []string
	}{{"ask", c.Ask}, {"choice", c.Choice}, {"courtesy", c.Courtesy}, {"option_lead", c.OptionLead}} {
		for i, p := range f.src {
			if _, err := regexp.Compile(p); err != nil {
				return fmt.Errorf("questions.%s[%d] %q: %v", f.name, i, p, err)
			}
		}
	}
	if c.Option != "" {
		if _, err := regexp.Compile(c.Option); err != nil {
			return fmt.Errorf("questions.option %q: %v", c.Option, err)
		}
	}
	return nil
}
