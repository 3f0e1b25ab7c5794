package approvals

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"a2atop/internal/statefile"
)

// The chain across segments (segment.go, chain.go). A rotation links the
// new segment's header and the records it restates after the last line
// of the segment it closes (encodeSegment), so the journal's segments
// are one chain. A store that follows the journal into the next segment
// passes the restated lines to the walk and its tail, not to the fold
// (walkRestated); one that starts at a segment's header (it opens the
// open segment alone) first reads the last line of the segment before
// and starts the walk after it (walkSeed), so the header is checked
// against it. VerifyJournal walks every segment in order (SegmentFiles).

// walkOnly says what a line read is for beside the fold (line.walkOnly).
type walkOnly int8

const (
	walkAll      walkOnly = iota // a line to fold, walk and publish
	walkRestated                 // restated from a segment already read: walked, not folded or published
	walkSeed                     // the last line of the segment before the first one read: the walk starts after it
)

// SegmentFiles lists the files of the journal at path, oldest first: the
// closed segments, then the open one (path itself), for a walk of the
// whole journal (VerifyJournal).
func SegmentFiles(path string) ([]string, error) {
	seqs, err := archives(path)
	if err != nil {
		return nil, fmt.Errorf("journal: list the segments of %s: %w", path, err)
	}
	out := make([]string, 0, len(seqs)+1)
	for _, n := range seqs {
		out = append(out, archivePath(path, n))
	}
	if _, err := os.Lstat(path); err == nil || len(out) == 0 {
		out = append(out, path)
	}
	return out, nil
}

// chainRestated notes a restated line of a segment continued into (the
// header, a carried record) as the chain's tail and passes it on for the
// walk only.
func (s *fileStore) chainRestated(out []line, n int, raw []byte) []line {
	l := chainOnlyLine(n, raw)
	s.chain.observe(raw, &l)
	l.walkOnly = walkRestated
	return append(out, l)
}

// seedChain, at the first line of a segment read first (a reader that
// starts at the open segment, or at the oldest closed one kept), passes
// on the last line of the segment before it, when that one is there, for
// the walk to start after. It is not folded: its records are restated by
// the header's segment or settled.
func (s *fileStore) seedChain(out []line) []line {
	if len(s.seg.files) != 1 || s.seg.seq < 2 || s.seg.skip > 0 {
		return out
	}
	prev := archivePath(s.path, s.seg.seq-1)
	raw, err := lastLineOf(prev)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && s.seg.warn != nil {
			s.seg.warn(fmt.Errorf("journal: the chain of segment %d is checked from its own first line: %w", s.seg.seq, err))
		}
		return out
	}
	l := parseLine(s.n, raw, false)
	s.chain.observe(raw, &l)
	l.walkOnly = walkSeed
	s.seg.seed = segmentFile{prev, s.n}
	return append(out, l)
}

// lastLineOf is the last complete line of the file at path, without its
// newline.
func lastLineOf(path string) ([]byte, error) {
	f, err := statefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	end := fi.Size()
	var tail []byte
	for off := end; off > 0; {
		n := min(off, 64<<10)
		off -= n
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, off); err != nil {
			return nil, err
		}
		tail = append(buf, tail...)
		body := bytes.TrimSuffix(tail, []byte("\n"))
		if len(body) == len(tail) && off+int64(len(tail)) == end { // no newline at the end: a torn last line
			return nil, fmt.Errorf("%s does not end in a whole line", path)
		}
		if i := bytes.LastIndexByte(body, '\n'); i >= 0 {
			return body[i+1:], nil
		}
		if off == 0 {
			return body, nil
		}
	}
	return nil, fmt.Errorf("%s is empty", path)
}

// walkLine gives a folded line to the chain's walk, and reports whether
// the line is the walk's only (line.walkOnly). Callers hold s.mu.
func (s *Service) walkLine(l line, cl chainLine) bool {
	if s.onSharedRecord() {
		return false
	}
	switch l.walkOnly {
	case walkSeed:
		s.walk.seed(cl)
		return true
	case walkRestated:
		s.walk.add(cl)
		return true
	}
	s.walk.add(cl)
	return false
}

// seed starts the walk after l, the last line of the segment before the
// first one read: the next record links to it and follows its seq. A
// checkpoint the head file keeps at or before l is in that segment, which
// this walk does not read (VerifyJournal of every segment does).
func (w *chainWalk) seed(l chainLine) {
	w.lastN = l.n
	w.ring[w.ringN%ringSize] = posOf(l)
	w.ringN++
	w.setLast(l)
	switch {
	case !l.rec: // the next record is taken as it is, after this break
		w.st.Start, w.st.StartPath = l.n+1, w.st.Path
		w.brk(l.n, l.sum, BreakEdited, "the last line of the segment before is not a record ("+l.why+"): a record edited")
	case l.seq > 0:
		w.rec, w.anchored, w.st.Start, w.st.StartPath = posOf(l), true, l.n+1, w.st.Path
	}
	if w.head != nil && w.head.seq <= l.seq {
		w.headSeen = true
	}
}

// restateVotes are, for a new segment, the votes on prompts not yet
// decided (the Service's open votes), as journaled, after the decisions
// restated (a decision folded drops the votes on its task): a reader of
// the new segment alone counts them as the readers before it did. Tasks
// in the order of their first vote. Callers hold s.mu.
func (s *Service) restateVotes() []record {
	tvs := make([]*taskVotes, 0, len(s.votes))
	for _, tv := range s.votes {
		if len(tv.list) > 0 {
			tvs = append(tvs, tv)
		}
	}
	sort.Slice(tvs, func(i, j int) bool { return tvs[i].list[0].At.Before(tvs[j].list[0].At) })
	var out []record
	for _, tv := range tvs {
		for _, v := range tv.list {
			r := v.rec
			r.Seq, r.Prev, r.Sum, r.Carried, r.V = 0, "", "", 0, 0
			out = append(out, r)
		}
	}
	return out
}

// has reports whether the votes hold the vote id of approver.
func (tv *taskVotes) has(id, approver string) bool {
	for _, v := range tv.list {
		if v.id == id && v.Name == approver {
			return true
		}
	}
	return false
}

// signSegment is, for a writer that signs checkpoints (a hub), a signed
// checkpoint of the new segment's head, after its header and restated
// records (and not counted among them): the open segment then proves
// itself from its start, whatever was signed before the rotation. Line
// n is the checkpoint's own.
func (s *fileStore) signSegment(t *chainTail, n int) ([]byte, error) {
	if s.ckpt == nil {
		return nil, nil
	}
	buf, _, err := chainRecords(t, s.ckpt, []record{s.checkpointRecord()}, n, s.checkpointRecord)
	return buf, err
}

// keepSegmentHead keeps the checkpoint signSegment made (its line, with
// the newline) in the head file, once the new segment is the journal's.
func (s *fileStore) keepSegmentHead(ckpt []byte) {
	if len(ckpt) == 0 {
		return
	}
	_ = statefile.WriteFile(headPath(s.path), ckpt)
}

// segView is what a Service knows of the journal's files to name a line
// of its walk: the files read, with their first lines, and the segment
// whose last line the walk started after.
type segView struct {
	files     []segmentFile
	seed      segmentFile
	seedLines int // the seed segment's lines, counted once a break is found there
}

// noteFiles copies the store's files, from fold: the store calls it
// under its own lock. Callers hold s.mu.
func (s *Service) noteFiles() {
	if fs, ok := s.st.(*fileStore); ok {
		s.segs.files = fs.seg.files
		if s.segs.seed != fs.seg.seed {
			s.segs.seed, s.segs.seedLines = fs.seg.seed, 0
		}
	}
}

// lineIn names the file that holds line n (numbered in the whole
// journal) and its number there.
func (v segView) lineIn(path string, n int) (string, int) {
	for i := len(v.files) - 1; i >= 0; i-- {
		if f := v.files[i]; f.first <= n {
			return f.path, n - f.first + 1
		}
	}
	return path, n
}

// inFiles names the lines of a Service's walk (numbered in the whole
// journal, across segments) by the file that holds each and its line
// there, as a walk of the files does. Callers hold s.mu.
func (s *Service) inFiles(c ChainStatus) ChainStatus {
	v, path := s.segs, s.st.where()
	if len(v.files) == 0 {
		return c
	}
	for i := range c.Breaks {
		b := &c.Breaks[i]
		if v.seed.path != "" && b.Line == v.seed.first {
			if s.segs.seedLines == 0 {
				s.segs.seedLines = linesIn(v.seed.path)
			}
			b.Path, b.Line = v.seed.path, s.segs.seedLines
			continue
		}
		b.Path, b.Line = v.lineIn(path, b.Line)
		if b.AcceptedLine > 0 {
			_, b.AcceptedLine = v.lineIn(path, b.AcceptedLine)
		}
	}
	if c.Start > 0 {
		c.StartPath, c.Start = v.lineIn(path, c.Start)
	}
	if c.SignedLine > 0 {
		c.SignedPath, c.SignedLine = v.lineIn(path, c.SignedLine)
	}
	return c
}

// linesIn counts the lines of a closed segment: the number of its last
// line, for a break found there (rare: read then).
func linesIn(path string) int {
	f, err := statefile.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n, buf := 0, make([]byte, 1<<20)
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte("\n"))
		if err != nil {
			return n
		}
	}
}

// chainOnlyLine reads a line for the chain alone, with the walk's light
// parse (chain_file.go): a restated line is read where it was first
// written, and a new segment restates every open decision, so its parts
// are not decoded again.
func chainOnlyLine(n int, raw []byte) line {
	c := parseChainLine(n, raw, false)
	l := line{n: n, raw: raw}
	if !c.rec {
		l.err = errors.New(c.why)
		return l
	}
	l.rec = record{Type: c.typ, Seq: c.seq, Prev: c.prev, At: c.at, Line: c.tornLine, Hash: c.tornHash, Key: c.key, Sig: c.sig, Approver: c.by}
	return l
}
