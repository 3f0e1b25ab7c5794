package hub

// FeedJournal is how many journal lines the hub's feed log holds in
// memory and the bytes of their raw lines and wire forms: what the
// feed-log measurement (BenchmarkHubRetainedPerDecision) reports beside
// the heap.
func (h *Hub) FeedJournal() (lines, bytes int) {
	h.feed.mu.Lock()
	defer h.feed.mu.Unlock()
	for _, j := range h.feed.journal {
		bytes += len(j.line.Raw) + len(j.wire) + len(j.agent)
	}
	return len(h.feed.journal), bytes
}
