package model

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Class is the pane a task belongs to. The zero value is ClassUnknown.
type Class uint8

// The classes, in the order the panes are drawn.
const (
	ClassUnknown Class = iota
	ClassActive
	ClassInterrupted
	ClassTerminal
)

// String returns the class name used in filters ("class:terminal").
func (c Class) String() string {
	switch c {
	case ClassActive:
		return "active"
	case ClassInterrupted:
		return "interrupted"
	case ClassTerminal:
		return "terminal"
	default:
		return "unknown"
	}
}

// legacyStates maps A2A 0.3 state names (and the short names people type
// in filters) to the v1.0 names.
var legacyStates = map[string]a2a.TaskState{
	"submitted":      a2a.TaskStateSubmitted,
	"working":        a2a.TaskStateWorking,
	"input-required": a2a.TaskStateInputRequired,
	"input_required": a2a.TaskStateInputRequired,
	"auth-required":  a2a.TaskStateAuthRequired,
	"auth_required":  a2a.TaskStateAuthRequired,
	"completed":      a2a.TaskStateCompleted,
	"failed":         a2a.TaskStateFailed,
	"canceled":       a2a.TaskStateCanceled,
	"cancelled":      a2a.TaskStateCanceled,
	"rejected":       a2a.TaskStateRejected,
	"unknown":        a2a.TaskStateUnspecified,
}

// NormalizeState returns the v1.0 name for s. It accepts v1.0 names,
// A2A 0.3 names ("input-required") and short forms in any case
// ("INPUT_REQUIRED", "completed"). A name it does not know is returned
// unchanged, so that it can still be shown.
func NormalizeState(s a2a.TaskState) a2a.TaskState {
	switch s {
	case a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateInputRequired,
		a2a.TaskStateAuthRequired, a2a.TaskStateCompleted, a2a.TaskStateFailed,
		a2a.TaskStateCanceled, a2a.TaskStateRejected, a2a.TaskStateUnspecified:
		return s
	}
	name := strings.ToLower(string(s))
	name = strings.TrimPrefix(name, "task_state_")
	if v, ok := legacyStates[name]; ok {
		return v
	}
	if name == "unspecified" {
		return a2a.TaskStateUnspecified
	}
	return s
}

// ClassOf returns the pane class of a state. Unknown names and
// TASK_STATE_UNSPECIFIED are ClassUnknown: shown, never dropped.
func ClassOf(s a2a.TaskState) Class {
	switch NormalizeState(s) {
	case a2a.TaskStateSubmitted, a2a.TaskStateWorking:
		return ClassActive
	case a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired:
		return ClassInterrupted
	case a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected:
		return ClassTerminal
	default:
		return ClassUnknown
	}
}

// maxUnknownState bounds the agent's own state name inside ShortState's
// "unknown(...)", in runes.
const maxUnknownState = 40

// ShortState is the state as a person reads it in a row: "input-required",
// "completed", "unknown(FOO)". A name it does not know is the agent's own
// text, which may carry escape sequences: inside "unknown(...)" every rune
// that is not a printable character (controls, DEL, bidi and other format
// characters, line separators, invalid UTF-8) is shown as '?', and the
// name is cut to 40 runes, so the result is safe to print as it is.
func ShortState(s a2a.TaskState) string {
	n := NormalizeState(s)
	switch n {
	case a2a.TaskStateUnspecified:
		return "unknown"
	case a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateInputRequired,
		a2a.TaskStateAuthRequired, a2a.TaskStateCompleted, a2a.TaskStateFailed,
		a2a.TaskStateCanceled, a2a.TaskStateRejected:
		return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(string(n), "TASK_STATE_")), "_", "-")
	}
	return "unknown(" + printableName(string(s)) + ")"
}

// printableName returns s with each rune that unicode.IsPrint rejects
// (other than the space) as '?', at most maxUnknownState runes, "…" at
// the end when cut.
func printableName(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == maxUnknownState {
			b.WriteString("…")
			break
		}
		if !unicode.IsPrint(r) || r == utf8.RuneError {
			r = '?'
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
