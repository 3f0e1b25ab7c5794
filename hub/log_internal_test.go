package hub

import (
	"encoding/json"
	"slices"
	"testing"

	"a2atop/approvals"
)

func TestLogWindow(t *testing.T) {
	l := newFeedLog(4, 1<<20, -1)
	for range 10 {
		l.append(entry{name: "x", data: []byte("{}")})
	}
	if l.first != 7 || l.next != 11 || len(l.entries) != 4 {
		t.Fatalf("first %d next %d len %d", l.first, l.next, len(l.entries))
	}
	if _, ok := l.resumeFrom(l.id(3)); ok {
		t.Fatal("resumed from 3")
	}
	if from, ok := l.resumeFrom(l.id(6)); !ok || from != 7 {
		t.Fatalf("resume from 6: %d %v", from, ok)
	}
}

// TestLineTravelsByteForByte: a journal line reaches the client exactly
// as it is in the file, whatever it holds, so that its checksum means
// the same at both ends.
func TestLineTravelsByteForByte(t *testing.T) {
	for _, raw := range []string{
		`{"v":2,"type":"decision","id":"a","reason":"<b> & \u003c","sum":"0123abcd"}`,
		`{"v":2,"type":"decision","reason":"` + "\u2028" + `"}`,
		`{"v":2, "type":"decision"}`, // not compact
		"\xff\xfe not utf-8",
		`{"v":2,"type":"decis`, // torn
		`{"reason":"</script>"}`,
	} {
		w := encode(Journal{Lines: []Line{LineOf(approvals.JournalLine{N: 3, Raw: []byte(raw)})}})
		var back Journal
		if err := json.Unmarshal(w, &back); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		if got := back.Lines[0].JournalLine(); string(got.Raw) != raw || got.N != 3 {
			t.Errorf("%q came back as %q", raw, got.Raw)
		}
	}
}

// TestJournalTrim: with a limit of 2 entries the log holds every line of
// the decisions the Service holds and the damaged line, none of those
// it let go, and never a later record of a decision let go (it is not
// put on the feed at all); a position before a line let go does not
// continue, the last line's does.
func TestJournalTrim(t *testing.T) {
	h := &Hub{feed: newFeedLog(100, 1<<20, 2), byID: map[string]string{}}
	gone := map[string]bool{"a": true, "b": true}
	h.feed.holds = func(id string) bool { return !gone[id] }
	n := 0
	add := func(raw string) {
		n++
		h.journalLines([]approvals.JournalLine{{N: n, Raw: []byte(raw)}})
	}
	add(`not a record`)
	for _, id := range []string{"a", "b", "c", "d"} {
		add(`{"type":"decision","id":"` + id + `","agent":"x"}`)
		add(`{"type":"outcome","id":"` + id + `","agent":"x"}`)
	}
	var held []int
	for _, j := range h.feed.journal {
		held = append(held, j.line.N)
	}
	if want := []int{1, 6, 7, 8, 9}; !slices.Equal(held, want) {
		t.Fatalf("held lines %v, want %v (the damaged line, c's and d's)", held, want)
	}
	// This Service let a and b go at once: their outcomes never reached
	// the feed, their decisions did and were let go.
	if h.feed.trimmed != 4 {
		t.Errorf("trimmed %d, want 4 (b's decision)", h.feed.trimmed)
	}
	pos := h.feed.position()
	add(`{"type":"state","id":"a","agent":"x"}`)
	if len(h.feed.journal) != 5 || h.feed.position() != pos {
		t.Errorf("a later record of a decision let go: %d lines held, position %d (was %d); want neither held nor on the feed", len(h.feed.journal), h.feed.position(), pos)
	}
	if h.feed.journalAfter(1, approvals.LineHash([]byte(`not a record`))) {
		t.Error("a position before lines let go continues")
	}
	if !h.feed.journalAfter(9, approvals.LineHash([]byte(`{"type":"outcome","id":"d","agent":"x"}`))) {
		t.Error("the last line's position does not continue")
	}
}
