package sanitize

import (
	"strings"
	"unicode/utf8"
)

// The control characters the cleaner recognises.
const (
	esc = 0x1b
	bel = 0x07
	// 8-bit C1 introducers, as runes U+0080..U+009F.
	c1DCS = 0x90
	c1SOS = 0x98
	c1CSI = 0x9b
	c1ST  = 0x9c
	c1OSC = 0x9d
	c1PM  = 0x9e
	c1APC = 0x9f
	// The Unicode line and paragraph separators.
	lineSep = 0x2028
	paraSep = 0x2029
)

// limits bound one call's work: scan is how many bytes of the input are
// read at most; bytes and runes bound the whole output. Every line of the
// output is also held to MaxLineBytes and MaxLineRunes.
type limits struct {
	scan, bytes, runes int
}

// cleaner writes the cleaned form of its input, counting what it writes.
type cleaner struct {
	b         strings.Builder
	lim       limits
	multiline bool
	runes     int // runes written in all
	lineBytes int // bytes and runes of the current line
	lineRunes int
}

// clean removes escape sequences and controls from s and replaces invalid
// UTF-8. With multiline, line breaks and tabs are kept (CR LF, CR and the
// Unicode line and paragraph separators become LF); without, each becomes
// one space.
//
// It reads at most lim.scan bytes of s and writes at most lim.bytes bytes
// and lim.runes runes. more reports that something visible may have been
// left out by those caps; the caller then ends the text with Ellipsis. A
// line of a multi-line text that passes the line caps ends with Ellipsis
// here, and the text goes on at the next line break.
func clean(s string, multiline bool, lim limits) (out string, more bool) {
	window := scanWindow(s, lim.scan)
	c := &cleaner{lim: lim, multiline: multiline}
	c.b.Grow(min(len(window), lim.bytes))
	for i := 0; i < len(window); {
		next, ok := c.step(window, i)
		if !ok {
			return c.b.String(), true
		}
		i = next
	}
	return c.b.String(), len(window) < len(s)
}

// scanWindow is the first n bytes of s, shortened to end on a rune
// boundary.
func scanWindow(s string, n int) string {
	if len(s) <= n {
		return s
	}
	end := n
	for end > n-utf8.UTFMax && end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end]
}

// step cleans what starts at s[i] and returns the index after it. ok is
// false when the output is full.
func (c *cleaner) step(s string, i int) (next int, ok bool) {
	r, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && size <= 1:
		return c.content(s, i, i+1, string(utf8.RuneError))
	case r == esc:
		return skipEscape(s, i+1), true
	case r == c1CSI:
		return skipCSI(s, i+size), true
	case r == c1OSC:
		return skipString(s, i+size, true), true
	case r == c1DCS || r == c1SOS || r == c1PM || r == c1APC:
		return skipString(s, i+size, false), true
	case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
		return c.lineBreak(s, i, i+2)
	case r == '\r' || r == '\n' || r == lineSep || r == paraSep:
		return c.lineBreak(s, i, i+size)
	case r == '\t' && !c.multiline:
		return c.content(s, i, i+size, " ")
	case r == '\t':
		return c.content(s, i, i+size, "\t")
	case isControl(r) || isBidi(r) || isFormat(r):
		return i + size, true // dropped
	}
	return c.content(s, i, i+size, s[i:i+size])
}

// content writes text, the cleaned form of one rune at s[i], and returns
// next, the index after that rune; or ends the line when the line caps
// leave no room for it.
func (c *cleaner) content(s string, i, next int, text string) (int, bool) {
	if c.lineBytes+len(text) > MaxLineBytes || c.lineRunes+1 > MaxLineRunes {
		return c.endLongLine(s, i)
	}
	return next, c.write(text)
}

// write appends the text of one rune, or reports false when the output
// caps leave no room for it.
func (c *cleaner) write(text string) bool {
	if c.b.Len()+len(text) > c.lim.bytes || c.runes+1 > c.lim.runes {
		return false
	}
	c.b.WriteString(text)
	c.runes++
	c.lineBytes += len(text)
	c.lineRunes++
	return true
}

// lineBreak writes what the line break at s[i] becomes: a new line of a
// multi-line text, or a space in a single line.
func (c *cleaner) lineBreak(s string, i, next int) (int, bool) {
	if !c.multiline {
		return c.content(s, i, next, " ")
	}
	if !c.write("\n") {
		return i, false
	}
	c.lineBytes, c.lineRunes = 0, 0
	return next, true
}

// endLongLine handles a rune at s[i] that the line caps leave no room
// for. A single line is full: ok is false. A line of a multi-line text
// ends with Ellipsis and the text goes on at the next line break.
func (c *cleaner) endLongLine(s string, i int) (next int, ok bool) {
	if !c.multiline {
		return i, false
	}
	if !c.write(Ellipsis) {
		return i, false
	}
	j := indexBreak(s[i:])
	if j < 0 {
		return len(s), true
	}
	return i + j, true
}

// indexBreak is the index of the first line break in s (LF, CR, U+2028,
// U+2029), or -1.
func indexBreak(s string) int {
	return strings.IndexFunc(s, func(r rune) bool {
		return r == '\n' || r == '\r' || r == lineSep || r == paraSep
	})
}

// isControl reports C0 controls, DEL and C1 controls.
func isControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f)
}

// isBidi reports the bidirectional formatting characters that can make
// text read differently from how it is stored: embeddings and overrides
// (U+202A..U+202E), isolates (U+2066..U+2069), and the invisible marks
// (U+200E, U+200F, U+061C). These are all of Unicode's Bidi_Control
// characters.
func isBidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200e || r == 0x200f || r == 0x061c
}

// isFormat reports the other format characters that change how the text
// around them is shown or hide it: the deprecated shaping and digit
// controls (U+206A..U+206F) and the interlinear annotation marks
// (U+FFF9..U+FFFB), which hide the annotated text in some renderers.
func isFormat(r rune) bool {
	return (r >= 0x206a && r <= 0x206f) || (r >= 0xfff9 && r <= 0xfffb)
}

// skipEscape returns the index just after the escape sequence whose ESC
// was at i-1. A lone ESC, or ESC before a byte that starts no sequence,
// is dropped by itself.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']':
		return skipString(s, i+1, true)
	case 'P', 'X', '^', '_':
		return skipString(s, i+1, false)
	}
	// nF sequences: intermediates 0x20..0x2F, then a final 0x30..0x7E.
	j := i
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
		return j + 1
	}
	return j // malformed: drop ESC and its intermediates, keep the rest
}

// skipCSI returns the index after a control sequence whose parameters
// start at i: parameter and intermediate bytes (0x20..0x3F), then one
// final byte (0x40..0x7E). Any other byte ends the sequence unfinished and
// is left for the caller.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 0x20 && c <= 0x3f:
			i++
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		default:
			return i
		}
	}
	return i
}

// skipString returns the index after a control string (OSC, DCS, SOS, PM,
// APC) whose payload starts at i. It ends at ST (ESC \ or U+009C) or, for
// OSC, BEL. An unterminated string runs to the end of s, as it would on a
// terminal, so its payload never shows.
func skipString(s string, i int, osc bool) int {
	for i < len(s) {
		switch {
		case osc && s[i] == bel:
			return i + 1
		case s[i] == esc && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case s[i] == 0xc2 && i+1 < len(s) && s[i+1] == c1ST:
			return i + 2
		}
		i++
	}
	return i
}
