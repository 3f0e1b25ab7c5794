package hub

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"a2atop/approvals"
)

// entry is one event of the feed's log: its sequence number, its SSE
// event name, the agent it is about ("" for every operator who may watch
// anything) and its data, encoded once and shared by every subscriber.
type entry struct {
	seq   uint64
	name  string
	agent string
	data  []byte
	jmax  int // for a journal run: the number of its last line
	// src is the entry's place in the team's events' stream (shared.go):
	// for an EventEvents entry the stream seq of the message it is, for
	// any other the last seq taken in before it; 0 for a hub alone.
	src uint64
}

// feedLog is the feed's ordered log: every event the hub publishes, with
// ids that cannot be confused across hub restarts (the epoch, then the
// sequence number), of which the last events (at most maxN of them and
// maxBytes of data) are kept for subscribers that resume. It also holds
// what a snapshot needs besides the fleet, under the same lock, so that
// a snapshot and a position always agree: every journal line and the
// claims. Safe for concurrent use.
type feedLog struct {
	epoch          string
	maxN, maxBytes int

	mu      sync.Mutex
	entries []entry // entries[i].seq == first+i
	first   uint64  // the seq of entries[0] (next when empty)
	next    uint64  // the seq the next entry gets; seqs start at 1
	bytes   int
	wake    chan struct{} // closed when an entry is appended
	journal []jline       // the journal lines held (see trimJournal), in order
	claims  map[claimKey]Claim
	record  *Record // the team's record unreachable since, and why; nil while reachable (record.go)
	// limit is how many journal entries the log holds lines of besides
	// the open decisions (the Service's journal_memory), -1 for all;
	// groups is how many entries it holds lines of; trimmed is the
	// number of the last line let go (0 for none).
	limit, groups, trimmed int
	trimAt                 int  // trim when groups passes it
	trimming               bool // a trimJournal is under way
	// holds is the hub's Service's Holds, nil while Open reads the
	// journal (Open trims once it is read).
	holds func(messageID string) bool
	// team is the team's epoch (the events' stream's identity) when the
	// feed's ids are the team's (shared.go), "" for a hub alone.
	// evAt is the last stream seq taken into the log, evFrom the first
	// (the log has every message from it on), evDropped the seq of the
	// last events entry let go from the window.
	team                    string
	evAt, evFrom, evDropped uint64
}

// jline is one journal line as the log keeps it: the line and the agent
// it names ("" when none, or unreadable).
type jline struct {
	line  approvals.JournalLine
	agent string
	wire  []byte // the line encoded as a Line
	id    string // the decision it is a record of; "" for an observation or a kept line
	keep  bool   // a line held whatever its age: unreadable, torn or ack (damage and its resolution)
	first bool   // the first line of an entry: a decision, or an observation
}

type claimKey struct {
	agent, task, operator string
}

func newFeedLog(maxN, maxBytes, limit int) *feedLog {
	return &feedLog{epoch: newEpoch(), maxN: maxN, maxBytes: maxBytes, first: 1, next: 1,
		wake: make(chan struct{}), claims: map[claimKey]Claim{}, limit: limit, trimAt: limit + limit/4}
}

// newEpoch names one run of the hub: its start time and 4 random bytes,
// so that an id from a run before a restart never passes for one of
// this run.
func newEpoch() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return strconv.FormatInt(time.Now().UnixNano(), 36) + hex.EncodeToString(b[:])
}

// id is the SSE id of seq: "EPOCH-SEQ".
func (l *feedLog) id(seq uint64) string { return l.epoch + "-" + strconv.FormatUint(seq, 10) }

// idOf is the SSE id of e: "EPOCH-SEQ", and on a team's hub
// "EPOCH-SEQ~TEAM~SRC" (shared.go), which another hub of the team
// resumes.
func (l *feedLog) idOf(e entry) string {
	l.mu.Lock()
	team := l.team
	l.mu.Unlock()
	if team == "" {
		return l.id(e.seq)
	}
	return l.id(e.seq) + "~" + team + "~" + strconv.FormatUint(e.src, 10)
}

// parseID reads an SSE id: the epoch and the sequence number (of a
// team's id, its first part).
func parseID(id string) (epoch string, seq uint64, err error) {
	id, _, _ = strings.Cut(id, "~")
	epoch, n, ok := strings.Cut(id, "-")
	if !ok || epoch == "" {
		return "", 0, fmt.Errorf("not an id of this hub: %q", id)
	}
	seq, err = strconv.ParseUint(n, 10, 64)
	return epoch, seq, err
}

// resumeFrom is where a subscriber whose Last-Event-ID is lastID
// resumes: the seq after it, when it is of this epoch and within the
// window; ok is false otherwise (it gets a snapshot).
func (l *feedLog) resumeFrom(lastID string) (uint64, bool) {
	epoch, seq, err := parseID(lastID)
	if err != nil || epoch != l.epoch {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if seq+1 < l.first || seq+1 > l.next {
		return 0, false
	}
	return seq + 1, true
}

// append adds entries (their seqs are set here) and wakes the readers.
// It returns the seq of the last one.
func (l *feedLog) append(es ...entry) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.appendLocked(es...)
}

func (l *feedLog) appendLocked(es ...entry) uint64 {
	for _, e := range es {
		e.seq = l.next
		l.next++
		if e.name != EventEvents || e.src == 0 {
			e.src = l.evAt
		}
		l.entries = append(l.entries, e)
		l.bytes += len(e.data)
	}
	for len(l.entries) > 1 && (len(l.entries) > l.maxN || l.bytes > l.maxBytes) {
		l.bytes -= len(l.entries[0].data)
		if l.entries[0].name == EventEvents && l.entries[0].src > l.evDropped {
			l.evDropped = l.entries[0].src
		}
		l.entries[0] = entry{}
		l.entries = l.entries[1:]
		l.first++
	}
	close(l.wake)
	l.wake = make(chan struct{})
	return l.next - 1
}

// read returns up to max entries from seq from on, or ok false when
// from is no longer in the window. With nothing to read it returns the
// channel that is closed when something is appended.
func (l *feedLog) read(from uint64, max int) (out []entry, ok bool, wake <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if from < l.first {
		return nil, false, nil
	}
	i := int(from - l.first)
	if i >= len(l.entries) {
		return nil, true, l.wake
	}
	n := min(len(l.entries)-i, max)
	return append([]entry(nil), l.entries[i:i+n]...), true, nil
}

// position is the seq of the last entry (0 before the first).
func (l *feedLog) position() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next - 1
}

// held is how many entries the window holds and their data's bytes.
func (l *feedLog) held() (n, bytes int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries), l.bytes
}

// lineHash is the hash of the journal line numbered n, "" when the log
// holds no such line.
func (l *feedLog) lineHash(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lineHashLocked(n)
}

func (l *feedLog) lineHashLocked(n int) string {
	i := sort.Search(len(l.journal), func(i int) bool { return l.journal[i].line.N >= n })
	if n <= 0 || i == len(l.journal) || l.journal[i].line.N != n {
		return ""
	}
	return approvals.LineHash(l.journal[i].line.Raw)
}

// journalAfter says whether the log holds every journal line after line
// n whose hash is hash: a connection that has the lines up to n is sent
// only those after it. It is false when the log's line n differs or is
// not held, or when a line after n was let go (trimJournal): a
// dashboard that followed up to n would miss it.
func (l *feedLog) journalAfter(n int, hash string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return n > 0 && n >= l.trimmed && l.lineHashLocked(n) == hash
}
