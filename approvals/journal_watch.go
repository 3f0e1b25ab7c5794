package approvals

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/fsnotify/fsnotify"
)

// Watch tells when the journal file was written, by this process or
// another (a second dashboard, `a2atop reply`), so that a dashboard calls
// Refresh when there is something to read instead of on a clock. The
// channel receives a value soon after each write (writes close together
// coalesce into one value: it holds at most one) and is closed once stop
// is called. A failed watch (the OS queue overflowed) sends a value too:
// a write may be among what it dropped. ok is false, and there is nothing
// to stop, when the journal is not a file here (attached to a team's hub,
// whose feed delivers it) or the OS offers no notification (fsnotify:
// inotify on Linux, kqueue on the BSDs and macOS, ReadDirectoryChangesW on
// Windows).
//
// It watches the file itself, so writes of other files beside it (the
// log) wake nothing; while the file does not exist (read-only, before the
// first decision; or after it was moved away) it watches the directory
// for its creation, then the file again.
func (s *Service) Watch() (changes <-chan struct{}, stop func(), ok bool) {
	fst, isFile := s.st.(*fileStore)
	if !isFile {
		return nil, nil, false
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		s.log.Info("journal: no file-change notification; polling", "err", err)
		return nil, nil, false
	}
	jw := &journalWatch{w: w, path: filepath.Clean(fst.path), log: s.log}
	if err := jw.watch(); err != nil {
		_ = w.Close()
		s.log.Info("journal: no file-change notification; polling", "err", err)
		return nil, nil, false
	}
	ch := make(chan struct{}, 1)
	go jw.relay(ch)
	return ch, func() { _ = w.Close() }, true
}

// journalWatch is the watch of one journal file. relay's goroutine alone
// uses it after Watch.
type journalWatch struct {
	w       *fsnotify.Watcher
	path    string
	log     *slog.Logger
	dir     bool        // the directory is watched (the file is not there)
	file    os.FileInfo // the file watched, to tell when a rotation renamed another over it
	overrun bool        // an overflow was logged
}

// watch watches the file, or its directory while the file is not there.
func (j *journalWatch) watch() error {
	if j.file != nil { // a rotation: the watched file is now a closed segment
		_ = j.w.Remove(j.path)
		j.file = nil
	}
	err := j.w.Add(j.path)
	if err == nil {
		j.file, _ = os.Lstat(j.path)
		if j.dir {
			_ = j.w.Remove(filepath.Dir(j.path))
			j.dir = false
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := j.w.Add(filepath.Dir(j.path)); err != nil {
		return err
	}
	j.dir = true
	_, statErr := os.Lstat(j.path) // created meanwhile: watch it
	if statErr == nil {
		return j.watch()
	}
	return nil
}

// replaced reports whether the journal's path names another file than
// the one watched: a rotation renamed the next segment over it (the
// watched file only hears its link count and mode change).
func (j *journalWatch) replaced() bool {
	fi, err := os.Lstat(j.path)
	return j.file != nil && err == nil && !os.SameFile(fi, j.file)
}

// relay passes on the events that touch the journal, coalesced, until
// the watcher is closed or the watch cannot go on; then it closes ch.

func (j *journalWatch) relay(ch chan<- struct{}) {
	defer close(ch)
	poke := func() {
		select {
		case ch <- struct{}{}:
		default: // one is waiting already: it covers this write too
		}
	}
	for {
		select {
		case ev, ok := <-j.w.Events:
			if !ok {
				return
			}
			if filepath.Clean(ev.Name) != j.path || (ev.Op == fsnotify.Chmod && !j.replaced()) {
				continue
			}
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) || ev.Op == fsnotify.Chmod {
				if err := j.watch(); err != nil { // closing ch: the clock reads it from now on
					j.log.Warn("journal: file-change notification lost; reading the journal on the clock", "err", err)
					poke()
					return
				}
			}
			poke()
		case err, ok := <-j.w.Errors:
			if !ok {
				return
			}
			if !j.overrun { // once: the log may be beside the journal
				j.overrun = true
				j.log.Warn("journal: file-change notification", "err", err)
			}
			poke() // an overflow may have dropped a write: read anyway
		}
	}
}
