package approvals

import (
	"crypto/ed25519"
	"errors"
	"fmt"
)

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
	return ok || s.o.HubRecord != ""
}

// sharedWords is ChainStatus.Shared of a Service on a shared record.
func (s *Service) sharedWords() string {
	if s.o.HubRecord != "" {
		return s.o.HubRecord
	}
	return sharedRecordWords(s.st.where())
}

// SharedVerify is what VerifyShared found in a team's shared record.
type SharedVerify struct {
	Where   string
	Lines   int   // the record's lines: 1..Lines, without a gap
	Damaged []int // lines that are not records (they do not parse, or their checksum fails)
	// Chained is the last line of the hash chain a journal migrated into
	// the record brought with it (0 when none did); Chain is the walk of
	// lines 1..Chained. The lines after it are the record's own: in the
	// stream's order, not chained.
	Chained int
	Chain   ChainStatus
}

// VerifyShared reads every line of a shared record, in its order: the
// numbers must run from 1 without a gap (the store denies deletes and
// purges), every line must be a record, and the chain a migrated journal
// brought (its lines up to the last chained record) is walked as a file
// journal's, its checkpoints checked with key (nil: each checkpoint's
// own key, the same for all).
func VerifyShared(key ed25519.PublicKey, l SharedLog) (SharedVerify, error) {
	v := SharedVerify{Where: l.Where()}
	var lines []line
	var err error
	rerr := l.Read(func(ls []JournalLine) {
		for _, jl := range ls {
			if err != nil {
				return
			}
			if jl.N != v.Lines+1 {
				err = fmt.Errorf("journal: %s: line %d comes after line %d: lines are missing from the record", v.Where, jl.N, v.Lines)
				return
			}
			v.Lines++
			ln := parseLine(jl.N, jl.Raw, false)
			if ln.err != nil {
				v.Damaged = append(v.Damaged, jl.N)
			} else if ln.rec.Seq > 0 {
				v.Chained = jl.N
			}
			lines = append(lines, ln)
		}
	})
	if err = errors.Join(err, rerr); err != nil {
		return v, err
	}
	w := newChainWalk(v.Where, key)
	for _, ln := range lines[:v.Chained] {
		w.add(chainLineOf(ln))
	}
	v.Chain = w.status()
	return v, nil
}
