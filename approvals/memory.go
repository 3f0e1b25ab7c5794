package approvals

import (
	"crypto/sha256"
	"slices"
)

// DefaultMemory is how many entries (decisions and observations) a
// Service keeps in memory when Options.Memory is 0: the journal view's
// recent history. Older settled entries stay in the journal file.
const DefaultMemory = 10_000

// MemoryAll, as Options.Memory, keeps every entry of the journal in
// memory: for a2atop journal, export and check, which read it once.
const MemoryAll = -1

// memoryLimit is the number of entries kept, or -1 for all.
func (o Options) memoryLimit() int {
	switch {
	case o.Memory < 0:
		return -1
	case o.Memory == 0:
		return DefaultMemory
	}
	return o.Memory
}

// forget drops from memory the oldest settled entries past the memory
// bound, so that a Service that runs for months (a hub, a dashboard
// left open) holds what is open and a recent history, never everything
// ever decided. It runs once the bound is passed by a quarter, so that
// each record costs the same however long the journal. Open decisions
// (pending, unknown: Reconcile resolves them) and those being sent are
// kept whatever their age; everything else at-most-once needs is theirs
// (see admit). Callers hold s.mu.
func (s *Service) forget() {
	limit := s.o.memoryLimit()
	if limit < 0 || len(s.order) <= limit+limit/4 {
		return
	}
	drop := len(s.order) - limit
	kept := make([]*Entry, 0, limit+limit/4+1)
	for _, e := range s.order {
		if drop > 0 && s.forgettable(e) {
			s.drop(e)
			drop--
			continue
		}
		kept = append(kept, e)
	}
	s.order = kept
}

// forgettable reports whether e may leave memory: an observation, or a
// decision that is settled and not being sent.
func (s *Service) forgettable(e *Entry) bool {
	return e.MessageID == "" || (!e.Result.Open() && !s.inFlight[e.MessageID])
}

// drop removes e from the indexes. Callers hold s.mu.
func (s *Service) drop(e *Entry) {
	s.forgotten++
	if e.MessageID == "" {
		return
	}
	delete(s.entries, e.MessageID)
	k := promptKey(e.agentID, e.TaskID, e.Prompt)
	if ids := slices.DeleteFunc(s.byPrompt[k], func(id string) bool { return id == e.MessageID }); len(ids) > 0 {
		s.byPrompt[k] = ids
	} else {
		delete(s.byPrompt, k)
	}
	if ref := (taskRef{e.agentID, e.TaskID}); s.tracked[ref] == e {
		delete(s.tracked, ref)
	}
}

// Forgotten is how many entries left memory (see Options.Memory): the
// journal view names them, and History reads them back.
func (s *Service) Forgotten() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.forgotten
}

// History returns every entry of the journal, newest first, as Journal
// does: those that left memory are read back from the file. It reads the
// whole file when any did; attached to a hub it returns what this
// Service holds.
func (s *Service) History() ([]Entry, error) {
	if s.Forgotten() == 0 || s.o.Hub != nil {
		return s.Journal(), nil
	}
	o := s.o
	o.ReadOnly, o.Memory, o.Sender, o.OnJournal, o.DraftsPath = true, MemoryAll, nil, nil, ""
	all, err := Open(o)
	if err != nil {
		return nil, err
	}
	defer all.Close()
	return all.Journal(), nil
}

// Holds reports whether the decision with this messageId is in memory:
// open, being sent, or among the newest entries (see Options.Memory). A
// hub keeps on its feed the journal lines of the decisions it holds.
func (s *Service) Holds(messageID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.entries[messageID]; ok {
		return true
	}
	return s.holdsVote(messageID)
}

// idKey is a decision's messageId as Options.Check keeps it: the first
// 16 bytes of its SHA-256, whatever the id's length.
type idKey [16]byte

// noteSeen keeps, with Options.Check, the id of a decision read and the
// agent it names. Callers hold s.mu.
func (s *Service) noteSeen(id, agentID string) {
	if s.seen == nil {
		return
	}
	sum := sha256.Sum256([]byte(id))
	s.seen[idKey(sum[:16])] = struct{}{}
	s.seenAgents[agentID] = true
}

// orphan reports whether a record of the decision id, which memory does
// not hold, is of a decision no readable line holds (damage): when no
// entry left memory, or, with Options.Check, when no decision of that id
// was read. Otherwise it may be of a decision let go. Callers hold s.mu.
func (s *Service) orphan(id string) bool {
	if s.seen == nil {
		return s.forgotten == 0
	}
	sum := sha256.Sum256([]byte(id))
	_, ok := s.seen[idKey(sum[:16])]
	return !ok
}
