package approvals

import (
	"errors"
	"slices"
)

// ResetFollow replaces the hub's journal this Service follows with
// lines: those a hub's snapshot sends from its start when it no longer
// holds the lines after the position this Service followed (they left
// the hub's memory, see Options.Memory, while the dashboard was away).
// The Service lets go of what it followed and folds lines in its place
// in one step under its lock: a reader sees the old journal or the new
// one, never a part of each, and never a journal with a gap. What is
// kept is this process's own: the decisions being sent (their outcome
// comes on the feed), the agents learned. The decisions it held that
// lines do not hold count as let go from memory (Forgotten); a decision
// lines hold that is new or changed here is reported by Refresh as any
// other. Only for a Service opened with Options.Hub.
func (s *Service) ResetFollow(lines []JournalLine) error {
	m, ok := s.st.(*mirrorStore)
	if !ok {
		return errors.New("approvals: ResetFollow is for a Service attached to a hub (Options.Hub)")
	}
	parsed := m.replace(lines, s.refold)
	s.publish(parsed)
	return nil
}

// refold empties the followed journal and folds lines in its place (see
// ResetFollow). The mirror's lock is held.
func (s *Service) refold(lines []line) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, oldDamage := s.entries, s.damage
	oldObs := s.observations()
	fresh, freshDamage := len(s.fresh), len(s.freshDamage)
	s.entries, s.order, s.byPrompt, s.tracked = map[string]*Entry{}, nil, map[string][]string{}, map[taskRef]*Entry{}
	s.damage, s.acks, s.votes, s.voteIDs = map[int]*Damage{}, map[ackKey]ack{}, map[taskRef]*taskVotes{}, map[string]bool{}
	// Every task's decisions changed: a QueueCache's mark is now before
	// the log's first, and it builds its queue again.
	end := s.touched.base + uint64(len(s.touched.ids))
	s.touched = touchLog{base: end + 1}
	s.version++
	for _, l := range lines {
		if l.err != nil {
			s.noteDamage(l)
			continue
		}
		s.fold(l, false)
	}
	for id := range old {
		if s.entries[id] == nil {
			s.forgotten++
		}
	}
	s.forgotten += max(0, oldObs-s.observations())
	s.fresh = append(s.fresh[:fresh], slices.DeleteFunc(s.fresh[fresh:], func(id string) bool {
		return sameEntry(old[id], s.entries[id])
	})...)
	s.freshDamage = append(s.freshDamage[:freshDamage], slices.DeleteFunc(s.freshDamage[freshDamage:], func(n int) bool {
		d, was := s.damage[n], oldDamage[n]
		return d != nil && was != nil && d.Hash == was.Hash && d.Open() == was.Open()
	})...)
}

// observations is how many entries held are observations (no decision).
// Callers hold s.mu.
func (s *Service) observations() int {
	n := 0
	for _, e := range s.order {
		if e.MessageID == "" {
			n++
		}
	}
	return n
}

// sameEntry reports whether a decision held before a ResetFollow stands
// as it stood: nothing new to report of it.
func sameEntry(was, now *Entry) bool {
	return was != nil && now != nil && was.Result == now.Result && was.Attempts == now.Attempts &&
		len(was.States) == len(now.States)
}

// replace empties the mirror, takes lines in their place and hands them
// to fold under its lock, so that no Follow comes between; it returns
// the lines taken.
func (m *mirrorStore) replace(lines []JournalLine, fold func([]line)) []line {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last, m.hash, m.pending = 0, "", nil
	var taken []line
	for _, l := range lines {
		if l.N <= m.last {
			continue
		}
		raw := append([]byte(nil), l.Raw...)
		taken = append(taken, parseLine(l.N, raw, l.Torn))
		m.last, m.hash = l.N, lineHash(raw)
	}
	fold(taken)
	return taken
}
