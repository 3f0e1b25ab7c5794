package cli

import (
	"strings"

	"a2atop/internal/sanitize"
)

// maxMessage bounds one message on stderr, in cells.
const maxMessage = 2000

// plain returns agent text as one line that is safe on a terminal and at
// most max cells wide: sanitize.Line (no escape sequences, C0 or C1
// controls, DEL or bidi controls), with the line and paragraph
// separators U+2028 and U+2029, which Line keeps, as spaces. Every
// command prints agent text through plain, or through writeJSON.
func plain(s string, max int) string {
	return sanitize.Line(strings.Map(func(r rune) rune {
		if r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s), max)
}
