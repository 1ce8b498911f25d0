//go:build linux

package supervisor

import (
	"strings"
	"time"

	"github.com/sup-tmux/sup/supervisor/activity"
)

// promptTracker is the open prompt's identity (specs/ipc.md, `answer`):
// the screen classifier's last verdict is written into it when the screen
// speaks (noteScreen), and the state owner (state.go) fixes the open
// prompt's id from it each time it publishes a snapshot (open), so that
// everyone else — state, explain, events, the answer path, the notifier —
// reads the id from the snapshot and no read fixes anything. It is plain
// data under the state owner's lock.
//
// The rule it keeps: one prompt, one id. The id is fixed when the facts that
// make it change (the snapshot published after the activity became
// needs_confirmation carries it), from the tracker's state then —
// the hook's identity of the request when a hook decided (its reason and
// summary, the tool and its command), the screen's otherwise — and when
// it appeared. It stays while the same dialog is open: the screen catching
// up with a hook, a redraw, or a half-drawn frame do not change it. It
// changes whenever what is shown for approval changes — the reason, the
// summary or the detail (the whole command) — so an answer sent with the
// id of what its sender saw is refused (PROMPT_CHANGED) when a hook, even
// one from the agent's own tree, swapped the command under the same
// dialog (specs/security.md, "Hook data is data"). It changes when the
// activity leaves needs_confirmation and comes back, when
// the agent's own hook reports another prompt (after a hook reported the
// first; a hook after the screen's word is the same dialog), or when the screen showed
// the dialog, then something else (ready, busy, error), then a dialog
// again: answered and asked anew. A question a finished turn asked
// (ready, reason asked) is a prompt too: its id is fixed from the reason,
// the question and when the hook reported it, and changes when another
// question is asked or the turn ends otherwise.
type promptTracker struct {
	// screen is the classifier's last verdict, before the ready debounce.
	screen screenVerdict
	// known is the last verdict's activity that was not unknown: an
	// unknown look (a screen mid-redraw) neither ends nor starts a
	// dialog's episode on the screen.
	known activity.Activity
	// episode and prevEpisode are when the screen began to show its
	// latest two dialogs (zero: never), kept after the dialog left.
	episode, prevEpisode time.Time
	// episodeRule is the rule that saw the latest dialog last; answered,
	// when keys that may answer it went in (an answer, Enter in the pane)
	// after it began. A dialog of another rule drawn after those keys is
	// the next one (Claude's onboarding: the theme picker, then the
	// security notes, needs_confirmation throughout): a new episode, so
	// the answer is acknowledged and the next prompt has its own id.
	episodeRule string
	answered    time.Time
	// gone is the last dialog sup answered that the screen closed
	// (stateOwner's noteScreen): the answer's ack says "screen" for it.
	gone goneDialog
	// cur is the identity given out for the open prompt.
	cur struct {
		since time.Time // the prompt's appearance the id belongs to
		what  shownFor  // what it asks to approve, as the id was made from
		id    string
		shown bool // the screen has shown it
	}
}

// noteScreen records a look at the screen and returns it with PromptAt
// filled in: when the screen began to show the dialog it shows.
func (t *promptTracker) noteScreen(v screenVerdict) screenVerdict {
	if v.Activity == activity.NeedsConfirmation && v.Undrawn {
		// A signal said a dialog is coming (Codex's state=blocked) but no
		// rule sees it drawn: the episode starts when one does, so an
		// answer waits for it (desk's settle) rather than typing into the
		// input box. It neither starts nor ends an episode.
		t.screen = v
		return v
	}
	if v.Activity == activity.NeedsConfirmation {
		next := t.answered.After(t.episode) && v.Rule != t.episodeRule
		if t.known != activity.NeedsConfirmation || t.episode.IsZero() || next {
			t.prevEpisode, t.episode = t.episode, v.At
		}
		t.episodeRule = v.Rule
		v.PromptAt = t.episode
	}
	if v.Activity != activity.Unknown {
		t.known = v.Activity
	}
	t.screen = v
	return v
}

// keysIn notes keys that may answer the dialog on screen (noteScreen).
func (t *promptTracker) keysIn(at time.Time) {
	t.answered = at
}

// shownFor is what a prompt shows for approval: the parts of the
// tracker's state its id is made from, besides when it appeared.
type shownFor struct{ reason, summary, detail string }

// refinedBy reports whether n says what w said, only better: the screen
// read a permission dialog's command (its first line, the summary, no
// detail) and the agent's hook then named the same one-line command with
// its tool (`Bash: touch x`, detail `touch x`). Under load the dialog is
// drawn before the hook's word arrives (TestClaudeAnswerRightAway, CI):
// an answer sent with the first event's id must not be refused
// PROMPT_CHANGED for the label alone. A hook's command of more lines
// than the screen showed, or another command, is something else to
// approve and gets a new id (issue 28: the id follows what is shown).
func (w shownFor) refinedBy(n shownFor) bool {
	return w.reason == n.reason && w.detail == "" && n.detail != "" &&
		!strings.ContainsAny(n.detail, "\r\n") && n.detail == w.summary
}

// renew gives the open prompt a new id when it appeared at another time or
// shows something else for approval than the id was made from, and
// reports whether it did.
func (t *promptTracker) renew(since time.Time, st activity.State) bool {
	what := shownFor{st.Reason, st.Summary, st.Detail}
	if t.cur.since.Equal(since) && t.cur.id != "" && (t.cur.what == what || t.cur.what.refinedBy(what)) {
		t.cur.what = what
		return false
	}
	t.cur.since, t.cur.what = since, what
	t.cur.id = activity.PromptID(what.reason, what.summary, what.detail, since)
	return true
}

// openPrompt is the open prompt's identity as the tracker state st shows
// it: its id ("" when none is open), and since, when it appeared.
type openPrompt struct {
	id    string
	since time.Time
	// shownAt is when the screen began to show it; zero while only a hook
	// has said so (the dialog is not drawn yet).
	shownAt time.Time
}

// goneDialog is a dialog the screen showed and closed after sup's answer:
// its prompt id and the verdict's time.
type goneDialog struct {
	id string
	at time.Time
}

// open reads the open prompt given the activity tracker's state st.
func (t *promptTracker) open(st activity.State) openPrompt {
	if !activity.Prompting(st.Activity, st.Reason) || st.PromptSince.IsZero() {
		t.cur.since, t.cur.id = time.Time{}, ""
		return openPrompt{}
	}
	key := st.PromptSince
	if st.Activity == activity.Ready {
		// A question the finished turn asked: no dialog, the idle input
		// box is its screen, on the screen since the turn ended. Its
		// answer ends it through the tracker (the next turn's hook or
		// screen), never through a look at the screen here: the box
		// still reads ready while the answer is typed into it.
		t.renew(key, st)
		t.cur.shown = false
		return openPrompt{id: t.cur.id, since: key, shownAt: key}
	}
	// seen: the screen has shown a dialog since the prompt appeared. A
	// hook speaks before the dialog is drawn, so until then the screen's
	// busy look says nothing about this prompt.
	seen := !t.episode.IsZero() && !t.episode.Before(key)
	since := key
	if seen && !t.prevEpisode.IsZero() && !t.prevEpisode.Before(key) {
		// The screen showed a dialog, then something else, then a dialog
		// again, with no hook or tracker change between: asked anew.
		since = t.episode
	}
	sc := t.screen
	if seen && sc.Activity != activity.NeedsConfirmation && sc.Activity != activity.Unknown && sc.At.After(t.episode) {
		// The screen showed the dialog and now shows something else: it
		// was answered, and the activity tracker has yet to hear (the
		// ready debounce, a hook's hold). No prompt to answer.
		return openPrompt{}
	}
	if t.renew(since, st) {
		t.cur.shown = false
	}
	t.cur.shown = t.cur.shown || seen
	p := openPrompt{id: t.cur.id, since: since}
	if seen && sc.Activity == activity.NeedsConfirmation {
		p.shownAt = t.episode
	}
	return p
}
