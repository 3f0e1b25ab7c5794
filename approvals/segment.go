package approvals

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// recSegment is the type of a segment's first line (see SegmentPolicy).
const recSegment = "segment"

// SegmentPolicy says when the journal file is closed and a new segment
// begun: once the open segment holds Size bytes or more, or began Age
// ago or longer, whichever comes first, at the next write. Zero fields
// never rotate; the zero policy keeps one file for ever.
//
// The open segment is always the journal's path. A closed segment is
// renamed beside it to PATH.000001, PATH.000002, … (its number), mode
// 0400, and never written again. A new segment starts with a "segment"
// record (its number, the line it begins at, the previous segment's
// name) and restates every open decision (pending, unknown) as records
// marked "carried": a reader that starts at the new segment folds them
// to the state those decisions had, and one that read the previous
// segment passes over them. Lines keep their numbers across segments
// (the first line of segment 2 is numbered after the last of segment
// 1), so a line's number names it in the whole journal.
type SegmentPolicy struct {
	Size int64         // bytes; 0 = no limit by size
	Age  time.Duration // 0 = no limit by age
}

// On reports whether the policy ever rotates.
func (p SegmentPolicy) On() bool { return p.Size > 0 || p.Age > 0 }

// segmentInfo is what a segment's first line says about it.
type segmentInfo struct {
	Seq     int    `json:"seq"`     // this segment's number (the first segment, without a header, is 1)
	Prev    string `json:"prev"`    // the previous segment's file name, in the same directory
	Carried int    `json:"carried"` // how many records after this one restate open decisions
	Entries int    `json:"entries"` // entries in earlier segments this one does not restate
}

// segState is a fileStore's segment bookkeeping.
type segState struct {
	policy  SegmentPolicy
	seq     int       // the number of the segment s.r reads: 1 for a file without a header
	started time.Time // when the open segment began (its header's time, or its first record's)
	skip    int       // lines still to pass over: the header and carried records of a segment continued into
	retryAt time.Time // a rotation refused is not tried again before
	all     bool      // read the closed segments before the open one (MemoryAll)
	// carry returns the records that restate the open decisions, and how
	// many entries the journal holds besides them; an error refuses to
	// rotate now (a damaged line not yet accepted).
	carry func() ([]record, int, error)
	warn  func(error)    // a rotation that did not happen, or a gap between segments
	step  func(step int) // tests: called after each step of a rotation
	files []segmentFile  // the files read, in order, with the number of each one's first line
	seed  segmentFile    // the segment whose last line the chain's walk started after (segment_chain.go), and that line's number
}

// segmentFile is a file of the journal as read: its path and the number
// (in the whole journal) of its first line.
type segmentFile struct {
	path  string
	first int
}

// archivePath is where segment seq of the journal at path lies once closed.
func archivePath(path string, seq int) string { return fmt.Sprintf("%s.%06d", path, seq) }

// tempPath is where a rotation writes the next segment before it renames
// it over the journal's path.
func tempPath(path string) string { return path + ".next" }

// archives lists the closed segments beside the journal at path, oldest
// first, by number. A file at a segment's name that is the journal
// itself (a rotation that stopped between its link and its rename) is
// not closed and not listed.
func archives(path string) ([]int, error) {
	names, err := filepath.Glob(path + ".[0-9]*")
	if err != nil {
		return nil, err
	}
	cur, _ := os.Lstat(path)
	var seqs []int
	for _, n := range names {
		digits := strings.TrimPrefix(n, path+".")
		seq, err := strconv.Atoi(digits)
		if err != nil || seq < 1 || len(digits) < 6 {
			continue
		}
		if fi, err := os.Lstat(n); err == nil && cur != nil && os.SameFile(fi, cur) {
			continue
		}
		seqs = append(seqs, seq)
	}
	slices.Sort(seqs)
	return seqs, nil
}

// nextArchive is the first closed segment numbered after seq, or 0.
func nextArchive(path string, seq int) int {
	seqs, _ := archives(path)
	for _, n := range seqs {
		if n > seq {
			return n
		}
	}
	return 0
}

// segmentHeader reads a segment's first line: its header when it has one.
func segmentHeader(raw []byte) (record, bool) {
	l := parseLine(0, raw, false)
	if l.err != nil || l.rec.Type != recSegment || l.rec.Seg == nil || l.rec.Line < 2 {
		return record{}, false
	}
	return l.rec, true
}

// due reports whether the open segment, size bytes long, is to be closed.
func (g *segState) due(size int64, now time.Time) bool {
	p := g.policy
	return (p.Size > 0 && size >= p.Size) || (p.Age > 0 && !g.started.IsZero() && now.Sub(g.started) >= p.Age)
}

// noteStart remembers when the open segment began, from its first line.
func (g *segState) noteStart(raw []byte) {
	var r struct {
		At time.Time `json:"at"`
	}
	if json.Unmarshal(raw, &r) == nil {
		g.started = r.At
	}
}
