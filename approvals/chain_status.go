package approvals

import (
	"fmt"
	"time"
)

// BreakKind names what a break in the chain shows was done to the
// journal.
type BreakKind string

// The kinds of break.
const (
	BreakEdited    BreakKind = "edited"    // a line's bytes are not those the chain holds
	BreakRemoved   BreakKind = "removed"   // records of the chain are missing
	BreakInserted  BreakKind = "inserted"  // a line the chain does not hold
	BreakReordered BreakKind = "reordered" // records out of their order
	BreakCut       BreakKind = "cut"       // the last line ends without its newline
	BreakSignature BreakKind = "signature" // a checkpoint whose signature fails
)

// ChainBreak is a place where the journal's chain does not hold.
type ChainBreak struct {
	Path  string    // the journal file
	Line  int       // the line the break is at (1-based)
	Kind  BreakKind // what was done
	Words string    // what changed, in words
	Hash  string    // "sha256:…" of the line, as read

	// AcceptedBy, AcceptedAt and AcceptedLine say who started the hub
	// on this break anyway (--accept-broken-chain), when, and the line
	// of that record; "" while no one did.
	AcceptedBy   string
	AcceptedAt   time.Time
	AcceptedLine int
}

// Accepted reports whether a "chain-accepted" record covers the break.
func (b ChainBreak) Accepted() bool { return b.AcceptedLine > 0 }

// Tail reports whether the break is a cut last line: what a crash
// during a write leaves (the next write names it and links past it) as
// well as a file cut short.
func (b ChainBreak) Tail() bool { return b.Kind == BreakCut }

// Sentence is the break in one line: "line 7 (edited): …".
func (b ChainBreak) Sentence() string {
	s := fmt.Sprintf("line %d (%s): %s", b.Line, b.Kind, b.Words)
	if b.Accepted() {
		s += fmt.Sprintf(" (accepted at line %d by %s at %s)", b.AcceptedLine, b.AcceptedBy, b.AcceptedAt.UTC().Format(time.RFC3339))
	}
	return s
}

// maxBreaks is how many breaks a ChainStatus lists; More counts the rest.
const maxBreaks = 16

// ChainStatus is what a walk of the journal's chain found. The zero
// value is an empty journal.
type ChainStatus struct {
	Path    string
	Lines   int // lines read
	Records int // chained records
	Start   int // the line of the first chained record; 0 when none
	// StartPath and SignedPath are the files of Start and SignedLine, for
	// a walk of several (segments, oldest first).
	StartPath, SignedPath string
	Legacy                int       // records before Start: written before the chain, not covered by it
	Head                  string    // "sha256:…" of the last line: what the next record links to
	HeadSeq               int       // the seq of the last chained record
	HeadAt                time.Time // when the last chained record was written

	Checkpoints int       // checkpoints whose signature verifies
	SignedSeq   int       // the seq of the last of them (the head it signs is SignedSeq-1)
	SignedLine  int       // its line
	SignedAt    time.Time // when it was written
	Key         string    // the key they were checked with ("ed25519:…")
	Trusted     bool      // Key was given by the caller, not read from the checkpoints
	Unsigned    int       // chained records after the last checkpoint

	// Partial is true for a Service attached to a hub: it checks the
	// lines the feed sent it (those of the agents the operator may
	// watch), each run of them from its first; the hub checks the whole.
	Partial bool
	// Shared, when not "", says that the journal is a shared record
	// (Options.Shared), which is not hash-chained, and what holds its
	// lines instead (chain_shared.go); the rest of the status is empty.
	Shared string

	Breaks []ChainBreak // the breaks found, in order, at most maxBreaks
	More   int          // breaks beyond Breaks
}

// Broken reports whether the walk found a break, accepted or not.
func (c ChainStatus) Broken() bool { return len(c.Breaks) > 0 }

// First is the first break no "chain-accepted" record covers, nil when
// none; a cut last line counts only when tail is true.
func (c ChainStatus) First(tail bool) *ChainBreak {
	for i := range c.Breaks {
		if b := c.Breaks[i]; !b.Accepted() && (tail || !b.Tail()) {
			return &c.Breaks[i]
		}
	}
	return nil
}
