package approvals

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
)

// SharedLog is a journal that several hubs keep together in a store
// that decides, per key, which writer came first: a NATS JetStream
// stream (package approvals/jetstore), where a key is a subject and the
// first append with the expected last sequence on that subject wins on
// every hub. A Service opened with Options.Shared keeps its journal
// there instead of in a file; the records, their checks and their words
// are the same, so the screens, `reply --hub` and the journal view do
// not know which store they read.
//
// Every decision on one prompt, and every outcome and state recorded
// after it, share the prompt's key: a decision appended over one this
// hub has not read yet is refused, the hub reads it and checks again
// (and the second decision is refused with the first's words).
//
// A SharedLog is used by one Service; its calls are not concurrent.
type SharedLog interface {
	// Read passes to fn, in the log's order, the lines appended since the
	// last Read (every line on the first call), numbered from 1 with no
	// gap. It waits for nothing another hub may be appending now.
	Read(fn func([]JournalLine)) error
	// Append appends the lines in order, each only if no line was
	// appended on its key after the last line of that key Read passed.
	// Each is durable (on a majority of the store's replicas) when Append
	// returns its number. It stops at the first line another writer came
	// first on, with an error wrapping ErrConflict, and returns the
	// numbers of the lines before it; once it returns, the next Read
	// passes every line up to the last returned and the one that won.
	Append(lines []KeyedLine) ([]int, error)
	// Where names the store in words, for messages ("nats://n1:4222
	// stream A2ATOP_JOURNAL").
	Where() string
	// Close lets the store go; the Service does not use it afterwards.
	Close() error
}

// KeyedLine is one line to append to a SharedLog and the key it is
// decided on: a short string of letters and digits.
type KeyedLine struct {
	Key string
	Raw []byte
}

// ErrConflict is what SharedLog.Append returns, wrapped, when another
// writer appended on a line's key first.
var ErrConflict = errors.New("journal: another hub appended on this prompt first")

// Changes receives a value soon after the shared record gained lines,
// when its SharedLog tells (it has a Changes method, as jetstore's
// does); nil (never ready) otherwise. A hub reads them at once with
// Refresh instead of on its clock.
func (s *Service) Changes() <-chan struct{} {
	ss, ok := s.st.(*sharedStore)
	if !ok {
		return nil
	}
	if c, ok := ss.log.(interface{ Changes() <-chan struct{} }); ok {
		return c.Changes()
	}
	return nil
}

// ErrRecordUnreachable is wrapped by a SharedLog's Append that could
// not make a line durable (the store is lost, or has no majority):
// nothing is sent on it.
var ErrRecordUnreachable = errors.New("not sent: the team's record is unreachable")

// ProblemRecord: the team's shared record (SharedLog) could not be
// reached when the decision was to be recorded; nothing was sent.
const ProblemRecord Problem = "record-unreachable"

// maxConflicts bounds how many times one check-and-append reads what
// others appended and checks again before it gives up.
const maxConflicts = 32

// sharedStore is the store of a Service on a SharedLog: follow is Read;
// update reads, checks and appends with the log's compare-and-set,
// reading and checking again after each conflict. It keeps, for every
// decision folded, the key of its prompt, so that the records after a
// decision go on its key. Safe for concurrent use.
type sharedStore struct {
	mu   sync.Mutex
	log  SharedLog
	keys map[string]string // messageId -> the key of its prompt
	next int               // the number the next line read must have
}

func newSharedStore(l SharedLog) *sharedStore {
	return &sharedStore{log: l, keys: map[string]string{}, next: 1}
}

func (s *sharedStore) where() string { return s.log.Where() }

func (s *sharedStore) close() error { return s.log.Close() }

func (s *sharedStore) follow(fold func([]line, bool)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read(fold, nil)
}

func (s *sharedStore) update(fold func([]line, bool), check func() ([]record, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range maxConflicts {
		if err := s.read(fold, nil); err != nil {
			return err
		}
		recs, err := check()
		if err != nil || len(recs) == 0 {
			return err
		}
		out := make([]KeyedLine, len(recs))
		for i, r := range recs {
			b, err := encodeRecord(r)
			if err != nil {
				return err
			}
			out[i] = KeyedLine{Key: s.keyOf(r), Raw: b}
		}
		ns, err := s.log.Append(out)
		mine := make(map[int]bool, len(ns))
		for _, n := range ns {
			mine[n] = true
		}
		rerr := s.read(fold, mine)
		switch {
		case errors.Is(err, ErrConflict):
			continue // read what came first, and check again
		case err != nil:
			return err
		}
		return rerr
	}
	return fmt.Errorf("journal: %s: other hubs came first %d times in a row; nothing more was written: decide again", s.log.Where(), maxConflicts)
}

// read folds the lines Read passes, the numbers in mine as this
// Service's own, and notes the keys of the decisions.
func (s *sharedStore) read(fold func([]line, bool), mine map[int]bool) error {
	var err error
	rerr := s.log.Read(func(ls []JournalLine) {
		if err != nil {
			return
		}
		batch := make([]line, 0, len(ls))
		own := false
		flush := func() {
			if len(batch) > 0 {
				fold(batch, own)
				batch = batch[:0]
			}
		}
		for _, jl := range ls {
			if jl.N != s.next {
				err = fmt.Errorf("journal: %s: line %d came after line %d: the store skipped lines; restart the hub", s.log.Where(), jl.N, s.next-1)
				break
			}
			s.next++
			l := parseLine(jl.N, jl.Raw, false)
			if l.err == nil && l.rec.Type == recDecision {
				s.keys[l.rec.ID] = s.keyOf(l.rec)
			}
			if mine[jl.N] != own {
				flush()
				own = mine[jl.N]
			}
			batch = append(batch, l)
		}
		flush()
	})
	return errors.Join(err, rerr)
}

// keyOf is the key a record is decided on: for a decision its prompt
// (the agent's identity, the task, the prompt), and for a vote on it
// the same, so that two votes cast on two hubs at once are ordered (the
// second sees the first and may complete the policy); for a record on a
// decision, that decision's; for the rest (bare observations,
// acknowledgements), one key for them all.
func (s *sharedStore) keyOf(r record) string {
	if r.Type == recDecision || r.Type == recVote {
		id := nameID(r.Agent)
		if r.URL != "" {
			id = identity(r.URL, r.Tenant)
		}
		return "p" + keyHash(promptKey(id, r.Task, r.Prompt))
	}
	if r.ID != "" {
		if k, ok := s.keys[r.ID]; ok {
			return k
		}
		return "m" + keyHash(r.ID)
	}
	return "other"
}

// keyHash makes a key of letters and digits from any text.
func keyHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:16])
}

// unsent are the decisions Send refused because the shared record could
// not be reached when it appended them: the append may still land (a
// store that had no majority gets it once it has one), a decision then
// pending that no one sends. Refresh records each such decision it
// finds as refused (ProblemRecord, via "record"), so that the prompt is
// open again at once, on every hub, instead of after a reconcile. Safe
// for concurrent use; the zero value is empty.
type unsent struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (u *unsent) add(id string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.ids == nil {
		u.ids = map[string]bool{}
	}
	u.ids[id] = true
}

func (u *unsent) list() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make([]string, 0, len(u.ids))
	for id := range u.ids {
		out = append(out, id)
	}
	return out
}

func (u *unsent) drop(id string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.ids, id)
}

// settleUnsent records as refused the decisions of unsent that landed
// in the journal after Send refused them. One not in the journal may
// land later and is kept; one settled, or decided otherwise since, is
// let go.
func (s *Service) settleUnsent() {
	for _, id := range s.unsent.list() {
		e, ok := s.Entry(id)
		if !ok {
			continue
		}
		if e.Result != ResultPending || e.Attempts > 1 {
			s.unsent.drop(id)
			continue
		}
		out := Outcome{MessageID: id, Agent: e.Agent, TaskID: e.TaskID, Kind: e.Kind, Result: ResultRefused, Problem: ProblemRecord,
			Err: fmt.Errorf("%w when it was decided: the record landed later and nothing was sent", ErrRecordUnreachable)}
		if s.recordIf(out, "record", func(e *Entry) bool { return e.Result == ResultPending }) || s.entryResult(id) != ResultPending {
			s.unsent.drop(id)
		}
	}
}

func (s *Service) entryResult(id string) Result {
	e, _ := s.Entry(id)
	return e.Result
}

// RecordReachable reports whether the Service's shared record can be
// reached and this process has read it to its end, when its SharedLog
// tells (it has a Reachable method, as jetstore's does): nil for a
// journal file, or a record that does not tell.
func (s *Service) RecordReachable(ctx context.Context) error {
	ss, ok := s.st.(*sharedStore)
	if !ok {
		return nil
	}
	if r, ok := ss.log.(interface{ Reachable(context.Context) error }); ok {
		return r.Reachable(ctx)
	}
	return nil
}
