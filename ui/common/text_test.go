package common

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestFit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w, h int
		want []string
	}{
		{"abc\ndef\nghi", 2, 2, []string{"ab", "de"}},
		{"a", 5, 3, []string{"a"}}, // never pads
		{"", 5, 2, []string{""}},
		{"a\nb", 5, 0, []string{}},
		{"日本語", 4, 1, []string{"日本"}}, // wide runes count two cells
	} {
		if got := Fit(tc.in, tc.w, tc.h); strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("Fit(%q, %d, %d) = %q, want %q", tc.in, tc.w, tc.h, got, tc.want)
		}
	}
	styled := "\x1b[1mbold text\x1b[0m"
	got := Fit(styled, 4, 1)[0]
	if ansi.Strip(got) != "bold" || !strings.HasPrefix(got, "\x1b[1m") {
		t.Errorf("Fit cut the styling: %q", got)
	}
}

func TestPad(t *testing.T) {
	for _, tc := range []struct {
		in         string
		w          int
		left, rght string
	}{
		{"ab", 4, "ab  ", "  ab"},
		{"abcdef", 4, "abcd", "abcd"},
		{"abcd", 4, "abcd", "abcd"},
		{"", 2, "  ", "  "},
		{"日本", 3, "日 ", " 日"}, // a wide rune does not straddle the edge
		{"日本", 5, "日本 ", " 日本"},
	} {
		if got := Pad(tc.in, tc.w); got != tc.left {
			t.Errorf("Pad(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.left)
		}
		if got := PadLeft(tc.in, tc.w); got != tc.rght {
			t.Errorf("PadLeft(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.rght)
		}
	}
}
