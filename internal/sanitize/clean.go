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
)

// clean removes escape sequences and controls from s and replaces invalid
// UTF-8. With multiline, line breaks and tabs are kept (CR LF and CR
// become LF); without, each becomes one space.
func clean(s string, multiline bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
			i++
			continue
		case r == esc:
			i = skipEscape(s, i+1)
			continue
		case r == c1CSI:
			i = skipCSI(s, i+size)
			continue
		case r == c1OSC:
			i = skipString(s, i+size, true)
			continue
		case r == c1DCS || r == c1SOS || r == c1PM || r == c1APC:
			i = skipString(s, i+size, false)
			continue
		case r == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				size = 2
			}
			writeBreak(&b, multiline)
		case r == '\n' || r == '\t':
			if multiline {
				b.WriteByte(byte(r))
			} else {
				b.WriteByte(' ')
			}
		case isControl(r) || isBidi(r):
			// dropped
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// writeBreak writes what a carriage return becomes.
func writeBreak(b *strings.Builder, multiline bool) {
	if multiline {
		b.WriteByte('\n')
	} else {
		b.WriteByte(' ')
	}
}

// isControl reports C0 controls, DEL and C1 controls.
func isControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f)
}

// isBidi reports the bidirectional formatting characters that can make
// text read differently from how it is stored: embeddings and overrides
// (U+202A..U+202E), isolates (U+2066..U+2069), and the invisible marks
// (U+200E, U+200F, U+061C).
func isBidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200e || r == 0x200f || r == 0x061c
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
