package model

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckID(t *testing.T) {
	for _, c := range []struct {
		id, why string // why: "" when the id is taken
	}{
		{"0f8fad5b-d9cb-469f-a165-70867728950e", ""},
		{"../../secret-admin?delete=all", ""}, // sent as one escaped segment, not refused
		{"a:cancel", ""},
		{"ünïcødé/タスク", ""},
		{strings.Repeat("é", MaxIDBytes/2), ""},
		{"", "is empty"},
		{strings.Repeat("x", MaxIDBytes+1), "is longer than 256 bytes"},
		{"a\x1b[2Jb", "holds a control character (U+001B)"},
		{"line\nbreak", "holds a control character (U+000A)"},
		{"del\x7f", "holds a control character (U+007F)"},
		{"c1\u0085", "holds a control character (U+0085)"},
		{"\xff", "is not valid UTF-8"},
		{".", "is a dot segment"},
		{"..", "is a dot segment"},
	} {
		err := CheckTaskID(c.id)
		switch {
		case c.why == "" && err != nil:
			t.Errorf("CheckTaskID(%q): %v, want nil", c.id, err)
		case c.why != "" && (!errors.Is(err, ErrBadID) || !strings.Contains(err.Error(), c.why)):
			t.Errorf("CheckTaskID(%q): %v, want ErrBadID saying %q", c.id, err, c.why)
		}
	}
}

func TestQuoteID(t *testing.T) {
	long := strings.Repeat("é", 100)
	got := QuoteID(long)
	if !strings.HasPrefix(got, `"`+strings.Repeat("é", 24)+`"…`) || !strings.HasSuffix(got, "(200 bytes)") {
		t.Errorf("QuoteID(200 bytes of é) = %s", got)
	}
	if got := QuoteID("a\x1b"); got != `"a\x1b"` {
		t.Errorf("QuoteID(control) = %s", got)
	}
}

// BenchmarkCheckTaskID is the cost the watchers pay per event.
func BenchmarkCheckTaskID(b *testing.B) {
	for b.Loop() {
		_ = CheckTaskID("0f8fad5b-d9cb-469f-a165-70867728950e")
	}
}
