package approvals

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"
)

// chainLine is what a walk of the chain needs of one line.
type chainLine struct {
	n     int
	sum   [32]byte
	rec   bool   // a record: it parses and its checksum matches
	why   string // why it is not a record
	blank bool
	torn  bool // the last line, without its newline
	typ   string
	seq   int
	prev  string
	at    time.Time

	tornLine int    // a torn record: the line it names
	tornHash string // and that line's hash
	key, sig string // a checkpoint
	by       string // a chain-accepted record: who
}

// chainLineOf is a line the Service read or wrote, as the walk needs it.
func chainLineOf(l line) chainLine {
	c := chainLine{n: l.n, sum: sha256.Sum256(l.raw), torn: l.torn, blank: len(bytes.TrimSpace(l.raw)) == 0}
	if l.err != nil {
		c.why = l.err.Error()
		return c
	}
	r := l.rec
	c.rec, c.typ, c.seq, c.prev, c.at = true, r.Type, r.Seq, r.Prev, r.At
	c.tornLine, c.tornHash, c.key, c.sig, c.by = r.Line, r.Hash, r.Key, r.Sig, r.Approver
	return c
}

// linkPos is a line as a later line may link to it.
type linkPos struct {
	n    int
	sum  [32]byte
	seq  int
	prev string
}

func posOf(l chainLine) linkPos { return linkPos{n: l.n, sum: l.sum, seq: l.seq, prev: l.prev} }

// pendKind is a break whose kind the next line decides.
type pendKind int

const (
	pendNone    pendKind = iota
	pendDamaged          // a line that is not a record: named by a torn record next, or a break
	pendGap              // seq jumps: removed, or reordered when a missing seq comes next
	pendDup              // two lines claim one place: the next line links to the genuine one
)

// ringSize is how many lines back a walk looks for the line a record
// links to, to name what was inserted.
const ringSize = 64

// chainWalk checks the chain line by line, in order, in constant memory
// (see chain.go). After a break it takes the next chained record as it
// is and checks the chain on from there, so that one walk finds every
// break and the "chain-accepted" records after them.
type chainWalk struct {
	st       ChainStatus
	key      ed25519.PublicKey // trusted; nil: each checkpoint's own, the same for all
	last     linkPos           // what the next record links to: the line before it
	haveLast bool
	rec      linkPos // the last chained record taken
	anchored bool    // false after a break: the next chained record is taken, not checked
	lastN    int
	ring     [ringSize]linkPos
	ringN    int
	pend     pendKind
	pl       chainLine  // the pending line
	pprev    linkPos    // what preceded it
	ppath    string     // the file it is in (a walk of several: segments)
	partial  bool       // the lines of a hub's journal its feed sends: gaps are lines not sent
	head     *chainLine // the checkpoint the head file keeps (chain_head.go), nil for none
	headFile string
	headSeen bool
	tail     [32]byte // the hash of the last line read
	lines    bool
}

func newChainWalk(path string, key ed25519.PublicKey) chainWalk {
	w := chainWalk{key: key, st: ChainStatus{Path: path}}
	if key != nil {
		w.st.Key, w.st.Trusted = KeyText(key), true
	}
	return w
}

// add walks one more line.
func (w *chainWalk) add(l chainLine) {
	w.st.Lines++
	if w.st.Start > 0 && w.lastN > 0 && l.n > w.lastN+1 { // a reader that skips blank lines (the Service's), or lines not sent
		if w.pend != pendNone {
			w.resolve(&chainLine{n: w.lastN + 1, blank: true})
		}
		if !w.partial {
			w.brk(w.lastN+1, [32]byte{}, BreakInserted, "a blank line is not a record of the chain: a line inserted")
		}
		w.anchored, w.haveLast = false, false
	}
	w.lastN, w.tail, w.lines = l.n, l.sum, true
	w.ring[w.ringN%ringSize] = posOf(l)
	w.ringN++
	if w.pend != pendNone && w.resolve(&l) {
		return
	}
	w.take(l)
}

// take judges a line with nothing pending.
func (w *chainWalk) take(l chainLine) {
	switch {
	case w.st.Start == 0 && (!l.rec || l.seq == 0):
		if l.rec {
			w.st.Legacy++ // before the chain: journal check judges these lines
		}
		w.setLast(l)
	case l.blank:
		w.brk(l.n, l.sum, BreakInserted, "a blank line is not a record of the chain: a line inserted")
		w.anchored = false
		w.setLast(l)
	case !l.rec:
		w.pending(pendDamaged, l)
	case l.seq == 0:
		w.brk(l.n, l.sum, BreakInserted, "a record without the chain's seq and prev: inserted (by hand, or by an a2atop older than the chain)")
	case w.st.Start == 0:
		w.start(l)
	case !w.anchored:
		w.accept(l)
	default:
		w.check(l)
	}
}

// start takes the first chained record.
func (w *chainWalk) start(l chainLine) {
	w.st.Start, w.st.StartPath = l.n, w.st.Path
	switch {
	case w.partial: // the feed may start anywhere: checked from here on
	case l.seq != 1:
		w.brk(l.n, l.sum, BreakRemoved, fmt.Sprintf("the chain starts at seq %d here: records 1–%d were removed before it", l.seq, l.seq-1))
	case !w.haveLast && l.prev != "":
		w.brk(l.n, l.sum, BreakRemoved, "the first line links to a line before it: the lines before it were removed")
	case w.haveLast && l.prev == "":
		w.brk(l.n, l.sum, BreakInserted, fmt.Sprintf("the chain starts here with nothing before it: lines 1–%d were inserted before it", l.n-1))
	case w.haveLast && !sumIs(l.prev, w.last.sum):
		w.brk(w.last.n, w.last.sum, BreakEdited, fmt.Sprintf("line %d, the first of the chain, links to other bytes: a record edited", l.n))
	}
	w.accept(l)
}

// check judges a chained record against the one before it.
func (w *chainWalk) check(l chainLine) {
	want, linked := w.rec.seq+1, sumIs(l.prev, w.last.sum)
	switch {
	case l.seq == want && linked:
	case linked:
		w.brk(l.n, l.sum, BreakEdited, fmt.Sprintf("its seq is %d where %d follows line %d: a record edited", l.seq, want, w.last.n))
	case l.seq == w.rec.seq && l.prev == w.rec.prev:
		w.pending(pendDup, l)
		return
	case w.insertedBefore(l):
		return
	case l.seq > want:
		w.pending(pendGap, l)
		return
	case l.seq < want:
		w.brk(l.n, l.sum, BreakReordered, fmt.Sprintf("its seq %d comes before line %d's (%d): a record moved or copied here", l.seq, w.rec.n, w.rec.seq))
		w.anchored = false
		w.setLast(l)
		return
	default:
		w.brk(w.last.n, w.last.sum, BreakEdited, fmt.Sprintf("line %d links to other bytes than it holds: a record edited (or line %d forged after it)", l.n, l.n))
	}
	w.accept(l)
}

// insertedBefore names the lines between l and an earlier line it links
// to, when it follows that line in seq too.
func (w *chainWalk) insertedBefore(l chainLine) bool {
	want, ok := parseSum(l.prev)
	if !ok {
		return false
	}
	for i := 2; i <= min(w.ringN, ringSize); i++ { // 1 is l itself
		p := w.ring[(w.ringN-i)%ringSize]
		if p.sum != want || p.n >= w.last.n || l.seq != p.seq+1 {
			continue
		}
		first := w.lineAt(p.n + 1)
		w.brk(first.n, first.sum, BreakInserted, fmt.Sprintf("line %d links to line %d: lines %d–%d are not in the chain (inserted)", l.n, p.n, p.n+1, w.last.n))
		w.accept(l)
		return true
	}
	return false
}

// lineAt is the line numbered n among the last ringSize.
func (w *chainWalk) lineAt(n int) linkPos {
	for i := 1; i <= min(w.ringN, ringSize); i++ {
		if p := w.ring[(w.ringN-i)%ringSize]; p.n == n {
			return p
		}
	}
	return linkPos{n: n}
}

func (w *chainWalk) pending(k pendKind, l chainLine) {
	w.pend, w.pl, w.pprev, w.ppath = k, l, w.last, w.st.Path
	w.setLast(l)
}

// resolve judges the pending line now that next (nil: the end) is
// known; it reports whether next was judged with it.
func (w *chainWalk) resolve(next *chainLine) bool {
	k, g := w.pend, w.pl
	w.pend = pendNone
	cur := w.st.Path
	w.st.Path = w.ppath // its break is named in its own file
	defer func() { w.st.Path = cur }()
	switch k {
	case pendDamaged:
		if next != nil && next.rec && next.typ == recTorn && next.tornLine == g.n && sumIs(next.tornHash, g.sum) {
			return false // a crash's torn line, named by the next writer, who linked past it
		}
		if next == nil && g.torn {
			w.brk(g.n, g.sum, BreakCut, "the journal ends in a line without its newline: the file was cut short (truncated), or a write never finished (a2atop's next write names such a line and links past it)")
			return false
		}
		w.brk(g.n, g.sum, BreakEdited, "it is not a record ("+g.why+"): a record edited, or a line inserted")
		w.anchored = false
	case pendGap:
		from, to := w.rec.seq+1, g.seq-1
		if next != nil && next.rec && next.seq >= from && next.seq <= to {
			w.brk(g.n, g.sum, BreakReordered, fmt.Sprintf("line %d (seq %d) comes before line %d (seq %d), which it follows: records reordered", g.n, g.seq, next.n, next.seq))
			w.anchored = false
			w.setLast(*next)
			return true
		}
		w.brk(g.n, g.sum, BreakRemoved, fmt.Sprintf("%d record(s) (seq %d–%d) were removed before it, after line %d", to-from+1, from, to, w.rec.n))
		w.accept(g)
	case pendDup:
		l := w.rec
		if next != nil && next.rec && sumIs(next.prev, g.sum) {
			w.brk(l.n, l.sum, BreakInserted, fmt.Sprintf("lines %d and %d both claim seq %d, and line %d links to line %d: line %d was inserted", l.n, g.n, g.seq, next.n, g.n, l.n))
			w.rec = posOf(g)
			return false
		}
		w.brk(g.n, g.sum, BreakInserted, fmt.Sprintf("it claims seq %d, the place of line %d: a record inserted (copied or forged)", g.seq, l.n))
		w.last = w.pprev
	}
	return false
}

// accept takes l as the chain's next record.
func (w *chainWalk) accept(l chainLine) {
	w.anchored = true
	w.rec = posOf(l)
	w.setLast(l)
	w.st.Records++
	w.st.HeadSeq = l.seq
	if !l.at.IsZero() {
		w.st.HeadAt = l.at
	}
	switch l.typ {
	case recCheckpoint:
		w.checkpoint(l)
		w.headSeen = w.headSeen || (w.head != nil && w.head.sum == l.sum)
	case recChainAccept:
		for i := range w.st.Breaks {
			if b := &w.st.Breaks[i]; !b.Accepted() {
				b.AcceptedBy, b.AcceptedAt, b.AcceptedLine = l.by, l.at, l.n
			}
		}
		w.st.Unsigned++
	default:
		w.st.Unsigned++
	}
}

// checkpoint checks a checkpoint's signature: with the trusted key, or
// else with the key the journal's checkpoints name, which must not change.
func (w *chainWalk) checkpoint(l chainLine) {
	key, err := ParseKeyText(l.key)
	switch {
	case err != nil:
		w.brk(l.n, l.sum, BreakSignature, "the checkpoint names no Ed25519 key: "+err.Error())
		return
	case w.st.Key == "":
		w.st.Key = l.key
	case l.key != w.st.Key && w.st.Trusted:
		w.brk(l.n, l.sum, BreakSignature, fmt.Sprintf("the checkpoint is signed by key %s, not the key given (%s)", l.key, w.st.Key))
		return
	case l.key != w.st.Key:
		w.brk(l.n, l.sum, BreakSignature, fmt.Sprintf("the checkpoint is signed by key %s, not the key of the checkpoints before it (%s)", l.key, w.st.Key))
		return
	}
	sig, err := base64.StdEncoding.DecodeString(l.sig)
	if err != nil || !ed25519.Verify(key, checkpointMessage(l.seq, l.prev), sig) {
		w.brk(l.n, l.sum, BreakSignature, "the checkpoint's signature does not verify: the checkpoint, or the head it signs, was changed")
		return
	}
	w.st.Checkpoints++
	w.st.SignedSeq, w.st.SignedLine, w.st.SignedAt, w.st.Unsigned, w.st.SignedPath = l.seq, l.n, l.at, 0, w.st.Path
}

func (w *chainWalk) setLast(l chainLine) {
	w.last, w.haveLast = posOf(l), true
}

func (w *chainWalk) brk(n int, sum [32]byte, k BreakKind, words string) {
	if len(w.st.Breaks) >= maxBreaks {
		w.st.More++
		return
	}
	b := ChainBreak{Path: w.st.Path, Line: n, Kind: k, Words: words}
	if sum != ([32]byte{}) {
		b.Hash = sumText(sum)
	}
	w.st.Breaks = append(w.st.Breaks, b)
}

// status is what the walk found so far, the lines pending judged as at
// the end; the walk itself goes on unchanged.
func (w *chainWalk) status() ChainStatus {
	c := *w
	c.st.Breaks = append([]ChainBreak(nil), w.st.Breaks...)
	if c.pend != pendNone {
		c.resolve(nil)
	}
	c.missingHead()
	if c.lines {
		c.st.Head = sumText(c.tail)
	}
	return c.st
}
