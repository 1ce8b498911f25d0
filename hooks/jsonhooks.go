//go:build linux

package hooks

import (
	"fmt"
	"slices"
)

// jsonSpec is the set of entries sup keeps in one agent's Claude-style
// hooks file: {"hooks": {"<Event>": [{"matcher": …, "hooks": [{"type":
// "command", "command": …}]}]}}.
type jsonSpec struct {
	agent  Agent
	events []eventSpec
	name   string // each entry's "name" (Gemini CLI); "" for none
}

type eventSpec struct {
	name    string
	matcher string // "" leaves the matcher out
}

// mergeResult says what a merge changed, by event.
type mergeResult struct {
	added   []string // events that had no sup entry
	updated []string // events whose sup entry ran another command
	deduped []string // events that had more than one sup entry
}

func (r mergeResult) changed() bool {
	return len(r.added)+len(r.updated)+len(r.deduped) > 0
}

// entry is a new group for event ev running command.
func (s *jsonSpec) entry(ev eventSpec, command string) *jnode {
	h := jobject()
	if s.name != "" {
		h.set("name", jstring(s.name))
	}
	h.set("type", jstring("command"))
	h.set("command", jstring(command))
	g := jobject()
	if ev.matcher != "" {
		g.set("matcher", jstring(ev.matcher))
	}
	hs := jarray()
	hs.vals = append(hs.vals, h)
	g.set("hooks", hs)
	return g
}

// hooksObject returns doc's "hooks" object, nil when absent, or an error
// when it is something else.
func hooksObject(path string, doc *jnode) (*jnode, error) {
	hooks := doc.get("hooks")
	if hooks != nil && hooks.kind != '{' {
		return nil, &SyntaxError{Path: path, Msg: fmt.Sprintf(`"hooks" is %s, not an object`, hooks.kindName())}
	}
	return hooks, nil
}

// eventArray returns the array of event ev in hooks, nil when absent.
func eventArray(path string, hooks *jnode, ev string) (*jnode, error) {
	if hooks == nil {
		return nil, nil
	}
	arr := hooks.get(ev)
	if arr != nil && arr.kind != '[' {
		return nil, &SyntaxError{Path: path, Msg: fmt.Sprintf(`"hooks.%s" is %s, not an array`, ev, arr.kindName())}
	}
	return arr, nil
}

// supEntries calls fn for each hook entry in an event's array whose
// command is sup's, with the entry and its position.
func supEntries(arr *jnode, fn func(group, list *jnode, gi, hi int, cmd string) (removed bool)) {
	if arr == nil {
		return
	}
	for gi := 0; gi < len(arr.vals); gi++ {
		g := arr.vals[gi]
		if g.kind != '{' {
			continue
		}
		list := g.get("hooks")
		if list == nil || list.kind != '[' {
			continue
		}
		for hi := 0; hi < len(list.vals); hi++ {
			h := list.vals[hi]
			if h.kind != '{' {
				continue
			}
			cmd, ok := h.get("command").str()
			if !ok || !IsSupCommand(cmd) {
				continue
			}
			if fn(g, list, gi, hi, cmd) {
				hi--
			}
		}
	}
}

// merge makes doc hold one sup entry running command for each of the
// spec's events: it adds the missing ones, points sup entries that run
// another command (an older path, another dialect) at command, and drops
// second sup entries of an event (sup would get every event twice). Other
// entries, keys and matchers are left as they are; an event whose sup entry
// has a matcher the user changed keeps it.
func (s *jsonSpec) merge(path string, doc *jnode, command string) (mergeResult, error) {
	var res mergeResult
	hooks, err := hooksObject(path, doc)
	if err != nil {
		return res, err
	}
	// Check every event first, so a bad one leaves doc untouched.
	for _, ev := range s.events {
		if _, err := eventArray(path, hooks, ev.name); err != nil {
			return res, err
		}
	}
	if hooks == nil {
		hooks = jobject()
		doc.set("hooks", hooks)
	}
	for _, ev := range s.events {
		arr, _ := eventArray(path, hooks, ev.name)
		if arr == nil {
			arr = jarray()
			hooks.set(ev.name, arr)
		}
		found, updated, deduped := false, false, false
		emptied := map[*jnode]bool{}
		supEntries(arr, func(g, list *jnode, gi, hi int, cmd string) bool {
			if found {
				list.vals = slices.Delete(list.vals, hi, hi+1)
				list.dirty = true
				if len(list.vals) == 0 {
					emptied[g] = true
				}
				deduped = true
				return true
			}
			found = true
			if cmd != command {
				h := list.vals[hi]
				for i := len(h.keys) - 1; i >= 0; i-- {
					if h.keys[i] == "command" {
						h.vals[i] = jstring(command)
						h.dirty = true
						break
					}
				}
				updated = true
			}
			return false
		})
		if len(emptied) > 0 {
			arr.vals = slices.DeleteFunc(arr.vals, func(g *jnode) bool { return emptied[g] })
			arr.dirty = true
		}
		switch {
		case !found:
			arr.vals = append(arr.vals, s.entry(ev, command))
			arr.dirty = true
			res.added = append(res.added, ev.name)
		case updated:
			res.updated = append(res.updated, ev.name)
		}
		if deduped {
			res.deduped = append(res.deduped, ev.name)
		}
	}
	return res, nil
}

// inspection is what a hooks file holds of sup's.
type inspection struct {
	present, missing []string
	commands         []string // the distinct sup commands found
}

func (s *jsonSpec) inspect(path string, doc *jnode) (inspection, error) {
	var in inspection
	hooks, err := hooksObject(path, doc)
	if err != nil {
		return in, err
	}
	for _, ev := range s.events {
		arr, err := eventArray(path, hooks, ev.name)
		if err != nil {
			return in, err
		}
		found := false
		supEntries(arr, func(_, _ *jnode, _, _ int, cmd string) bool {
			found = true
			if !slices.Contains(in.commands, cmd) {
				in.commands = append(in.commands, cmd)
			}
			return false
		})
		if found {
			in.present = append(in.present, ev.name)
		} else {
			in.missing = append(in.missing, ev.name)
		}
	}
	return in, nil
}
