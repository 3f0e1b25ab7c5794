package approvals

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"a2atop/internal/statefile"
)

// The head file. A writer that signs a checkpoint also keeps it, whole
// or not at all, in JOURNAL.head beside the journal (mode 0600): a walk
// that does not find that checkpoint in the journal reports the journal
// cut short (the chain alone cannot tell a journal cut at a line's end
// from one that ended there). It is a tripwire for a truncation, not a
// proof: whoever can cut the journal can remove the head file too. What
// proves the history is a checkpoint kept elsewhere (`journal verify
// --key` with the hub's key, on an export or a copy).

func headPath(journal string) string { return journal + ".head" }

// keepHead writes the last checkpoint of written to the head file. The
// records are written already: a head file that cannot be written leaves
// the older one, which the journal still holds (a walk then checks
// less), so the append does not fail for it.
func (s *fileStore) keepHead(written []line) {
	for i := len(written) - 1; i >= 0; i-- {
		if written[i].rec.Type == recCheckpoint {
			_ = statefile.WriteFile(headPath(s.path), append(bytes.Clone(written[i].raw), '\n'))
			return
		}
	}
}

// readHead reads the head file beside journal: nil when there is none.
func readHead(journal string) (*chainLine, error) {
	b, err := statefile.ReadFile(headPath(journal))
	if errors.Is(err, fs.ErrNotExist) && !errors.Is(err, statefile.ErrUnsafe) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal head: %w", err)
	}
	return parseHead(journal, b)
}

// readCopyHead is readHead beside a copy of a journal: read as it is.
func readCopyHead(journal string) (*chainLine, error) {
	b, err := os.ReadFile(headPath(journal))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal head: %w", err)
	}
	return parseHead(journal, b)
}

func parseHead(journal string, b []byte) (*chainLine, error) {
	h := parseChainLine(0, bytes.TrimSuffix(b, []byte("\n")), false)
	if !h.rec || h.typ != recCheckpoint || h.seq == 0 {
		return nil, fmt.Errorf("journal head %s is not a checkpoint of the journal (%s): remove it if you know why", headPath(journal), h.why)
	}
	return &h, nil
}

// expectHead makes the walk report the journal cut short unless it
// meets the checkpoint h (from file).
func (w *chainWalk) expectHead(h *chainLine, file string) {
	w.head, w.headFile = h, file
}

// missingHead is the break of a journal that does not hold the head
// file's checkpoint. Callers resolved what was pending.
func (w *chainWalk) missingHead() {
	if w.head == nil || w.headSeen {
		return
	}
	h := w.head
	w.brk(w.lastN+1, [32]byte{}, BreakRemoved, fmt.Sprintf("the journal ends at line %d (seq %d), but it was signed up to seq %d at %s (the checkpoint kept in %s): the records after line %d were removed (the file cut short), or the journal was rewritten (a journal moved away on purpose takes %s with it)",
		w.lastN, w.st.HeadSeq, h.seq, h.at.UTC().Format(time.RFC3339), w.headFile, w.lastN, w.headFile))
}
