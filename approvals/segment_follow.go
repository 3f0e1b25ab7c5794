package approvals

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"a2atop/internal/statefile"
)

// readNew reads what was appended since the last read, following the
// journal across segments: when the file it holds is no longer the
// journal's path (another process closed the segment under the
// exclusive lock, so it is complete and will not change), it reads that
// file to its end, then goes on in the next segment, passing over the
// next segment's header and the records it restates, which were read
// where they were first written. No line is missed or passed on twice.
// The lines of each segment are passed to fold as it is read, so that a
// reader of many segments holds the lines of one at a time.
func (s *fileStore) readNew(locked bool, fold func([]line, bool)) error {
	for {
		lines, closed, err := s.readFile(locked)
		if closed && len(s.partial) > 0 && !bytes.Equal(s.partial, s.told) { // never written again: its end is torn for good
			lines = append(lines, parseLine(s.n+1, s.partial, true))
		}
		if len(lines) > 0 {
			fold(lines, false)
		}
		if err != nil || !closed {
			return err
		}
		if len(s.partial) > 0 {
			s.n++
		}
		if err := s.nextSegment(); err != nil {
			return err
		}
	}
}

// nextSegment opens, after a closed segment was read to its end, the
// segment that follows it: the next closed one when there is one (more
// than one rotation since the last read), else the journal's path. A
// writer's append descriptor moves with it, so nothing is ever written
// to a closed segment.
func (s *fileStore) nextSegment() error {
	next := s.path
	if n := nextArchive(s.path, s.seg.seq); n > 0 {
		next = archivePath(s.path, n)
	}
	f, err := statefile.Open(next)
	if err != nil {
		return fmt.Errorf("journal: the segment after %s: %w", archivePath(s.path, s.seg.seq), err)
	}
	if _, ok := segmentHeader(firstLine(f)); !ok { // a rotation renames a segment in with its header: this is not one
		f.Close()
		return fmt.Errorf("journal: %s was moved or replaced since a2atop opened it; restart a2atop to read the file that is there now", s.path)
	}
	if next == s.path && s.w != nil {
		w, err := statefile.OpenAppend(s.path)
		if err != nil {
			f.Close()
			return fmt.Errorf("journal: %w", err)
		}
		_ = s.w.Close()
		s.w = w
	}
	_ = s.r.Close()
	s.r, s.off, s.partial, s.told = f, 0, nil, nil
	return nil
}

// firstLine is the first line of f, without its newline; nil when f has
// no complete line in its first 64 KiB (a header is far shorter).
func firstLine(f *os.File) []byte {
	buf := make([]byte, 64<<10)
	n, _ := f.ReadAt(buf, 0)
	if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
		return buf[:i]
	}
	return nil
}

// beginSegment reads the first line of a file: a segment's header, when
// it has one, gives its number and the number of its first line; when
// the lines before it were read (the previous segment), the header and
// the records it restates are passed over. A file without a header is
// the first segment; found after other lines, it is not a segment but a
// journal moved or replaced.
func (s *fileStore) beginSegment(raw []byte) error {
	s.seg.noteStart(raw)
	hdr, ok := segmentHeader(raw)
	switch {
	case !ok && s.n > 0:
		return fmt.Errorf("journal: %s was moved or replaced since a2atop opened it; restart a2atop to read the file that is there now", s.path)
	case !ok:
		s.seg.seq = 1
		s.seg.files = append(s.seg.files, segmentFile{s.r.Name(), 1})
		return nil
	}
	s.seg.seq = hdr.Seg.Seq
	if s.n > 0 && hdr.Line == s.n+1 {
		s.seg.skip = 1 + hdr.Seg.Carried
		s.seg.files = append(s.seg.files, segmentFile{s.r.Name(), hdr.Line})
		return nil
	}
	if s.n > 0 && s.seg.warn != nil {
		s.seg.warn(fmt.Errorf("journal: segment %d begins at line %d, but %d lines were read before it: a segment between them is missing; its records are not read", hdr.Seg.Seq, hdr.Line, s.n))
	}
	s.n = hdr.Line - 1
	s.seg.files = append(s.seg.files, segmentFile{s.r.Name(), hdr.Line})
	return nil
}

// readFromFirst makes a store read the closed segments, oldest first,
// before the open one: for a reader of the whole journal (MemoryAll).
// Before its first read only.
func (s *fileStore) readFromFirst() error {
	seqs, err := archives(s.path)
	if err != nil || len(seqs) == 0 || s.off > 0 || s.n > 0 {
		return err
	}
	f, err := statefile.Open(archivePath(s.path, seqs[0]))
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if s.r != nil {
		_ = s.r.Close()
	}
	s.r, s.seg.seq = f, seqs[0]
	return nil
}

// seal makes every closed segment read-only (0400): the last step of a
// rotation, done again by the next writer when a crash came before it.
func seal(path string) error {
	seqs, err := archives(path)
	if err != nil {
		return err
	}
	for _, n := range seqs {
		p := archivePath(path, n)
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode().Perm() == 0o400 || !fi.Mode().IsRegular() {
			continue
		}
		if err := os.Chmod(p, 0o400); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("journal: make the closed segment %s read-only: %w", p, err)
		}
	}
	return nil
}
