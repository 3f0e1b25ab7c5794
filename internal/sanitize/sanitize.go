package sanitize

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Ellipsis is appended to a string that was cut to fit its width.
const Ellipsis = "…"

// Line returns s as one line that is safe to print: escape sequences
// (CSI, OSC including OSC 52, DCS, APC, PM, SOS, and the short ESC forms)
// are removed with their payload, other C0 and C1 controls and bidi
// overrides and isolates are removed, line breaks and tabs become one
// space, and invalid UTF-8 becomes U+FFFD. If the result is wider than max
// cells it is cut at a grapheme boundary and ends with "…", so its width is
// at most max. A max of 0 or less returns ""; pass math.MaxInt for no cut.
func Line(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if plainASCII(s) {
		if len(s) <= max {
			return s
		}
		return s[:max-1] + Ellipsis
	}
	return cut(clean(s, false), max)
}

// Text is Line for text of several lines: it keeps newlines ("\r\n" and a
// lone "\r" become "\n") and tabs, and removes everything else Line
// removes. max bounds the whole text: every newline and tab counts as one
// cell, and a text that does not fit is cut and ends with "…". A max of 0
// or less returns ""; pass math.MaxInt for no cut.
func Text(s string, max int) string {
	if max <= 0 {
		return ""
	}
	return cut(clean(s, true), max)
}

// plainASCII reports whether s holds only printable ASCII, which needs no
// cleaning and is one cell per byte.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// cut shortens s, which holds no controls other than '\n' and '\t', to at
// most max cells, ending with Ellipsis when anything was dropped.
func cut(s string, max int) string {
	if width(s) <= max {
		return s
	}
	var (
		b    strings.Builder
		used int
	)
	for rest := s; rest != ""; {
		cluster, w := nextCluster(rest)
		if used+w > max-1 {
			break
		}
		b.WriteString(cluster)
		used += w
		rest = rest[len(cluster):]
	}
	b.WriteString(Ellipsis)
	return b.String()
}

// width is the display width of s, counting '\n' and '\t' as one cell.
func width(s string) int {
	n := 0
	for rest := s; rest != ""; {
		cluster, w := nextCluster(rest)
		n += w
		rest = rest[len(cluster):]
	}
	return n
}

// nextCluster returns the first grapheme cluster of s and its width. A
// newline or tab is its own cluster of width one.
func nextCluster(s string) (string, int) {
	if s[0] == '\n' || s[0] == '\t' {
		return s[:1], 1
	}
	if s[0] < utf8.RuneSelf && (len(s) == 1 || s[1] < utf8.RuneSelf) {
		return s[:1], 1 // ASCII not followed by a combining mark
	}
	return ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
}
