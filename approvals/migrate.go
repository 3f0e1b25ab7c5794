package approvals

import (
	"bytes"
	"fmt"
	"time"
)

// Migrated is what Migrate copied.
type Migrated struct {
	Lines    int // lines copied, and read back the same
	Damaged  int // of them, lines that are not records (copied as they are, for journal check)
	Verified bool
}

// Migrate copies the journal file at path into to, a shared record that
// holds nothing yet, once: every line in order, as its bytes, each on
// the key its record is decided on, so that the line numbers (and the
// acknowledgements that name them) stay what they were. Then it reads
// the record back and compares it with the file line by line. A file
// with a torn last line or an empty line (whose numbers could not be
// kept) is refused before anything is copied; so is a record that
// holds lines already.
func Migrate(path string, to SharedLog) (Migrated, error) {
	var m Migrated
	fs, err := openFileStore(path, true, time.Now)
	if err != nil {
		return m, err
	}
	defer fs.close()
	var lines []line
	if err := fs.follow(func(ls []line, _ bool) { lines = append(lines, ls...) }); err != nil {
		return m, err
	}
	if len(lines) == 0 {
		return m, fmt.Errorf("journal: %s holds no decisions: nothing to copy", path)
	}
	for i, l := range lines {
		switch {
		case l.torn:
			return m, fmt.Errorf("journal: line %d of %s is torn (a write that never finished): run a2atop journal check, let a2atop write once, then migrate", l.n, path)
		case l.n != i+1:
			return m, fmt.Errorf("journal: line %d of %s is empty: the stream numbers its records without gaps, so the line numbers after it could not be kept; nothing was copied", i+1, path)
		}
	}
	dst := newSharedStore(to)
	var held []JournalLine
	if err := to.Read(func(ls []JournalLine) { held = append(held, ls...) }); err != nil {
		return m, err
	}
	if len(held) > 0 {
		return m, fmt.Errorf("journal: %s holds %d records already: a journal is copied once, into an empty record; nothing was copied", to.Where(), len(held))
	}
	var back []JournalLine
	for _, l := range lines {
		key := "other"
		if l.err == nil {
			key = dst.keyOf(l.rec)
			if l.rec.Type == recDecision {
				dst.keys[l.rec.ID] = key
			}
		} else {
			m.Damaged++
		}
		if _, err := to.Append([]KeyedLine{{Key: key, Raw: l.raw}}); err != nil {
			return m, fmt.Errorf("journal: copying line %d of %s: %w; the record now holds lines 1 to %d", l.n, path, err, m.Lines)
		}
		m.Lines++
		if err := to.Read(func(ls []JournalLine) { back = append(back, ls...) }); err != nil {
			return m, err
		}
	}
	if len(back) != len(lines) {
		return m, fmt.Errorf("journal: %s reads back %d lines, the file has %d", to.Where(), len(back), len(lines))
	}
	for i, l := range lines {
		if back[i].N != l.n || !bytes.Equal(back[i].Raw, l.raw) {
			return m, fmt.Errorf("journal: line %d of %s reads back as line %d with other bytes: the copy is not the file", l.n, path, back[i].N)
		}
	}
	m.Verified = true
	return m, nil
}
