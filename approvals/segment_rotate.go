package approvals

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// The steps of a rotation, in order; a crash after any of them leaves a
// journal that reads as before the rotation or as after it, never
// between (see rotate).
const (
	stepWritten      = 1 + iota // the next segment is written under its temporary name
	stepSynced                  // and fsynced
	stepLinked                  // the open segment has its closed name too (a hard link)
	stepLinkSynced              // the directory is fsynced
	stepRenamed                 // the next segment is renamed over the journal's path
	stepRenameSynced            // the directory is fsynced
	stepSealed                  // the closed segment is made read-only (0400)
)

// rotateRetry is how long a rotation that could not happen (a damaged
// line not yet accepted, a file in the way) waits before it is tried
// again, so that a refusal does not cost every write.
const rotateRetry = time.Minute

// rotateIfDue closes the open segment and begins the next when the
// policy says so, after an append, still under the exclusive lock. The
// records just appended are durable whatever happens here: a rotation
// that fails is reported (warn) and tried again later.
func (s *fileStore) rotateIfDue(written []line) {
	if s.seg.started.IsZero() && len(written) > 0 {
		s.seg.started = written[0].rec.At
	}
	now := s.now()
	if !s.seg.policy.On() || s.seg.carry == nil || !s.seg.due(s.off, now) || now.Before(s.seg.retryAt) {
		return
	}
	if err := s.rotate(now.UTC()); err != nil {
		s.seg.retryAt = now.Add(rotateRetry)
		if s.seg.warn != nil {
			s.seg.warn(err)
		}
	}
}

// rotate closes segment seq (the journal's path) and begins seq+1, in
// steps that are each atomic:
//
//  1. write the next segment, its header and the records that restate
//     every open decision, to PATH.next (created anew, 0600), and fsync it;
//  2. link the open segment to its closed name PATH.NNNNNN and fsync the
//     directory: until step 3, both names are one file, which readers
//     take for the open segment alone;
//  3. rename PATH.next over PATH and fsync the directory: the journal's
//     path is the new segment, the old one has its closed name only;
//  4. make the closed segment read-only (0400).
//
// A crash before 3 leaves the journal as it was (the next rotation
// starts again, over a stale PATH.next and an existing link); after 3,
// the rotation is done, and the next writer seals what 4 did not. This
// store moves to the new segment at its next read, as every other
// follower does; nothing is written to the closed one.
func (s *fileStore) rotate(now time.Time) error {
	recs, entries, err := s.seg.carry()
	if err != nil {
		return err
	}
	seq := s.seg.seq
	closed := archivePath(s.path, seq)
	hdr := record{Type: recSegment, At: now, Line: s.n + 1,
		Seg: &segmentInfo{Seq: seq + 1, Prev: filepath.Base(closed), Carried: len(recs), Entries: entries}}
	tail := s.chain
	buf, err := encodeSegment(&tail, hdr, recs)
	if err != nil {
		return err
	}
	ckpt, err := s.signSegment(&tail, hdr.Line+1+len(recs))
	if err != nil {
		return err
	}
	buf = append(buf, ckpt...)
	tmp := tempPath(s.path)
	if err := s.writeNext(tmp, buf); err != nil {
		return err
	}
	if err := linkClosed(s.path, closed); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	s.stepDone(stepLinked)
	syncDir(filepath.Dir(s.path))
	s.stepDone(stepLinkSynced)
	if err := os.Rename(tmp, s.path); err != nil {
		return fmt.Errorf("journal: begin segment %d: rename %s to %s: %w", seq+1, tmp, s.path, err)
	}
	s.stepDone(stepRenamed)
	syncDir(filepath.Dir(s.path))
	s.stepDone(stepRenameSynced)
	s.keepSegmentHead(ckpt)
	if err := os.Chmod(closed, 0o400); err != nil {
		return fmt.Errorf("journal: make the closed segment %s read-only: %w", closed, err)
	}
	s.stepDone(stepSealed)
	s.seg.started = now
	return nil
}

// encodeSegment makes a new segment's bytes: its header, then the
// restated records, each marked as carried into it, all linked into the
// chain after t, the last line of the segment it follows (chain.go), so
// the journal's segments are one chain.
func encodeSegment(t *chainTail, hdr record, recs []record) ([]byte, error) {
	all := make([]record, 0, len(recs)+1)
	all = append(all, hdr)
	for _, r := range recs {
		r.Carried = hdr.Seg.Seq
		all = append(all, r)
	}
	buf, _, err := chainRecords(t, nil, all, hdr.Line, nil)
	return buf, err
}

// writeNext writes the next segment's bytes to tmp, created anew (a file
// a crashed rotation left there is removed first), mode 0600, and
// fsyncs it.
func (s *fileStore) writeNext(tmp string, buf []byte) error {
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("journal: remove what a stopped rotation left at %s: %w", tmp, err)
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("journal: begin the next segment at %s: %w", tmp, err)
	}
	_, err = f.Write(buf)
	if err == nil {
		s.stepDone(stepWritten)
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("journal: write the next segment %s: %w (disk full?)", tmp, err)
	}
	s.stepDone(stepSynced)
	return nil
}

// linkClosed gives the open segment its closed name. A link there that
// is the open segment already (a rotation that stopped after this step)
// is kept; any other file there is not replaced.
func linkClosed(path, closed string) error {
	err := os.Link(path, closed)
	if !errors.Is(err, fs.ErrExist) {
		if err != nil {
			return fmt.Errorf("journal: close segment %s: %w", closed, err)
		}
		return nil
	}
	a, aerr := os.Lstat(closed)
	p, perr := os.Lstat(path)
	if aerr == nil && perr == nil && os.SameFile(a, p) {
		return nil
	}
	return fmt.Errorf("journal: close segment: %s exists and is not the open segment %s; move it aside (it may be an earlier journal's) and the next write rotates", closed, path)
}

func (s *fileStore) stepDone(step int) {
	if s.seg.step != nil {
		s.seg.step(step)
	}
}
