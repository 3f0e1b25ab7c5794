package inbox

import (
	"slices"
	"strings"
	"testing"

	"a2atop/model"
)

// TestInboxSortsByColumn: the column keys sort the queue, chains whole,
// and again reverse it; the title names the order.
func TestInboxSortsByColumn(t *testing.T) {
	fx := newFixture(t, false)
	m := NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge})
	m.SetSize(120, 40)
	order := func() []string {
		var out []string
		for _, it := range m.items {
			out = append(out, model.ShortID(it.Key().ID))
		}
		return out
	}
	for _, tc := range []struct {
		key   string
		want  []string
		label string
	}{
		{"", []string{"5b1e0c7a", "23cf3710", "7d2a9e44", "c0ffee00"}, "oldest first"},
		{"O", []string{"c0ffee00", "7d2a9e44", "5b1e0c7a", "23cf3710"}, "sorted by age ↑"},
		{"I", []string{"5b1e0c7a", "23cf3710", "7d2a9e44", "c0ffee00"}, "sorted by id ↑"},
		{"I", []string{"c0ffee00", "7d2a9e44", "5b1e0c7a", "23cf3710"}, "sorted by id ↓"},
		{"T", []string{"5b1e0c7a", "23cf3710", "c0ffee00", "7d2a9e44"}, "sorted by text ↑"},
	} {
		if tc.key != "" {
			drive(m, tc.key)
		}
		if got := order(); !slices.Equal(got, tc.want) {
			t.Errorf("after %q: %v, want %v", tc.key, got, tc.want)
		}
		if got := m.sortLabel(); got != tc.label {
			t.Errorf("after %q the title says %q, want %q", tc.key, got, tc.label)
		}
	}
}

// TestJournalSorts: the journal sorts by its columns and says so.
func TestJournalSorts(t *testing.T) {
	fx := newFixture(t, false)
	seedJournal(t, fx)
	j := NewJournal(fx.ctx, fx.svc, Options{})
	j.SetSize(120, 40)
	first := func() string { return string(j.entries[0].Kind) }
	drive(j, "U") // time, again: oldest first
	if !strings.Contains(j.View(), "sorted by time ↑") || j.entries[0].Kind != "approve" {
		t.Fatalf("oldest first: %s first\n%s", first(), j.View())
	}
	drive(j, "T")
	if j.entries[0].Kind != "" || j.entries[1].Kind != "approve" || !strings.Contains(j.View(), "sorted by kind ↑") { // an observation has no kind
		t.Fatalf("by kind: %s first", first())
	}
}
