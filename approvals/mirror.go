package approvals

import "sync"

// mirrorStore is the store of a Service attached to a team's hub: the
// hub's journal, line by line as the feed delivers it (Service.Follow).
// It is never written here: every write is the hub's. Safe for
// concurrent use.
type mirrorStore struct {
	mu      sync.Mutex
	last    int    // the number of the last line taken
	hash    string // the hash of its bytes
	pending []line // taken and not yet passed on by follow
}

func newMirrorStore() *mirrorStore { return &mirrorStore{} }

// add takes the lines numbered after the last one taken, in order.
func (m *mirrorStore) add(lines []JournalLine) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, l := range lines {
		if l.N <= m.last {
			continue
		}
		raw := append([]byte(nil), l.Raw...)
		m.pending = append(m.pending, parseLine(l.N, raw, l.Torn))
		m.last, m.hash = l.N, lineHash(raw)
	}
}

func (m *mirrorStore) position() (int, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last, m.hash
}

func (m *mirrorStore) follow(fold func([]line, bool)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.pending) > 0 {
		fold(m.pending, false)
		m.pending = nil
	}
	return nil
}

func (m *mirrorStore) update(func([]line, bool), func() ([]record, error)) error {
	return errHubJournal
}

func (m *mirrorStore) where() string { return "the hub's journal" }

func (m *mirrorStore) close() error { return nil }
