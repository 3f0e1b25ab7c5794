package hub

import (
	"encoding/json"
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
