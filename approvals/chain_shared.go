package approvals

// The chain on a shared record (Options.Shared). A store several hubs
// share is not hash-chained: the chain is one order of every record, and
// the shared record's compare-and-set is per prompt, so two hubs
// appending on two prompts at once would both link to the same line.
// The record's own order stands in its place: every line has the
// stream's sequence number, which every hub reads alike and which has no
// gaps (the store denies deletes and purges, and a reader refuses a
// skipped number), and each line is held by a majority of the record's
// servers before it is acknowledged. The lines of a journal migrated
// into the record keep their chain fields, and `a2atop journal verify`
// on a team's record walks them (VerifyShared); a Service on a shared
// record does not walk the chain, signs no checkpoints, and its Chain
// says so (ChainStatus.Shared).

// sharedRecordWords is ChainStatus.Shared for the record at where.
func sharedRecordWords(where string) string {
	return "the team's record " + where + " is not hash-chained: its lines are in the stream's one order " +
		"(sequence numbers every hub reads alike, without gaps; deletes and purges denied), each held by a majority " +
		"of its servers; the hash chain and signed checkpoints cover file journals"
}

// onSharedRecord reports whether the Service keeps its journal in a
// shared record.
func (s *Service) onSharedRecord() bool {
	_, ok := s.st.(*sharedStore)
	return ok
}
