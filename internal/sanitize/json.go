package sanitize

import (
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"
)

// WriteJSON writes v to w as one line of JSON (encoding/json's Marshal,
// then EscapeJSON, then "\n"). Agent text stays data and decodes to
// exactly what the agent sent, and the line is safe to print on a
// terminal.
func WriteJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(EscapeJSON(b), '\n'))
	return err
}

// EscapeJSON rewrites, in JSON text b as encoding/json writes it, every
// character a terminal could act on even inside a JSON string as a \u
// escape: DEL, the C1 controls, the bidi controls, the line and paragraph
// separators and the format characters Line removes. encoding/json
// already escapes the C0 controls in strings; outside strings JSON holds
// only ASCII, so every rune rewritten is inside a string and a JSON
// reader gets the same value. b is not modified; invalid UTF-8 is copied
// as it is.
func EscapeJSON(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if escapeInJSON(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// escapeInJSON reports the runes EscapeJSON writes as \u escapes.
func escapeInJSON(r rune) bool {
	return (r >= 0x7f && r <= 0x9f) || isBidi(r) || r == lineSep || r == paraSep || isFormat(r)
}
