package plan

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Answer choices besides the option numbers 1…9 (specs/detection.md,
// "Answering a prompt").
const (
	ChoiceYes    = "yes"
	ChoiceNo     = "no"
	ChoiceAlways = "always"
	ChoiceEnter  = "enter"
)

// AnswerKeys are the keys that answer one kind of dialog: data in the
// profile (`answers:`), since they differ per agent and version.
type AnswerKeys struct {
	Yes    string `yaml:"yes"`    // approve once
	No     string `yaml:"no"`     // decline
	Always string `yaml:"always"` // approve and do not ask again; "" when the dialog has no such option
	Enter  string `yaml:"enter"`  // press Enter: take the dialog's default, go on from a notice
	// Numbers: the digits 1…9 pick that option (the agent reads a digit
	// as the option's number).
	Numbers bool `yaml:"numbers"`
	// Text: the dialog takes free text: it is typed, then Enter.
	Text bool `yaml:"text"`
	// Options reads the dialog's numbered options from the screen: group
	// 1 the number, group 2 the label (per line, (?m) implied).
	Options string `yaml:"options"`
	// Mode reads, from the label of the option an answer picks, the mode
	// the whole session switches to by it: group 1 ("accept edits" in
	// Claude's `Yes, and switch to accept edits … for this session`).
	Mode string `yaml:"mode"`

	options *regexp.Regexp
	mode    *regexp.Regexp
	// picks are the keys of options read by the model reader (PickKeys):
	// choice N types picks[N-1].
	picks []string
}

// PickKeys are the answer keys of a dialog the model reader read: choice
// N (1…len(keys)) types keys[N-1]. Nothing else is a valid choice.
func PickKeys(keys []string) *AnswerKeys { return &AnswerKeys{picks: keys} }

// Answers maps a dialog kind — the screen rule that saw the prompt, else
// the activity's reason (permission, question) — to its keys.
type Answers map[string]*AnswerKeys

func (a Answers) validate() error {
	kinds := make([]string, 0, len(a))
	for k := range a {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, kind := range kinds {
		k := a[kind]
		if k == nil {
			return fmt.Errorf("answers: %s: empty; give yes, no, always, enter, numbers, text or options", kind)
		}
		if k.Options != "" {
			re, err := regexp.Compile("(?m)" + k.Options)
			if err != nil {
				return fmt.Errorf("answers: %s: options: bad regex: %w", kind, err)
			}
			if re.NumSubexp() < 2 {
				return fmt.Errorf("answers: %s: options %q: needs two groups (the number, the label)", kind, k.Options)
			}
			k.options = re
		}
		if k.Mode != "" {
			re, err := regexp.Compile(k.Mode)
			if err != nil {
				return fmt.Errorf("answers: %s: mode: bad regex: %w", kind, err)
			}
			if re.NumSubexp() < 1 {
				return fmt.Errorf("answers: %s: mode %q: needs a group (the mode)", kind, k.Mode)
			}
			k.mode = re
		}
	}
	return nil
}

// Dialog returns the keys for the first of kinds the profile knows.
func (a Answers) Dialog(kinds ...string) (string, *AnswerKeys, bool) {
	for _, kind := range kinds {
		if k, ok := a[kind]; ok && kind != "" {
			return kind, k, true
		}
	}
	return "", nil, false
}

// Keys returns the bytes that answer the dialog with choice: a named
// choice's keys, a digit 1…9, or free text (then submit is true: the text
// is followed by a separate Enter). An error names the valid choices.
func (k *AnswerKeys) Keys(choice string) (keys string, submit bool, err error) {
	if k.picks != nil {
		n, err := strconv.Atoi(choice)
		if err != nil || n < 1 || n > len(k.picks) {
			return "", false, &ChoiceError{Choice: choice, Why: "this dialog was read by the model", Valid: k.Choices()}
		}
		return k.picks[n-1], false, nil
	}
	named := true
	switch choice {
	case ChoiceYes:
		keys = k.Yes
	case ChoiceNo:
		keys = k.No
	case ChoiceAlways:
		keys = k.Always
	case ChoiceEnter:
		keys = k.Enter
	default:
		named = false
	}
	digit := len(choice) == 1 && choice[0] >= '1' && choice[0] <= '9'
	switch {
	case keys != "":
		return keys, false, nil
	case digit && k.Numbers:
		return choice, false, nil
	case k.Text:
		// A dialog that takes text types a word it has no keys for as
		// text: "yes" answers "Should I delete them?" as the human would
		// type it, "2" an option the question listed in its text.
		return choice, true, nil
	case named:
		return "", false, &ChoiceError{Choice: choice, Why: "this dialog has no such option", Valid: k.Choices()}
	case digit:
		return "", false, &ChoiceError{Choice: choice, Why: "this dialog takes no option numbers", Valid: k.Choices()}
	}
	return "", false, &ChoiceError{Choice: choice, Why: "this dialog takes no free text", Valid: k.Choices()}
}

// ChoiceError is a choice the dialog does not take, with the ones it
// does: the caller that knows the dialog on the screen better (which
// options it shows) sets Valid to that list, so an error and
// prompt_choices never disagree.
type ChoiceError struct {
	Choice string
	Why    string
	Valid  []string
}

func (e *ChoiceError) Error() string {
	return fmt.Sprintf("choice %q: %s; valid choices: %s", e.Choice, e.Why, strings.Join(e.Valid, ", "))
}

// Choices lists the named choices the dialog takes, then "1-9" and
// "text" when it takes those.
func (k *AnswerKeys) Choices() []string {
	if k.picks != nil {
		return []string{"1-" + strconv.Itoa(len(k.picks))}
	}
	var out []string
	for _, c := range []struct{ name, keys string }{{ChoiceYes, k.Yes}, {ChoiceNo, k.No}, {ChoiceAlways, k.Always}, {ChoiceEnter, k.Enter}} {
		if c.keys != "" {
			out = append(out, c.name)
		}
	}
	if k.Numbers {
		out = append(out, "1-9")
	}
	if k.Text {
		out = append(out, "text")
	}
	return out
}

// ModeOf is the mode an option labelled label switches the session to
// (the mode pattern's group 1), "" when none.
func (k *AnswerKeys) ModeOf(label string) string {
	if k.mode == nil {
		return ""
	}
	if m := k.mode.FindStringSubmatch(label); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// ReadsOptions says whether the profile can read the dialog's numbered
// options from the screen (it gives an options pattern).
func (k *AnswerKeys) ReadsOptions() bool { return k.options != nil }

// OptionLines reads the dialog's numbered options from screen text, in
// screen order, at most one per number.
func (k *AnswerKeys) OptionLines(text string) (numbers, labels []string) {
	if k.options == nil {
		return nil, nil
	}
	seen := map[string]bool{}
	for _, m := range k.options.FindAllStringSubmatch(text, -1) {
		if n := m[1]; !seen[n] {
			seen[n] = true
			numbers, labels = append(numbers, n), append(labels, strings.TrimSpace(m[2]))
		}
	}
	return numbers, labels
}
