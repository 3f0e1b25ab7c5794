package approvals

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"a2atop/internal/statefile"
)

// syncWriter is the part of *os.File the journal writes through; tests
// swap in a counting wrapper.
type syncWriter interface {
	io.Writer
	Sync() error
	Close() error
}

// journal is the append-only JSONL file. Every append is one write of one
// line followed by an fsync. It is safe for concurrent use.
type journal struct {
	mu      sync.Mutex
	path    string
	f       syncWriter // nil when read-only
	needNL  bool       // the file ends in a torn line: start the next record on a new line
	damaged int        // lines that could not be read back
}

// openJournal opens (creating, mode 0600, in a directory of mode 0700)
// the journal at path and reads back every record in it. readOnly opens
// nothing for writing and does not create the file. A journal another
// user could have planted (a symbolic link, a file or directory not the
// user's own, a directory others may write) is refused; see statefile.
func openJournal(path string, readOnly bool) (*journal, []record, error) {
	j := &journal{path: path}
	recs, torn, err := j.readAll()
	if err != nil {
		return nil, nil, err
	}
	if readOnly {
		return j, recs, nil
	}
	_, statErr := os.Lstat(path)
	f, err := statefile.OpenAppend(path)
	if err != nil {
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	if errors.Is(statErr, os.ErrNotExist) {
		syncDir(filepath.Dir(path))
	}
	j.f = f
	j.needNL = torn
	return j, recs, nil
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

// readAll reads every complete record. A last line without its newline
// (a crash during a write) is skipped and reported as torn; other lines
// that do not parse are counted as damaged and skipped.
func (j *journal) readAll() (recs []record, torn bool, err error) {
	b, err := statefile.ReadFile(j.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("journal: %w", err)
	}
	torn = len(b) > 0 && b[len(b)-1] != '\n'
	lines := bytes.Split(b, []byte{'\n'})
	for i, line := range lines {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var r record
		if err := json.Unmarshal(line, &r); err != nil || r.Type == "" {
			if !(torn && i == len(lines)-1) {
				j.damaged++ // a torn tail is expected after a crash; anything else is damage
			}
			continue
		}
		recs = append(recs, r)
	}
	return recs, torn, nil
}

// append writes one record and fsyncs it before returning.
func (j *journal) append(r record) error {
	r.V = 1
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("journal: encode %s record: %w", r.Type, err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return ErrReadOnly
	}
	if j.needNL {
		b = append([]byte{'\n'}, b...)
	}
	b = append(b, '\n')
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("journal: write %s: %w (disk full?)", j.path, err)
	}
	j.needNL = false
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal: fsync %s: %w", j.path, err)
	}
	return nil
}

// close closes the file.
func (j *journal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}
