package common

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"a2atop/internal/sanitize"
	"a2atop/ui/theme"
)

// Caps on what one piece of agent text may take on a screen.
const (
	MaxFieldText = 64 << 10
	MaxLineText  = 512
	TabSpaces    = "    "
)

// Section builds a screen's text (the detail, an agent's card) line by
// line at a width: W cells, in Th's styles.
type Section struct {
	strings.Builder
	W  int
	Th *theme.Theme
}

// Line writes one line, cut to the width.
func (b *Section) Line(s string) {
	b.WriteString(ansi.Truncate(s, b.W, "…"))
	b.WriteByte('\n')
}

// Field writes "label      value", the value wrapped under itself.
func (b *Section) Field(label, value string) {
	const lw = 14
	head := b.Th.Label.Render(Pad(label, lw))
	body := Wrap(value, max(b.W-lw, 10))
	for i, l := range strings.Split(body, "\n") {
		if i > 0 {
			head = strings.Repeat(" ", lw)
		}
		b.Line(head + l)
	}
}

// Heading starts a section.
func (b *Section) Heading(s string) {
	b.WriteByte('\n')
	b.Line(b.Th.PaneTitleFocused.Render(s))
}

// Text writes agent text: sanitized, tabs expanded, wrapped, indented.
func (b *Section) Text(s string) {
	s = strings.ReplaceAll(sanitize.Text(s, MaxFieldText), "\t", TabSpaces)
	for _, l := range strings.Split(Wrap(s, max(b.W-2, 8)), "\n") {
		b.Line("  " + l)
	}
}

// Wrap breaks s at spaces (or anywhere, for long words) to width w.
func Wrap(s string, w int) string {
	return ansi.Wrap(s, w, "")
}

// Plural is "1 message", "3 messages".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
