package sanitize

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Ellipsis is appended to a string that was cut to fit its width or its
// caps.
const Ellipsis = "…"

// The caps on what one call keeps, applied before any width is measured,
// so that the time and the output of a call are bounded by them whatever
// the input: no grapheme cluster, line or text an agent builds
// (combining marks, ZWJ sequences, variation selectors, regional
// indicators, invalid UTF-8, zero-width characters) costs more.
const (
	// MaxClusterRunes and MaxClusterBytes bound one grapheme cluster: a
	// longer one is shown as one U+FFFD. Real text stays far below them
	// (the longest emoji ZWJ sequences have 10 code points; Unicode's
	// stream-safe format allows 30 combining marks in a row).
	MaxClusterRunes = 32
	MaxClusterBytes = 128
	// MaxLineRunes and MaxLineBytes bound one line, after cleaning: Line's
	// result, or one line of Text's. A longer line is cut and ends with
	// Ellipsis.
	MaxLineRunes = 8 << 10
	MaxLineBytes = 32 << 10
	// MaxTextRunes and MaxTextBytes bound all that Text returns; a longer
	// text is cut and ends with Ellipsis.
	MaxTextRunes = 256 << 10
	MaxTextBytes = 1 << 20
	// scanFactor times the output cap is how much input one call reads at
	// most (escape sequences and controls take input and give no output).
	scanFactor = 4
)

// limitsFor is what one call may do for max cells, given its output caps:
// no more than max+1 clusters of the largest size are ever needed.
func limitsFor(max, bytes, runes int) limits {
	if max < bytes/MaxClusterBytes {
		bytes = (max + 1) * MaxClusterBytes
	}
	if max < runes/MaxClusterRunes {
		runes = (max + 1) * MaxClusterRunes
	}
	return limits{scan: scanFactor * bytes, bytes: bytes, runes: runes}
}

// Line returns s as one line that is safe to print: escape sequences
// (CSI, OSC including OSC 52, DCS, APC, PM, SOS, and the short ESC forms)
// are removed with their payload, other C0 and C1 controls, bidi controls
// and the format characters that hide or reshape text are removed, line
// breaks (including U+2028 and U+2029) and tabs become one space, invalid
// UTF-8 becomes U+FFFD, and a grapheme cluster longer than the cluster
// caps becomes one U+FFFD. If the result is wider than max cells, or
// longer than the line caps, it is cut at a grapheme boundary and ends
// with "…", so its width is at most max. Line reads at most 128 KiB of s
// (less for a small max).
// A max of 0 or less returns ""; pass math.MaxInt for no cut but the caps.
func Line(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if out, ok := asciiLine(s, max); ok {
		return out
	}
	out, more := clean(s, false, limitsFor(max, MaxLineBytes, MaxLineRunes))
	return cut(out, max, more)
}

// Text is Line for text of several lines: it keeps newlines ("\r\n", a
// lone "\r", U+2028 and U+2029 become "\n") and tabs, and removes
// everything else Line removes. Each line is held to the line caps (a
// longer one ends with "…" and the text goes on at the next line), and
// the whole text to the text caps. max bounds the whole text: every
// newline and tab counts as one cell, and a text that does not fit is cut
// and ends with "…". Text reads at most 4 MiB of s (less for a small
// max). A max of 0 or less
// returns ""; pass math.MaxInt for no cut but the caps.
func Text(s string, max int) string {
	if max <= 0 {
		return ""
	}
	out, more := clean(s, true, limitsFor(max, MaxTextBytes, MaxTextRunes))
	return cut(out, max, more)
}

// asciiLine is Line for s whose first bytes, as many as can be kept, are
// printable ASCII, which needs no cleaning and is one cell per byte. ok
// is false for any other s.
func asciiLine(s string, max int) (out string, ok bool) {
	n := min(len(s), max, MaxLineRunes)
	if !plainASCII(s[:n]) {
		return "", false
	}
	switch {
	case n == len(s):
		return s, true
	case n == max: // s is wider than max: s[n-1] is not joined to s[n-2]
		return s[:n-1] + Ellipsis, true
	default: // the line caps end s before max
		return s[:n] + Ellipsis, true
	}
}

// plainASCII reports whether s holds only printable ASCII.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// cut shortens s, which holds no controls other than '\n' and '\t', to at
// most max cells, ending with Ellipsis when anything was dropped here or,
// as more says, before. A cluster over the cluster caps becomes U+FFFD.
func cut(s string, max int, more bool) string {
	var (
		b    strings.Builder
		used int // cells written
		keep int // bytes of b that fit in max-1 cells, leaving room for Ellipsis
	)
	b.Grow(min(len(s), max))
	for rest := s; rest != ""; {
		cluster, w := nextCluster(rest)
		rest = rest[len(cluster):]
		if len(cluster) > MaxClusterBytes || utf8.RuneCountInString(cluster) > MaxClusterRunes {
			cluster, w = string(utf8.RuneError), 1
		}
		if used+w > max {
			return b.String()[:keep] + Ellipsis
		}
		b.WriteString(cluster)
		used += w
		if used <= max-1 {
			keep = b.Len()
		}
	}
	if more {
		return b.String()[:keep] + Ellipsis
	}
	return b.String()
}

// nextCluster returns the first grapheme cluster of s and its width as
// ansi.StringWidth, which lipgloss lays out with, counts it. A newline or
// tab is its own cluster of width one.
func nextCluster(s string) (string, int) {
	if s[0] == '\n' || s[0] == '\t' {
		return s[:1], 1
	}
	if s[0] < utf8.RuneSelf && (len(s) == 1 || s[1] < utf8.RuneSelf) {
		return s[:1], 1 // ASCII not followed by a combining mark
	}
	cluster, w := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
	if s[0] < utf8.RuneSelf && len(cluster) <= MaxClusterBytes {
		// ansi.StringWidth counts an ASCII base apart from the marks
		// after it: "0" and a spacing mark are two cells to it.
		w = ansi.StringWidth(cluster)
	}
	return cluster, w
}
