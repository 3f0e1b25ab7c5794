package model

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxIDBytes is the longest task id, push config id or agent name
// a2atop sends or takes, in bytes of UTF-8. Agents' ids are UUIDs or
// names of a few dozen bytes; a longer one is refused rather than sent
// in part or in a URL some server or proxy cuts.
const MaxIDBytes = 256

// ErrBadID is wrapped by the refusal of an id a2atop cannot send
// faithfully (CheckID): nothing was sent.
var ErrBadID = errors.New("an id a2atop cannot send faithfully")

// IDError is CheckID's refusal: which id (What: "task id", "push config
// id", "agent name"), the id, and why, in words.
type IDError struct {
	What string
	ID   string
	Why  string
}

// Error reads `task id "aaaa"… (3000 bytes) is longer than 256 bytes`:
// the id as QuoteID shows it, and why it is refused.
func (e *IDError) Error() string { return e.What + " " + QuoteID(e.ID) + " " + e.Why }

// Unwrap returns ErrBadID.
func (e *IDError) Unwrap() error { return ErrBadID }

// CheckID returns nil when id, a task id, a push config id or an agent
// name (what says which), is one a2atop can send faithfully on every
// binding: a JSON or protobuf string, and one segment of a URL path.
// Otherwise it returns an *IDError saying why not: empty, longer than
// MaxIDBytes, not UTF-8, holding a control character, or "." or ".."
// (which a URL path does not carry as a segment: they mean here and up).
// The same rule holds on every binding, so an id refused on HTTP+JSON is
// refused on JSON-RPC and gRPC too.
func CheckID(what, id string) error {
	why := ""
	switch {
	case id == "":
		why = "is empty"
	case len(id) > MaxIDBytes:
		why = fmt.Sprintf("is longer than %d bytes", MaxIDBytes)
	case id == "." || id == "..":
		why = "is a dot segment, which a URL path cannot carry as a name"
	default:
		why = badRune(id)
	}
	if why == "" {
		return nil
	}
	return &IDError{What: what, ID: id, Why: why}
}

// badRune says what in id is not UTF-8 or is a control character
// (unicode.IsControl: C0, DEL, C1), or "" when nothing is.
func badRune(id string) string {
	for i, r := range id {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(id[i:]); size == 1 {
				return "is not valid UTF-8"
			}
		case r < 0x20 || 0x7f <= r && r < 0xa0:
			return fmt.Sprintf("holds a control character (U+%04X)", r)
		}
	}
	return ""
}

// CheckTaskID is CheckID for a task id.
func CheckTaskID(id string) error { return CheckID("task id", id) }

// quotedIDBytes is how much of an id QuoteID shows.
const quotedIDBytes = 48

// QuoteID quotes id for a message: Go-quoted (control characters and
// invalid UTF-8 escaped), cut to its first 48 bytes with its length said.
func QuoteID(id string) string {
	if len(id) <= quotedIDBytes {
		return fmt.Sprintf("%q", id)
	}
	cut := quotedIDBytes
	for cut > 0 && !utf8.RuneStart(id[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d bytes)", id[:cut], len(id))
}
