package tasks

import (
	"slices"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/bubbles/key"

	"a2atop/model"
	"a2atop/ui/common"
)

// The columns the tasks panes sort by, in header order.
const (
	colAgent = iota
	colID
	colState
	colUpdated
	colAge
	colStatus
	colHint
)

// SortKeys sort the tasks panes by one column (k9s style: shift and
// the column's letter; again reverses).
type SortKeys struct {
	Agent, ID, State, Updated, Age, Status, Hint key.Binding
}

// DefaultSortKeys are A, I, S, U, O (oldest), T (text) and H.
func DefaultSortKeys() SortKeys {
	return SortKeys{
		Agent:   common.Bind("A", "sort by agent", "A"),
		ID:      common.Bind("I", "sort by id", "I"),
		State:   common.Bind("S", "sort by state", "S"),
		Updated: common.Bind("U", "sort by last update", "U"),
		Age:     common.Bind("O", "sort by age (oldest)", "O"),
		Status:  common.Bind("T", "sort by status text", "T"),
		Hint:    common.Bind("H", "sort by hint", "H"),
	}
}

// columns are the sort's columns with their keys and first directions.
func (k SortKeys) columns() []common.SortColumn {
	return []common.SortColumn{
		{Name: "AGENT", Key: k.Agent, Indexed: true, By: model.SortAgent}, {Name: "ID", Key: k.ID}, {Name: "STATE", Key: k.State},
		{Name: "UPD", Key: k.Updated, Desc: true, Indexed: true, By: model.SortUpdated},
		{Name: "AGE", Key: k.Age, Desc: true, Indexed: true, By: model.SortAge},
		{Name: "STATUS", Key: k.Status}, {Name: "HINT", Key: k.Hint},
	}
}

// rowSource is where a pane's rows come from for the sort in effect:
// the model's indexes for the orders it keeps (update, age, agent; and
// state, as one indexed slice of the pane per state), both ways by
// reading them from the other end; for the others (id, status, hint)
// the pane sorted here, again at most once a second while the fleet
// changes (resortEvery).
type rowSource interface {
	count(f *model.Fleet, c model.Class) int
	page(f *model.Fleet, c model.Class, offset, n int) []*model.Task
	index(f *model.Fleet, c model.Class, k model.TaskKey) int
}

// resortEvery is how often a pane sorted here is sorted again while the
// fleet changes: sorting 100,000 rows takes a few milliseconds, not a
// frame's worth each time.
const resortEvery = time.Second

// sourceFor is the row source of a sort over query q.
func sourceFor(s common.Sort, q model.Query, now func() time.Time) rowSource {
	rev := s.Reversed()
	by, indexed := s.ModelOrder()
	q.Sort = by
	switch {
	case indexed:
		return modelRows{q: q, reverse: rev}
	case s.Col() == colState:
		return stateRows{q: q, reverse: rev}
	}
	return &sortedRows{q: q, col: s.Col(), desc: s.Desc(), now: now, lists: map[model.Class]*sortedList{}}
}

// modelRows are the model's index for q, read from either end.
type modelRows struct {
	q       model.Query
	reverse bool
}

func (r modelRows) count(f *model.Fleet, c model.Class) int { return f.Count(c, r.q) }

func (r modelRows) page(f *model.Fleet, c model.Class, offset, n int) []*model.Task {
	if !r.reverse {
		return f.Page(c, r.q, offset, n)
	}
	return reversedPage(f.Count(c, r.q), offset, n, func(off, n int) []*model.Task { return f.Page(c, r.q, off, n) })
}

func (r modelRows) index(f *model.Fleet, c model.Class, k model.TaskKey) int {
	i := f.Index(c, r.q, k)
	if r.reverse && i >= 0 {
		return f.Count(c, r.q) - 1 - i
	}
	return i
}

// reversedPage reads rows [offset, offset+n) of a list of count rows in
// reverse order from a reader of the list in order.
func reversedPage(count, offset, n int, read func(off, n int) []*model.Task) []*model.Task {
	end := count - offset // exclusive, in order
	start := max(end-n, 0)
	if end <= 0 {
		return nil
	}
	rows := read(start, end-start)
	slices.Reverse(rows)
	return rows
}

// paneStates are the states a pane's rows are grouped by when sorted by
// state, in lifecycle order; the Unknown pane holds states of the
// agents' own and is one group.
func paneStates(c model.Class) []a2a.TaskState {
	switch c {
	case model.ClassActive:
		return []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking}
	case model.ClassInterrupted:
		return []a2a.TaskState{a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired}
	case model.ClassTerminal:
		return []a2a.TaskState{a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected}
	}
	return nil
}

// stateRows are a pane sorted by state: one model index per state (the
// filter with state:S added), newest first within each, one after
// another.
type stateRows struct {
	q       model.Query
	reverse bool
}

// segments are the queries of the pane's states, in order.
func (r stateRows) segments(c model.Class) []model.Query {
	states := paneStates(c)
	if len(states) == 0 {
		return []model.Query{r.q}
	}
	out := make([]model.Query, len(states))
	for i, s := range states {
		q := r.q
		q.Filter.States = append(slices.Clone(r.q.Filter.States), s)
		out[i] = q
	}
	return out
}

func (r stateRows) count(f *model.Fleet, c model.Class) int {
	n := 0
	for _, q := range r.segments(c) {
		n += f.Count(c, q)
	}
	return n
}

// inOrder reads rows [offset, offset+n) of the segments one after another.
func (r stateRows) inOrder(f *model.Fleet, c model.Class, offset, n int) []*model.Task {
	var out []*model.Task
	for _, q := range r.segments(c) {
		if n <= 0 {
			break
		}
		cnt := f.Count(c, q)
		if offset >= cnt {
			offset -= cnt
			continue
		}
		rows := f.Page(c, q, offset, n)
		out = append(out, rows...)
		n -= len(rows)
		offset = 0
	}
	return out
}

func (r stateRows) page(f *model.Fleet, c model.Class, offset, n int) []*model.Task {
	if !r.reverse {
		return r.inOrder(f, c, offset, n)
	}
	return reversedPage(r.count(f, c), offset, n, func(off, n int) []*model.Task { return r.inOrder(f, c, off, n) })
}

func (r stateRows) index(f *model.Fleet, c model.Class, k model.TaskKey) int {
	before := 0
	for _, q := range r.segments(c) {
		if i := f.Index(c, q, k); i >= 0 {
			if r.reverse {
				return r.count(f, c) - 1 - (before + i)
			}
			return before + i
		}
		before += f.Count(c, q)
	}
	return -1
}

// sortedRows are a pane sorted here by a column the model keeps no
// index for: the pane's rows under q, sorted by the column's text, kept
// until the fleet changes and resortEvery has passed; then only the rows
// that changed since are placed again (sortedList.follow).
type sortedRows struct {
	q     model.Query
	col   int
	desc  bool
	now   func() time.Time
	lists map[model.Class]*sortedList
	clock *common.Clock // told when a pane left unsorted is sorted (tasks_clock.go)
}

// sortedList is one pane's rows in order, as sorted at version. It
// keeps no key per row: a row's key changes only with a change the
// fleet lists (or, for the hint column, with its blocker: refs), so the
// key of a row that did not change is computed again when a binary
// search needs it.
type sortedList struct {
	rows    []*model.Task
	seqs    []uint64               // the rows' seqs (Task.UpdatedOrder), in the same order; nil until follow first asks
	refs    map[uint64]*model.Task // the rows that name a blocker, by seq (the hint column: "waiting on")
	mark    uint64                 // Fleet.ChangeMark when sorted
	version uint64
	at      time.Time
}

// sortKey orders a row: by its column's text (p, its first 8 bytes as a
// number, decides most comparisons without reading the strings), then
// in the pane's own order (newest first, then the order the fleet heard
// of the tasks: seq, unique, so every row has one place).
type sortKey struct {
	p   uint64
	at  int64
	seq uint64
	k   string
	t   *model.Task
}

// cmp orders a and b: the text ascending (descending if desc), then
// the pane's order.
func (a *sortKey) cmp(b *sortKey, desc bool) int {
	c := 0
	switch {
	case a.p < b.p:
		c = -1
	case a.p > b.p:
		c = 1
	default:
		c = strings.Compare(a.k, b.k)
	}
	if desc {
		c = -c
	}
	if c != 0 {
		return c
	}
	if a.at != b.at {
		return cmpInt(a.at, b.at)
	}
	return cmpInt(a.seq, b.seq)
}

func cmpInt[T int64 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// keyOf is t's key under the column.
func (r *sortedRows) keyOf(f *model.Fleet, t *model.Task) sortKey {
	k := r.sortText(f, t)
	at, seq := t.UpdatedOrder()
	return sortKey{p: prefix8(k), at: at, seq: seq, k: k, t: t}
}

// list is the pane's sorted rows, brought up to date when they are
// stale.
func (r *sortedRows) list(f *model.Fleet, c model.Class) []*model.Task {
	l := r.lists[c]
	now := r.now()
	if l != nil && (l.version == f.Version() || now.Sub(l.at) < resortEvery) {
		r.askClock(l, f)
		return l.rows
	}
	if l == nil || !r.follow(f, c, l) {
		l = r.sort(f, c)
		r.lists[c] = l
	}
	l.version, l.at = f.Version(), now
	return l.rows
}

// sort sorts the pane's rows from scratch. The pane comes in its own
// order, so a stable sort by the text alone gives every row its place.
func (r *sortedRows) sort(f *model.Fleet, c model.Class) *sortedList {
	l := &sortedList{mark: f.ChangeMark(), refs: map[uint64]*model.Task{}}
	rows := f.Page(c, r.q, 0, f.Count(c, r.q))
	type keyed struct {
		p uint64
		k string
		t *model.Task
	}
	ks := make([]keyed, len(rows))
	for i, t := range rows {
		k := r.sortText(f, t)
		ks[i] = keyed{p: prefix8(k), k: k, t: t}
		l.note(t, r.col == colHint)
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if r.desc {
			a, b = b, a
		}
		switch {
		case a.p < b.p:
			return -1
		case a.p > b.p:
			return 1
		}
		return strings.Compare(a.k, b.k)
	})
	for i := range ks {
		rows[i] = ks[i].t
	}
	l.rows = rows
	return l
}

// note remembers a row that names a blocker, for the hint column.
func (l *sortedList) note(t *model.Task, hint bool) {
	if hint && t.NamesBlocker() {
		_, seq := t.UpdatedOrder()
		l.refs[seq] = t
	}
}

// follow places again the rows that changed since l was sorted: the
// tasks the fleet changed (model.Fleet.ChangedSince), and for the hint
// column the rows that name a blocker (another task's change moves
// their "waiting on"). It reads the rows' seqs once, to drop the
// changed rows, and places each again by binary search. It reports
// false when the fleet no longer remembers that far back, or when so
// much changed that sorting again costs less.
func (r *sortedRows) follow(f *model.Fleet, c model.Class, l *sortedList) bool {
	changes, next, ok := f.ChangedSince(l.mark)
	if !ok || len(changes) > len(l.rows)/4+1024 {
		return false
	}
	l.mark = next
	if l.seqs == nil { // the first time: not in the frame of the sort key
		l.seqs = make([]uint64, len(l.rows))
		for i, t := range l.rows {
			_, l.seqs[i] = t.UpdatedOrder()
		}
	}
	if len(changes) == 0 && len(l.refs) == 0 {
		return true
	}
	var seen, placed seqSet // seen: the rows that go; placed: the tasks placed again
	var add []sortKey
	place := func(t *model.Task) {
		_, seq := t.UpdatedOrder()
		if placed.has(seq) {
			return
		}
		placed.add(seq)
		seen.add(seq)
		delete(l.refs, seq)
		if t.Class == c && f.Task(t.Key) == t && r.q.Filter.Match(t) {
			add = append(add, r.keyOf(f, t))
			l.note(t, r.col == colHint)
		}
	}
	for _, ch := range changes {
		if !seen.has(ch.Seq) { // evicted, or heard of again under its key: its old row goes
			seen.add(ch.Seq)
			delete(l.refs, ch.Seq)
		}
	}
	for _, ch := range changes {
		if t := f.Task(ch.Key); t != nil {
			place(t)
		}
	}
	for _, t := range l.refs {
		place(t)
	}
	if !l.drop(&seen) && len(add) == 0 {
		return true // nothing of this pane changed
	}
	cmp := func(a, b sortKey) int { return a.cmp(&b, r.desc) }
	slices.SortFunc(add, cmp)
	// Where a goes among rows (none of which changed: their keys are
	// what they were when placed).
	at := func(rows []*model.Task, a sortKey) int {
		i, _ := slices.BinarySearchFunc(rows, a, func(t *model.Task, a sortKey) int {
			k := r.keyOf(f, t)
			return k.cmp(&a, r.desc)
		})
		return i
	}
	if len(add) <= maxInPlace {
		for _, a := range add {
			i := at(l.rows, a)
			l.rows = slices.Insert(l.rows, i, a.t)
			l.seqs = slices.Insert(l.seqs, i, a.seq)
		}
		return true
	}
	rows, seqs := l.rows, l.seqs
	outRows := make([]*model.Task, 0, len(rows)+len(add))
	outSeqs := make([]uint64, 0, len(rows)+len(add))
	for _, a := range add {
		i := at(rows, a)
		outRows = append(append(outRows, rows[:i]...), a.t)
		outSeqs = append(append(outSeqs, seqs[:i]...), a.seq)
		rows, seqs = rows[i:], seqs[i:]
	}
	l.rows, l.seqs = append(outRows, rows...), append(outSeqs, seqs...)
	return true
}

// drop removes the rows whose seq is in seen; it reports whether there
// were any. It reads the seqs, not the tasks: a pane of 40,000 rows is
// 320 KB of them.
func (l *sortedList) drop(seen *seqSet) bool {
	i := slices.IndexFunc(l.seqs, seen.has)
	if i < 0 {
		return false
	}
	j := i
	for ; i < len(l.rows); i++ {
		if !seen.has(l.seqs[i]) {
			l.rows[j], l.seqs[j] = l.rows[i], l.seqs[i]
			j++
		}
	}
	clear(l.rows[j:])
	l.rows, l.seqs = l.rows[:j], l.seqs[:j]
	return true
}

// maxInPlace is how many rows follow inserts one by one (each moves the
// rows after it); more are merged in one pass.
const maxInPlace = 8

// seqSet is a set of task seqs with a bitmap in front, so that asking
// for every row of a pane costs a bit test each, not a map lookup. The
// zero value is empty.
type seqSet struct {
	bits [1024]uint64
	m    map[uint64]bool
}

func (s *seqSet) add(seq uint64) {
	s.bits[seq>>6&1023] |= 1 << (seq & 63)
	if s.m == nil {
		s.m = map[uint64]bool{}
	}
	s.m[seq] = true
}

func (s *seqSet) has(seq uint64) bool {
	return s.bits[seq>>6&1023]&(1<<(seq&63)) != 0 && s.m[seq]
}

// prefix8 is the first 8 bytes of s as a big-endian number: it orders
// like the strings do, up to those bytes.
func prefix8(s string) uint64 {
	var p uint64
	for i := range 8 {
		p <<= 8
		if i < len(s) {
			p |= uint64(s[i])
		}
	}
	return p
}

// sortText is what a row is sorted by: the column's text as the row
// shows it, ignoring case.
func (r *sortedRows) sortText(f *model.Fleet, t *model.Task) string {
	switch r.col {
	case colID:
		return model.ShortID(t.Key.ID)
	case colStatus:
		return strings.ToLower(t.Text)
	}
	return strings.ToLower(f.RowHint(t))
}

func (r *sortedRows) count(f *model.Fleet, c model.Class) int { return len(r.list(f, c)) }

// page reads the sorted rows. A row that left the pane since they were
// sorted stays in its place until the next sort, showing what it is now.
func (r *sortedRows) page(f *model.Fleet, c model.Class, offset, n int) []*model.Task {
	rows := r.list(f, c)
	if offset >= len(rows) || n <= 0 {
		return nil
	}
	return slices.Clone(rows[offset:min(offset+n, len(rows))])
}

func (r *sortedRows) index(f *model.Fleet, c model.Class, k model.TaskKey) int {
	for i, t := range r.list(f, c) {
		if t.Key == k {
			return i
		}
	}
	return -1
}
