package hub

import "a2atop/approvals"

// The feed log's journal lines are bounded as the hub's Service's
// memory is (approvals Options.Memory, journal_memory): it holds the
// lines of every decision the Service holds (the open ones whatever
// their age, and the newest), all of each, the observations among the
// newest entries, and every line that is damage or resolves damage. The
// journal file keeps everything. A connection whose journal position is
// before a line let go gets the held lines from the start, and a
// dashboard that followed lines past what it gets is told to restart
// (SnapshotBegin.JournalTrimmed): it is never sent a journal with a gap.

// feedMemory is the number of entries the feed log holds lines of,
// besides the open decisions, for the Service's memory option: -1 for
// all.
func feedMemory(memory int) int {
	switch {
	case memory < 0:
		return -1
	case memory == 0:
		return approvals.DefaultMemory
	}
	return memory
}

// trimJournal lets go of the lines of the entries the hub's Service no
// longer holds, once the log holds a quarter more entries than its
// limit, so that each line costs the same however long the hub runs. It
// asks the Service without the log's lock (the Service publishes its
// lines to the log), and keeps the lines appended meanwhile.
func (h *Hub) trimJournal() {
	l := h.feed
	l.mu.Lock()
	holds := l.holds
	if holds == nil || l.limit < 0 || l.trimming || l.groups <= l.trimAt {
		l.mu.Unlock()
		return
	}
	l.trimming = true
	k := len(l.journal)
	held := map[string]bool{}
	for _, j := range l.journal[:k] {
		if j.id != "" {
			held[j.id] = false
		}
	}
	l.mu.Unlock()
	for id := range held {
		held[id] = holds(id)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.trimming = false
	// The observations among the newest limit entries are held.
	newest, recent := 0, len(l.journal)
	for i := len(l.journal) - 1; i >= 0 && newest < l.limit; i-- {
		if l.journal[i].first {
			newest++
			recent = i
		}
	}
	kept := make([]jline, 0, len(l.journal)) // a new array: snapshots share the old one
	groups := 0
	for i, j := range l.journal {
		if i < k && !j.keep && !(j.id != "" && held[j.id]) && !(j.id == "" && i >= recent) {
			l.trimmed = max(l.trimmed, j.line.N)
			continue
		}
		if j.first {
			groups++
		}
		kept = append(kept, j)
	}
	// Many open decisions may stay past the limit: the next trim waits
	// for a quarter of the limit more.
	l.journal, l.groups, l.trimAt = kept, groups, max(l.limit+l.limit/4, groups+l.limit/4)
}
