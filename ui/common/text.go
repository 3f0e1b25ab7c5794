package common

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Fit cuts s to at most h lines of at most w cells each. It neither pads
// nor wraps: a line wider than w is cut, styling kept intact. A View ends
// with Fit so that it never draws outside the cells SetSize gave it.
func Fit(s string, w, h int) []string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:max(h, 0)]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
		}
	}
	return lines
}

// Pad cuts or pads s to exactly w cells: a fixed-width column. A wide
// rune that would straddle the edge is dropped and its cell padded.
func Pad(s string, w int) string {
	s, n := cut(s, w)
	return s + strings.Repeat(" ", max(w-n, 0))
}

// PadLeft right-aligns s in exactly w cells, cutting it when it is wider.
func PadLeft(s string, w int) string {
	s, n := cut(s, w)
	return strings.Repeat(" ", max(w-n, 0)) + s
}

// cut is s cut to at most w cells, and its width.
func cut(s string, w int) (string, int) {
	n := ansi.StringWidth(s)
	if n > w {
		s = ansi.Truncate(s, w, "")
		n = ansi.StringWidth(s)
	}
	return s, n
}
