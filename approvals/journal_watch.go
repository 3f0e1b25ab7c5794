package approvals

import (
	"path/filepath"

	"github.com/fsnotify/fsnotify"
)

// Watch tells when the journal file was written, by this process or
// another (a second dashboard, `a2atop reply`), so that a dashboard calls
// Refresh when there is something to read instead of on a clock. The
// channel receives a value soon after each write (writes close together
// coalesce into one value: it holds at most one) and is closed once stop
// is called. A failed watch (the OS queue overflowed) sends a value too:
// a write may be among what it dropped. ok is false, and there is nothing to stop, when the journal
// is not a file here (attached to a team's hub, whose feed delivers it)
// or the OS offers no notification (fsnotify: inotify on Linux, kqueue
// on the BSDs and macOS, ReadDirectoryChangesW on Windows).
//
// It watches the journal's directory, so a journal that does not exist
// yet (read-only, before the first decision) is seen when it is created.
func (s *Service) Watch() (changes <-chan struct{}, stop func(), ok bool) {
	fs, isFile := s.st.(*fileStore)
	if !isFile {
		return nil, nil, false
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		s.log.Info("journal: no file-change notification; polling", "err", err)
		return nil, nil, false
	}
	path := filepath.Clean(fs.path)
	if err := w.Add(filepath.Dir(path)); err != nil {
		_ = w.Close()
		s.log.Info("journal: no file-change notification; polling", "err", err)
		return nil, nil, false
	}
	ch := make(chan struct{}, 1)
	go s.relay(w, path, ch)
	return ch, func() { _ = w.Close() }, true
}

// relay passes on the events that touch the journal at path, coalesced,
// until the watcher is closed or fails; then it closes ch.
func (s *Service) relay(w *fsnotify.Watcher, path string, ch chan<- struct{}) {
	defer close(ch)
	poke := func() {
		select {
		case ch <- struct{}{}:
		default: // one is waiting already: it covers this write too
		}
	}
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if filepath.Clean(ev.Name) == path && !ev.Has(fsnotify.Chmod) {
				poke()
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			// An overflowed queue may have dropped a write: read anyway.
			s.log.Warn("journal: file-change notification", "err", err)
			poke()
		}
	}
}
