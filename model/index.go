package model

import "sort"

// sortKey orders the rows of a pane: ascending order is display order.
// seq is unique per task, so no two keys are equal.
type sortKey struct {
	agent string // SortAgent only
	at    int64  // -Updated (newest first) or Since (oldest first), in ns
	seq   uint64
}

func (a sortKey) less(b sortKey) bool {
	if a.agent != b.agent {
		return a.agent < b.agent
	}
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

type entry struct {
	k sortKey
	t *Task
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

// block returns the index of the first block whose last key is not less
// than k, or the last block if k is past them all (-1 if empty).
func (l *blockList) block(k sortKey) int {
	nb := len(l.blocks)
	if nb == 0 {
		return -1
	}
	i := sort.Search(nb, func(i int) bool {
		b := l.blocks[i]
		return !b[len(b)-1].k.less(k)
	})
	return min(i, nb-1)
}

func searchBlock(b []entry, k sortKey) int {
	return sort.Search(len(b), func(i int) bool { return !b[i].k.less(k) })
}

func (l *blockList) insert(e entry) {
	bi := l.block(e.k)
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
		clear(b[blockMax/2:])
		b = b[:blockMax/2]
		l.blocks[bi] = b
		l.blocks = append(l.blocks, nil)
		copy(l.blocks[bi+2:], l.blocks[bi+1:])
		l.blocks[bi+1] = half
		if !b[len(b)-1].k.less(e.k) {
			// stays in the first half
		} else {
			bi++
			b = half
		}
	}
	i := searchBlock(b, e.k)
	b = append(b, entry{})
	copy(b[i+1:], b[i:])
	b[i] = e
	l.blocks[bi] = b
	l.n++
}

// delete removes the entry with key k and task t; false if absent.
func (l *blockList) delete(k sortKey, t *Task) bool {
	bi := l.block(k)
	if bi < 0 {
		return false
	}
	b := l.blocks[bi]
	i := searchBlock(b, k)
	if i == len(b) || b[i].k != k || b[i].t != t {
		return false
	}
	copy(b[i:], b[i+1:])
	b[len(b)-1] = entry{}
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

// find returns the position of the entry with key k and task t, or -1.
func (l *blockList) find(k sortKey, t *Task) int {
	bi := l.block(k)
	if bi < 0 {
		return -1
	}
	b := l.blocks[bi]
	i := searchBlock(b, k)
	if i == len(b) || b[i].k != k || b[i].t != t {
		return -1
	}
	pos := i
	for _, prev := range l.blocks[:bi] {
		pos += len(prev)
	}
	return pos
}

// page appends up to n tasks from position offset to out.
func (l *blockList) page(offset, n int, out []*Task) []*Task {
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
			out = append(out, e.t)
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
