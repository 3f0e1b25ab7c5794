package a2aclient

import (
	"testing"
	"time"
)

// The complete listing owed after sweeps that stopped early: owed from
// the first such sweep's bound, read a page every wholeEvery intervals,
// owed again from a later bound when a sweep stopped early while it was
// under way, and paid by a sweep that read to the end from no later
// bound.
func TestWholeListingOwed(t *testing.T) {
	const iv = time.Second
	t0 := time.Unix(1000, 0)
	var l wholeListing
	if l.due(t0, iv) {
		t.Fatal("owed before any sweep stopped early")
	}
	l.swept(t0, false)
	if l.owed {
		t.Fatal("owed after a sweep read to the end")
	}
	l.swept(t0, true)
	if !l.owed || !l.from.Equal(t0) || !l.due(t0, iv) {
		t.Fatalf("after a sweep stopped early: %+v, want owed from its bound, due", l)
	}
	l.swept(t0.Add(time.Second), true) // not begun: it covers this one too
	l.paged("p2", t0)
	if l.again || l.due(t0.Add(iv), iv) || !l.due(t0.Add(wholeEvery*iv), iv) {
		t.Fatalf("after the first page: %+v, want the next page due %d intervals on", l, wholeEvery)
	}
	later := t0.Add(5 * time.Second)
	l.swept(later, true) // under way: it may miss what this sweep missed
	l.paged("", t0.Add(2*iv))
	if !l.owed || !l.from.Equal(later) || l.token != "" || l.again {
		t.Fatalf("after the last page, a sweep having stopped meanwhile: %+v, want owed again from %v", l, later)
	}
	l.swept(later.Add(time.Second), false)
	if !l.owed {
		t.Fatal("paid by a complete sweep from a later bound")
	}
	l.swept(later, false)
	if l.owed {
		t.Fatalf("not paid by a complete sweep from the bound owed: %+v", l)
	}
}
