package model

import (
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Filter selects the tasks a pane shows. Every part must match (AND).
// The zero value matches every task. Build one with ParseFilter.
type Filter struct {
	// Words are free-text words, each of which must occur, ignoring case,
	// in what the task's row shows: the agent name, the task id, the
	// state as rows write it ("failed", "input-required"), the status
	// text or the task's own result hint ("1 failed / 11 passed").
	Words []string
	// Agents are agent:NAME values: the agent's name must start with
	// each of them, ignoring case.
	Agents []string
	// States are state:NAME values, normalized (v1.0 and 0.3 names and
	// short forms are accepted). state:unknown matches ClassUnknown tasks.
	States []a2a.TaskState
	// Classes are class:NAME values (active, interrupted, terminal, unknown).
	Classes []Class
	// IDs are id:ID values: the task's id must be named by each of them
	// as NamesID reads a typed id (a start of the id or of its short id).
	IDs []string
	// Invalid lists tokens that name nothing we know (class:foo,
	// state:waiting, an unknown key as in stat:failed). A filter with
	// one matches no task; Check says why.
	Invalid []string
}

// FilterSyntax names the tokens a filter takes, for messages and help.
const FilterSyntax = "agent:NAME, state:STATE, class:CLASS, id:ID or words"

// ParseFilter reads a filter as typed in the filter bar: free-text words
// and agent:NAME, state:NAME, class:NAME and id:ID tokens, separated by
// spaces, all of which must match. A token with an empty value
// ("agent:") is ignored while the person is still typing it. A word
// before a colon that is not a key ("stat:failed") is Invalid, not a
// word to look for; a colon after anything but letters ("12:30", ":x")
// or before a slash ("http://x") is part of a word.
func ParseFilter(s string) Filter {
	var f Filter
	for _, tok := range strings.Fields(s) {
		key, val, ok := strings.Cut(tok, ":")
		if !ok || !isKeyName(key) || strings.HasPrefix(val, "/") {
			f.Words = append(f.Words, strings.ToLower(tok))
			continue
		}
		switch strings.ToLower(key) {
		case "agent":
			if val != "" {
				f.Agents = append(f.Agents, strings.ToLower(val))
			}
		case "id":
			if val != "" {
				f.IDs = append(f.IDs, val)
			}
		case "state":
			if val == "" {
				continue
			}
			if st, ok := parseState(val); ok {
				f.States = append(f.States, st)
			} else {
				f.Invalid = append(f.Invalid, tok)
			}
		case "class":
			if val == "" {
				continue
			}
			if c, ok := parseClass(val); ok {
				f.Classes = append(f.Classes, c)
			} else {
				f.Invalid = append(f.Invalid, tok)
			}
		default:
			if val == "" {
				f.Words = append(f.Words, strings.ToLower(tok))
			} else {
				f.Invalid = append(f.Invalid, tok)
			}
		}
	}
	return f
}

// isKeyName reports whether s could be a filter key: letters only.
func isKeyName(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') })
}

// knownStates are the states a state: token may name by a prefix.
var knownStates = []a2a.TaskState{
	a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired,
	a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected,
}

// parseState reads the value of a state: token: a full name in any of
// the forms NormalizeState knows, or the start of one that names a single
// state ("rej", "input"). A state of the agent's own is named in its
// wire form, TASK_STATE_PAUSED (or as ShortState writes it,
// unknown(TASK_STATE_PAUSED)), so that a typo ("waiting") is not taken
// for one. A prefix of several states ("c": completed, canceled) and a
// name of no state are not ok.
func parseState(val string) (a2a.TaskState, bool) {
	if in, ok := strings.CutPrefix(val, "unknown("); ok && strings.HasSuffix(in, ")") {
		val = strings.TrimSuffix(in, ")")
	}
	st := NormalizeState(a2a.TaskState(val))
	if st == a2a.TaskStateUnspecified || ClassOf(st) != ClassUnknown {
		return st, true
	}
	if up := strings.ToUpper(val); strings.HasPrefix(up, "TASK_STATE_") && len(up) > len("TASK_STATE_") {
		return st, true // an agent's own
	}
	found := statesStarting(val)
	if len(found) == 1 {
		return found[0], true
	}
	return st, false
}

// statesStarting are the known states whose short name starts with val.
func statesStarting(val string) []a2a.TaskState {
	want := strings.ReplaceAll(strings.ToLower(val), "_", "-")
	var found []a2a.TaskState
	for _, k := range knownStates {
		if strings.HasPrefix(ShortState(k), want) {
			found = append(found, k)
		}
	}
	return found
}

func parseClass(s string) (Class, bool) {
	for c := ClassUnknown; c <= ClassTerminal; c++ {
		if strings.EqualFold(s, c.String()) {
			return c, true
		}
	}
	return ClassUnknown, false
}

// Empty reports whether the filter matches every task.
func (f Filter) Empty() bool {
	return len(f.Words) == 0 && len(f.Agents) == 0 && len(f.States) == 0 &&
		len(f.Classes) == 0 && len(f.IDs) == 0 && len(f.Invalid) == 0
}

// String returns the filter in canonical form; two filters with the same
// String select the same tasks.
func (f Filter) String() string {
	var parts []string
	for _, a := range f.Agents {
		parts = append(parts, "agent:"+a)
	}
	for _, s := range f.States {
		parts = append(parts, "state:"+ShortState(s))
	}
	for _, c := range f.Classes {
		parts = append(parts, "class:"+c.String())
	}
	for _, id := range f.IDs {
		parts = append(parts, "id:"+id)
	}
	parts = append(parts, f.Invalid...)
	parts = append(parts, f.Words...)
	return strings.Join(parts, " ")
}

// Match reports whether t passes the filter.
func (f Filter) Match(t *Task) bool {
	if len(f.Invalid) > 0 {
		return false
	}
	for _, c := range f.Classes {
		if t.Class != c {
			return false
		}
	}
	for _, a := range f.Agents {
		name := t.Key.Agent
		if len(name) < len(a) || !strings.EqualFold(name[:len(a)], a) {
			return false
		}
	}
	for _, s := range f.States {
		if !stateMatches(t, s) {
			return false
		}
	}
	for _, id := range f.IDs {
		if !NamesID(t.Key.ID, id) {
			return false
		}
	}
	for _, w := range f.Words {
		if !containsFold(string(t.Key.ID), w) && !containsFold(t.Key.Agent, w) && !containsFold(t.Text, w) &&
			!stateContains(t.State, w) && !containsFold(t.Hint, w) {
			return false
		}
	}
	return true
}

// shortStates are ShortState of the known states, so that matching a
// word against a row's state does not allocate.
var shortStates = func() map[a2a.TaskState]string {
	m := map[a2a.TaskState]string{a2a.TaskStateUnspecified: ShortState(a2a.TaskStateUnspecified)}
	for _, s := range knownStates {
		m[s] = ShortState(s)
	}
	return m
}()

// stateContains reports whether w (lower case) occurs in the state as a
// row writes it: "failed", "input-required", "unknown(TASK_STATE_PAUSED)".
func stateContains(s a2a.TaskState, w string) bool {
	if short, ok := shortStates[s]; ok {
		return containsFold(short, w)
	}
	return containsFold("unknown", w) || containsFold(string(s), w)
}

// Row is a row of a list that is not a pane of tasks (an inbox item, a
// journal entry, an agent), as MatchRow reads it.
type Row struct {
	// Agent is the agent's name: agent:NAME matches its start.
	Agent string
	// States are the task states the row stands for (the state it shows,
	// and for a journal entry the states the task went through):
	// state:NAME matches one of them, class:NAME the class of one of
	// them or one of Classes.
	States  []a2a.TaskState
	Classes []Class
	// ID is the id of the task the row stands for, if any: id:ID
	// matches it as NamesID reads a typed id. A row without one passes
	// no id: token.
	ID a2a.TaskID
	// Text is everything else the row shows (ids, status text, a
	// decision, an error): each free-text word must occur in one of
	// Text, Agent or the States as rows write them.
	Text []string
}

// MatchRow reports whether a row passes the filter, with the rules of
// Match: every token must match.
func (f Filter) MatchRow(r Row) bool {
	if len(f.Invalid) > 0 {
		return false
	}
	for _, c := range f.Classes {
		if !slices.Contains(r.Classes, c) && !slices.ContainsFunc(r.States, func(s a2a.TaskState) bool { return ClassOf(s) == c }) {
			return false
		}
	}
	for _, a := range f.Agents {
		if len(r.Agent) < len(a) || !strings.EqualFold(r.Agent[:len(a)], a) {
			return false
		}
	}
	for _, want := range f.States {
		if !slices.ContainsFunc(r.States, func(s a2a.TaskState) bool { return rowStateMatches(s, want) }) {
			return false
		}
	}
	for _, id := range f.IDs {
		if !NamesID(r.ID, id) {
			return false
		}
	}
	for _, w := range f.Words {
		if !containsFold(r.Agent, w) && !slices.ContainsFunc(r.Text, func(s string) bool { return containsFold(s, w) }) &&
			!slices.ContainsFunc(r.States, func(s a2a.TaskState) bool { return stateContains(NormalizeState(s), w) }) {
			return false
		}
	}
	return true
}

// rowStateMatches is stateMatches for a state that is not a task's.
func rowStateMatches(s, want a2a.TaskState) bool {
	n := NormalizeState(s)
	return stateIs(n, ClassOf(n), want)
}

func stateMatches(t *Task, s a2a.TaskState) bool { return stateIs(t.State, t.Class, s) }

// stateIs reports whether a task in state (normalized) of class is in
// state s as a state: token names it.
func stateIs(state a2a.TaskState, class Class, s a2a.TaskState) bool {
	if s == a2a.TaskStateUnspecified {
		return class == ClassUnknown
	}
	if state == s {
		return true
	}
	// An unknown name matches the task's unknown state, ignoring case
	// and the TASK_STATE_ prefix.
	got := strings.TrimPrefix(strings.ToUpper(string(state)), "TASK_STATE_")
	want := strings.TrimPrefix(strings.ToUpper(string(s)), "TASK_STATE_")
	return class == ClassUnknown && got == want
}

// containsFold reports whether sub (lower case) occurs in s, ignoring
// case, without allocating for ASCII text.
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	n := len(sub)
	c0 := sub[0]
	for i := 0; i+n <= len(s); i++ {
		b := s[i]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if b != c0 && b < 0x80 {
			continue
		}
		if strings.EqualFold(s[i:i+n], sub) {
			return true
		}
	}
	return false
}

func (f Filter) equal(g Filter) bool {
	return slices.Equal(f.Words, g.Words) && slices.Equal(f.Agents, g.Agents) &&
		slices.Equal(f.States, g.States) && slices.Equal(f.Classes, g.Classes) &&
		slices.Equal(f.IDs, g.IDs) && slices.Equal(f.Invalid, g.Invalid)
}

// clone copies f, so a view's filter does not share the caller's slices.
func (f Filter) clone() Filter {
	return Filter{Words: slices.Clone(f.Words), Agents: slices.Clone(f.Agents),
		States: slices.Clone(f.States), Classes: slices.Clone(f.Classes), IDs: slices.Clone(f.IDs),
		Invalid: slices.Clone(f.Invalid)}
}
