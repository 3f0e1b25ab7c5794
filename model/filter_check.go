package model

import (
	"errors"
	"fmt"
	"strings"
)

// maxNamedAgents bounds the agents a message names.
const maxNamedAgents = 8

// Check says what in the filter names nothing, so that a typo is an
// error rather than an empty list: the first Invalid token and why (an
// unknown key, state or class, naming the ones there are), or else the
// first agent: value that starts none of agents (the fleet's names,
// naming them). With no agents known, agent: is not checked. Nil when
// every token names something.
func (f Filter) Check(agents []string) error {
	if len(f.Invalid) > 0 {
		return errors.New(invalidWhy(f.Invalid[0]))
	}
	if len(agents) == 0 {
		return nil
	}
	for _, a := range f.Agents {
		if !startsAny(agents, a) {
			return fmt.Errorf("agent:%s names no agent: the agents are %s", a, nameList(agents))
		}
	}
	return nil
}

// invalidWhy says why ParseFilter found tok invalid.
func invalidWhy(tok string) string {
	key, val, _ := strings.Cut(tok, ":")
	switch strings.ToLower(key) {
	case "state":
		if found := statesStarting(val); len(found) > 1 {
			names := make([]string, len(found))
			for i, s := range found {
				names[i] = ShortState(s)
			}
			return tok + " could be " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
		}
		var names []string
		for _, s := range knownStates {
			names = append(names, ShortState(s))
		}
		return tok + " names no state: use " + strings.Join(names, ", ") +
			", unknown, or an agent's own state as state:TASK_STATE_NAME"
	case "class":
		return tok + " names no class: use active, interrupted, terminal or unknown"
	}
	return fmt.Sprintf("unknown filter key %q in %s: use %s", key, tok, FilterSyntax)
}

// startsAny reports whether one of names starts with p, ignoring case.
func startsAny(names []string, p string) bool {
	for _, n := range names {
		if hasPrefixFold(n, p) {
			return true
		}
	}
	return false
}

// nameList names names for a message, at most maxNamedAgents of them.
func nameList(names []string) string {
	if len(names) > maxNamedAgents {
		return strings.Join(names[:maxNamedAgents], ", ") + fmt.Sprintf(" and %d more", len(names)-maxNamedAgents)
	}
	return strings.Join(names, ", ")
}
