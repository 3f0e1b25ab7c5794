package approvals

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"a2atop/internal/statefile"
)

// store is where the journal's records live, and the one place that
// decides which of two writers comes first. Every writer of one journal
// goes through the same store: the file on one machine (fileStore); the
// team's hub, whose store takes the same three calls with compare-and-set,
// is another. A store is safe for concurrent use.
type store interface {
	// follow passes to fold, in order, the lines that were appended since
	// the last follow or update (all of them on the first call).
	follow(fold func(lines []line, mine bool)) error
	// update holds the store exclusively: it passes to fold what others
	// appended since the last call, asks check for the records to append
	// (none, or an error, appends nothing), appends them durably, passes
	// them to fold as mine, and only then lets another writer in.
	update(fold func(lines []line, mine bool), check func() ([]record, error)) error
	// where names the store in words ("/home/u/.local/state/a2atop/journal.jsonl").
	where() string
	close() error
}

// syncWriter is the part of *os.File the journal writes through; tests
// swap in a wrapper.
type syncWriter interface {
	io.Writer
	Sync() error
	Close() error
}

// lockWait bounds how long a writer waits for another process's lock
// before it gives up (nothing written, nothing sent).
const lockWait = 10 * time.Second

// fileStore is the journal as a JSONL file of mode 0600. Each append is
// one write followed by an fsync, made under an exclusive flock on the
// lock file beside the journal (PATH.lock); a reader takes the lock
// shared, so it never sees half of another process's write. The file is
// followed by offset: each call reads only what was appended since the
// last.
type fileStore struct {
	mu   sync.Mutex
	path string
	now  func() time.Time
	w    syncWriter // nil when read-only
	r    *os.File   // nil while the file does not exist (read-only)
	lk   *os.File   // nil while no writer has made the lock file (read-only)

	off     int64  // bytes read: every line before off was passed on
	n       int    // lines before off
	partial []byte // the bytes after off: a last line without its newline
	told    []byte // the partial line already passed on as torn, so it is passed once
	read    int64  // bytes read in all, for tests: following costs what was appended
	seg     segState

	chain chainTail    // the file's last line, which the next record links to (chain.go)
	next  chainTail    // the tail once the append under way is written
	ckpt  *Checkpoints // nil: this writer signs no checkpoints
}

func lockPath(path string) string { return path + ".lock" }

// openFileStore opens (creating, mode 0600, in a directory of mode 0700,
// unless readOnly) the journal at path and its lock file. A journal or a
// lock file another user could have planted (a symbolic link, a file or
// directory not the user's own, a directory others may write) is refused;
// see statefile.
func openFileStore(path string, readOnly bool, now func() time.Time) (*fileStore, error) {
	s := &fileStore{path: path, now: now, seg: segState{seq: 1}}
	if readOnly {
		return s, s.reopen()
	}
	_, statErr := os.Lstat(path)
	w, err := statefile.OpenAppend(path)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	s.w = w
	if errors.Is(statErr, fs.ErrNotExist) {
		syncDir(filepath.Dir(path))
	}
	if s.lk, err = statefile.OpenAppend(lockPath(path)); err != nil {
		s.close()
		return nil, fmt.Errorf("journal lock: %w", err)
	}
	if s.r, err = statefile.Open(path); err != nil {
		s.close()
		return nil, fmt.Errorf("journal: %w", err)
	}
	return s, nil
}

// reopen opens, for a read-only store, the journal and the lock file
// once they exist.
func (s *fileStore) reopen() error {
	var err error
	if s.r == nil {
		if s.r, err = openIfExists(s.path); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
	}
	if s.lk == nil {
		if s.lk, err = openIfExists(lockPath(s.path)); err != nil {
			return fmt.Errorf("journal lock: %w", err)
		}
	}
	return nil
}

func openIfExists(path string) (*os.File, error) {
	f, err := statefile.Open(path)
	if errors.Is(err, fs.ErrNotExist) && !errors.Is(err, statefile.ErrUnsafe) {
		return nil, nil
	}
	return f, err
}

// syncDir fsyncs a directory so a newly created file survives a crash.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

func (s *fileStore) where() string { return s.path }

func (s *fileStore) follow(fold func([]line, bool)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reopen(); err != nil {
		return err
	}
	if s.r == nil {
		return nil
	}
	unlock, err := s.lock(false)
	if err != nil {
		return err
	}
	defer unlock()
	return s.readNew(s.lk != nil, fold)
}

func (s *fileStore) update(fold func([]line, bool), check func() ([]record, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return ErrJournalReadOnly
	}
	unlock, err := s.lock(true)
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.readNew(true, fold); err != nil {
		return err
	}
	recs, err := check()
	if err != nil || len(recs) == 0 {
		return err
	}
	buf, written, err := s.encode(recs)
	if err != nil || len(written) == 0 {
		return err
	}
	if _, err := s.w.Write(buf); err != nil {
		return fmt.Errorf("journal: write %s: %w (disk full?)", s.path, err)
	}
	if err := s.w.Sync(); err != nil {
		return fmt.Errorf("journal: fsync %s: %w", s.path, err)
	}
	s.chain = s.next
	s.keepHead(written)
	s.off += int64(len(s.partial) + len(buf))
	s.n += len(written)
	if len(s.partial) > 0 {
		s.n++
	}
	s.partial, s.told = nil, nil
	fold(written, true)
	s.rotateIfDue(written)
	return nil
}

// encode makes the bytes of one append: a newline first when the file
// ends in a torn line, then (when that line is not a record) a "torn"
// record naming it, then recs, each linked into the chain (chain.go);
// and the lines they will be.
func (s *fileStore) encode(recs []record) ([]byte, []line, error) {
	var buf []byte
	n := s.n + 1
	if len(s.partial) > 0 {
		buf = append(buf, '\n')
		if parseLine(n, s.partial, true).err != nil {
			recs = append([]record{{Type: recTorn, At: s.now().UTC(), Line: n, Hash: lineHash(s.partial)}}, recs...)
		}
		n++
	}
	s.next = s.chain
	b, written, err := chainRecords(&s.next, s.ckpt, recs, n, s.checkpointRecord)
	return append(buf, b...), written, err
}

// readFile reads what was appended to the segment s.r holds after off.
// Complete lines are parsed and passed on once. A last line without its
// newline is kept for the next read; when the caller holds the lock (no
// write can be under way) it is passed on once as torn. closed is true
// when s.r is no longer the journal's path: a closed segment, read to
// its end (see readNew).
func (s *fileStore) readFile(locked bool) (out []line, closed bool, err error) {
	fi, err := s.r.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("journal: stat %s: %w", s.path, err)
	}
	pi, err := os.Lstat(s.path)
	if err != nil {
		return nil, false, fmt.Errorf("journal: %s was moved or replaced since a2atop opened it; restart a2atop to read the file that is there now", s.path)
	}
	closed = !os.SameFile(pi, fi)
	if fi.Size() < s.off {
		return nil, false, fmt.Errorf("journal: %s is shorter than what was read from it (%d < %d bytes): it was truncated or rewritten; check it with a2atop journal check, then restart a2atop", s.path, fi.Size(), s.off)
	}
	buf := make([]byte, fi.Size()-s.off)
	if _, err := s.r.ReadAt(buf, s.off); err != nil && !errors.Is(err, io.EOF) {
		return nil, false, fmt.Errorf("journal: read %s: %w", s.path, err)
	}
	s.read += int64(len(buf))
	for first := true; ; first = false {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		raw := buf[:i]
		if s.off == 0 {
			if err := s.beginSegment(raw); err != nil {
				return out, false, err
			}
			out = s.seedChain(out)
		}
		buf = buf[i+1:]
		s.off += int64(i + 1)
		s.n++
		if s.seg.skip > 0 { // restated from the segment before, which was read: the chain's only
			s.seg.skip--
			out = s.chainRestated(out, s.n, raw)
			continue
		}
		told := first && s.told != nil && bytes.Equal(raw, s.told)
		if !told {
			out = s.chainRead(out, s.n, raw, false)
		}
		s.told = nil
	}
	s.partial = bytes.Clone(buf)
	if len(buf) > 0 && locked && !bytes.Equal(buf, s.told) {
		out = s.chainRead(out, s.n+1, s.partial, true)
		s.told = s.partial
	}
	return out, closed, nil
}

// lock takes the lock file, exclusively or shared, waiting at most
// lockWait; the returned function releases it. Without a lock file (a
// read-only store before any writer ran) it does nothing.
func (s *fileStore) lock(exclusive bool) (func(), error) {
	if s.lk == nil {
		return func() {}, nil
	}
	deadline := time.Now().Add(lockWait) // a real wait, whatever clock the journal uses
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		ok, err := tryLock(s.lk, exclusive)
		if err != nil {
			return nil, fmt.Errorf("journal: lock %s: %w", lockPath(s.path), err)
		}
		if ok {
			return func() { _ = unlockFile(s.lk) }, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("journal: another a2atop has held %s for over %s (a process stopped with Ctrl+Z?); nothing was written", lockPath(s.path), lockWait)
		}
		time.Sleep(pause)
	}
}

func (s *fileStore) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	for _, c := range []io.Closer{s.w, s.r, s.lk} {
		if c != nil && !isNilFile(c) {
			err = errors.Join(err, c.Close())
		}
	}
	s.w, s.r, s.lk = nil, nil, nil
	return err
}

// isNilFile reports a typed nil *os.File inside an io.Closer.
func isNilFile(c io.Closer) bool {
	f, ok := c.(*os.File)
	return ok && f == nil
}
