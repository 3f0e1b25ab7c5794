package model

// entry is one row of a pane index, ordered by (rank, at, seq): rank is
// the agent's alphabetical rank (SortAgent only), at is -Updated (newest
// first) or Since (oldest first) in ns, seq is unique per task. It holds
// no pointers (the task is a slot in Fleet.slots), so moving rows costs a
// plain memmove and the garbage collector never scans the indexes.
type entry struct {
	at   int64
	seq  uint64
	rank uint32
	slot uint32
}

func (a *entry) less(b *entry) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// blockMax is the largest block; an insert into a full block splits it.
// Blocks keep inserts and deletes to a short memmove and Page/Index to a
// walk over n/blockMax block lengths.
const blockMax = 512

// blockList is an ordered list of entries in sorted blocks. The zero
// value is an empty list.
type blockList struct {
	blocks [][]entry
	n      int
}

// build replaces the list with es, which must be sorted.
func (l *blockList) build(es []entry) {
	l.blocks = l.blocks[:0]
	l.n = len(es)
	for len(es) > 0 {
		n := min(len(es), blockMax/2)
		b := make([]entry, n, blockMax)
		copy(b, es[:n])
		l.blocks = append(l.blocks, b)
		es = es[n:]
	}
}

// block returns the index of the first block whose last entry is not
// less than e, or the last block if e is past them all (-1 if empty).
func (l *blockList) block(e *entry) int {
	lo, hi := 0, len(l.blocks)
	if hi == 0 {
		return -1
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		b := l.blocks[m]
		if b[len(b)-1].less(e) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return min(lo, len(l.blocks)-1)
}

// search returns the first position in b whose entry is not less than e.
func search(b []entry, e *entry) int {
	lo, hi := 0, len(b)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if b[m].less(e) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func (l *blockList) insert(e entry) {
	bi := l.block(&e)
	if bi < 0 {
		b := make([]entry, 1, blockMax)
		b[0] = e
		l.blocks = append(l.blocks, b)
		l.n++
		return
	}
	b := l.blocks[bi]
	if len(b) == blockMax {
		half := make([]entry, blockMax-blockMax/2, blockMax)
		copy(half, b[blockMax/2:])
		b = b[:blockMax/2]
		l.blocks[bi] = b
		l.blocks = append(l.blocks, nil)
		copy(l.blocks[bi+2:], l.blocks[bi+1:])
		l.blocks[bi+1] = half
		if b[len(b)-1].less(&e) {
			bi++
			b = half
		}
	}
	i := search(b, &e)
	b = append(b, entry{})
	copy(b[i+1:], b[i:])
	b[i] = e
	l.blocks[bi] = b
	l.n++
}

// delete removes the entry equal to e; false if absent.
func (l *blockList) delete(e entry) bool {
	bi := l.block(&e)
	if bi < 0 {
		return false
	}
	b := l.blocks[bi]
	i := search(b, &e)
	if i == len(b) || b[i] != e {
		return false
	}
	copy(b[i:], b[i+1:])
	b = b[:len(b)-1]
	l.n--
	if len(b) == 0 {
		copy(l.blocks[bi:], l.blocks[bi+1:])
		l.blocks[len(l.blocks)-1] = nil
		l.blocks = l.blocks[:len(l.blocks)-1]
		return true
	}
	l.blocks[bi] = b
	return true
}

// find returns the position of the entry equal to e, or -1.
func (l *blockList) find(e entry) int {
	bi := l.block(&e)
	if bi < 0 {
		return -1
	}
	b := l.blocks[bi]
	i := search(b, &e)
	if i == len(b) || b[i] != e {
		return -1
	}
	pos := i
	for _, prev := range l.blocks[:bi] {
		pos += len(prev)
	}
	return pos
}

// page appends the tasks of up to n entries from position offset to out.
func (l *blockList) page(slots []*Task, offset, n int, out []*Task) []*Task {
	for _, b := range l.blocks {
		if n <= 0 {
			break
		}
		if offset >= len(b) {
			offset -= len(b)
			continue
		}
		for _, e := range b[offset:] {
			if n == 0 {
				break
			}
			out = append(out, slots[e.slot])
			n--
		}
		offset = 0
	}
	return out
}

// each calls fn for every entry in order.
func (l *blockList) each(fn func(e entry)) {
	for _, b := range l.blocks {
		for _, e := range b {
			fn(e)
		}
	}
}
