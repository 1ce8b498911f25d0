package trigger

import (
	"slices"
	"time"
)

// Verdict is the guard's answer to one trigger.
type Verdict int

// Verdicts.
const (
	Admit       Verdict = iota
	RateLimited         // wait until the returned time, then ask again
	Blocked             // the thread is blocked until Unblock
)

// Guard holds the per-thread rate limiter and loop guard. Progress is a
// token the caller derives from the agent's state (specs/triggers.md): a
// token different from the one at the thread's previous trigger means the
// conversation moved, which resets the loop counters. Not safe for
// concurrent use.
type Guard struct {
	cfg     Config
	threads map[string]*thread
}

type thread struct {
	attempts   []time.Time // admitted triggers within the rate window, oldest first
	progress   string
	noProgress int
	prompts    map[string]int // prompt hash → count since the last progress
	blocked    bool
	blockedBy  string // why: no_progress or same_prompt
}

// NewGuard returns a guard with cfg's limits (cfg.WithDefaults applied).
func NewGuard(cfg Config) *Guard {
	return &Guard{cfg: cfg.WithDefaults(), threads: map[string]*thread{}}
}

func (g *Guard) thread(id string) *thread {
	t := g.threads[id]
	if t == nil {
		t = &thread{prompts: map[string]int{}}
		g.threads[id] = t
	}
	return t
}

// Check says whether a trigger on thread may be delivered now, without
// counting it: a blocked thread refuses, a full rate window defers until
// the returned time.
func (g *Guard) Check(threadID string, now time.Time) (Verdict, time.Time) {
	t := g.thread(threadID)
	if t.blocked {
		return Blocked, time.Time{}
	}
	cut := now.Add(-g.cfg.RateWindow)
	for len(t.attempts) > 0 && !t.attempts[0].After(cut) {
		t.attempts = t.attempts[1:]
	}
	if len(t.attempts) >= g.cfg.RateLimit {
		return RateLimited, t.attempts[0].Add(g.cfg.RateWindow)
	}
	return Admit, time.Time{}
}

// Count books a trigger that passed Check and reports whether it trips the
// loop guard instead: the trigger that makes LoopNoProgress triggers, or
// LoopSamePrompt identical prompts, without progress is refused and blocks
// the thread.
func (g *Guard) Count(threadID, promptHash, progress string) (blocked bool, why string) {
	t := g.thread(threadID)
	if progress != t.progress {
		t.progress, t.noProgress = progress, 0
		clear(t.prompts)
	}
	t.noProgress++
	t.prompts[promptHash]++
	switch {
	case t.noProgress >= g.cfg.LoopNoProgress:
		t.blocked, t.blockedBy = true, "no_progress"
	case t.prompts[promptHash] >= g.cfg.LoopSamePrompt:
		t.blocked, t.blockedBy = true, "same_prompt"
	default:
		return false, ""
	}
	return true, t.blockedBy
}

// Attempt books a delivery attempt against the thread's rate window.
func (g *Guard) Attempt(threadID string, now time.Time) {
	t := g.thread(threadID)
	t.attempts = append(t.attempts, now)
}

// BlockedThreads lists the blocked threads.
func (g *Guard) BlockedThreads() []string {
	var ids []string
	for id, t := range g.threads {
		if t.blocked {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// Blocked reports whether thread is blocked, and why.
func (g *Guard) Blocked(threadID string) (bool, string) {
	t := g.threads[threadID]
	if t == nil {
		return false, ""
	}
	return t.blocked, t.blockedBy
}

// Unblock lifts a thread's block and forgets its loop counters (the human
// decided to continue); it reports whether the thread was blocked.
func (g *Guard) Unblock(threadID string) bool {
	t := g.threads[threadID]
	if t == nil {
		return false
	}
	was := t.blocked
	t.blocked, t.blockedBy, t.noProgress = false, "", 0
	clear(t.prompts)
	return was
}
