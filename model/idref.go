package model

import (
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// NamesID reports whether typed, as a person types a task id, names id:
// the whole id, a start of it, or a start of the short id the screens
// show (ShortID: for a UUIDv7 its random end, whose start is what a
// person reads off a row), ignoring ASCII case. A tail of a UUIDv7
// longer than its short id (pasted from the id's end) names it too.
// An empty typed names nothing. Every place that takes a task id (the
// command line's :reply and :cancel, `a2atop reply`, the filter's id:)
// reads it with NamesID, through ResolveID.
func NamesID(id a2a.TaskID, typed string) bool {
	if typed == "" {
		return false
	}
	s := string(id)
	if hasPrefixFold(s, typed) {
		return true
	}
	short := ShortID(id)
	if hasPrefixFold(short, typed) {
		return true
	}
	byEnd := len(short) < len(s) && !strings.HasPrefix(s, short)
	return byEnd && len(typed) > len(short) && len(typed) <= len(s) && strings.EqualFold(s[len(s)-len(typed):], typed)
}

// ResolveID returns the ids among ids that typed names, sorted: the one
// id equal to typed when there is one (even if it starts others), else
// every id NamesID takes. One id is the answer; several are the
// candidates a message lists (with their short ids); none is none.
func ResolveID(ids []a2a.TaskID, typed string) []a2a.TaskID {
	if slices.Contains(ids, a2a.TaskID(typed)) {
		return []a2a.TaskID{a2a.TaskID(typed)}
	}
	var out []a2a.TaskID
	for _, id := range ids {
		if NamesID(id, typed) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// hasPrefixFold reports whether s starts with p, ignoring ASCII case.
func hasPrefixFold(s, p string) bool {
	return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p)
}

// ResolveName returns the names among names that typed names, as a
// person types an agent's name: the name equal to typed when there is
// one, else every name typed starts, ignoring ASCII case. One name is
// the answer; several are the candidates a message lists. The : commands
// that take an agent (:agent, :new) and `a2atop reply` read it so.
func ResolveName(names []string, typed string) []string {
	if typed == "" {
		return nil
	}
	if slices.Contains(names, typed) {
		return []string{typed}
	}
	var out []string
	for _, n := range names {
		if hasPrefixFold(n, typed) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
