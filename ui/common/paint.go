package common

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// Paint is a style reduced to the escape sequences around its text, so a
// row costs string concatenation rather than a lipgloss render per cell.
// Only for styles without padding, width or borders. The zero value
// paints nothing.
type Paint struct{ pre, post string }

// NewPaint reduces s to its escape sequences.
func NewPaint(s lipgloss.Style) Paint {
	out := s.Render("\x1f")
	i := strings.IndexByte(out, '\x1f')
	if i < 0 {
		return Paint{}
	}
	return Paint{pre: out[:i], post: out[i+1:]}
}

// On is s in the paint.
func (p Paint) On(s string) string {
	if p.pre == "" && p.post == "" {
		return s
	}
	return p.pre + s + p.post
}
