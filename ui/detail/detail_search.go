package detail

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"a2atop/internal/sanitize"
	"a2atop/ui/common"
	"a2atop/ui/theme"
)

// SearchKeys search the text of the detail (and its raw JSON): Open
// starts typing, Keep keeps the search, Clear clears it, Next and Prev
// move between the lines that hold it.
type SearchKeys struct {
	Open       key.Binding
	Keep       key.Binding `keys:"search"`
	Clear      key.Binding `keys:"layered"`
	Next, Prev key.Binding
}

// DefaultSearchKeys are /, enter, esc, n and N.
func DefaultSearchKeys() SearchKeys {
	return SearchKeys{
		Open:  common.Bind("/", "search the text", "/"),
		Keep:  common.Bind("enter", "keep", "enter"),
		Clear: common.Bind("esc", "clear", "esc"),
		Next:  common.Bind("n", "next match", "n"),
		Prev:  common.Bind("N", "prev match", "N"),
	}
}

// textSearch finds text in the lines of a drawing: not a filter (the
// lists' / keeps the rows that match), a search (every line stays, the
// cursor moves to the lines that hold the text).
type textSearch struct {
	keys  SearchKeys
	typed common.TypedLine
	query string // lower case
	lines []int  // the lines that hold it
	cur   int    // the current one, in lines
}

func newTextSearch(th *theme.Theme, keys SearchKeys) textSearch {
	s := textSearch{keys: keys, typed: common.NewTypedLine(th, "search: ", 128)}
	s.typed.Input.Width = 40
	return s
}

// active reports whether a search is in effect.
func (s *textSearch) active() bool { return s.query != "" }

// key handles a key of the search; moved reports whether the current
// match changed (the view scrolls to it), changed whether the query did
// (the drawing is searched again).
func (s *textSearch) key(msg tea.KeyMsg) (handled, changed, moved bool, cmd tea.Cmd) {
	k := s.keys
	if s.typed.Editing() {
		switch {
		case key.Matches(msg, k.Keep):
			s.typed.Close()
			return true, false, false, nil
		case key.Matches(msg, k.Clear):
			s.typed.Close()
			return true, s.set(""), false, nil
		}
		text, cmd := s.typed.Type(msg)
		return true, s.set(text), true, cmd
	}
	switch {
	case key.Matches(msg, k.Open):
		return true, false, false, s.typed.Open(s.query)
	case key.Matches(msg, k.Clear) && s.active():
		return true, s.set(""), false, nil
	case key.Matches(msg, k.Next) && len(s.lines) > 0:
		s.cur = (s.cur + 1) % len(s.lines)
		return true, false, true, nil
	case key.Matches(msg, k.Prev) && len(s.lines) > 0:
		s.cur = (s.cur - 1 + len(s.lines)) % len(s.lines)
		return true, false, true, nil
	}
	return false, false, false, nil
}

func (s *textSearch) set(q string) bool {
	q = strings.ToLower(q)
	if q == s.query {
		return false
	}
	s.query, s.cur = q, 0
	return true
}

// line is the line of the current match, or -1.
func (s *textSearch) line() int {
	if s.cur < len(s.lines) {
		return s.lines[s.cur]
	}
	return -1
}

// mark finds the query in a drawing and returns it with every match
// highlighted (a line that holds one is drawn plain around it, the
// current match in the strongest style). It keeps the current match on
// the same line when it can.
func (s *textSearch) mark(th *theme.Theme, content string) string {
	prev := s.line()
	s.lines = s.lines[:0]
	if !s.active() {
		return content
	}
	lines := strings.Split(content, "\n")
	hit, cur := lipgloss.NewStyle().Inherit(th.Marked).Reverse(true), th.RowSelected
	for i, l := range lines {
		plain := ansi.Strip(l)
		if !strings.Contains(strings.ToLower(plain), s.query) {
			continue
		}
		if i == prev {
			s.cur = len(s.lines)
		}
		s.lines = append(s.lines, i)
		style := hit
		if len(s.lines)-1 == s.cur {
			style = cur
		}
		lines[i] = highlight(plain, s.query, style)
	}
	s.cur = min(s.cur, max(len(s.lines)-1, 0))
	return strings.Join(lines, "\n")
}

// highlight draws every occurrence of q (lower case) in plain with
// style; a line whose case folding changes its length is marked whole.
func highlight(plain, q string, style lipgloss.Style) string {
	low := strings.ToLower(plain)
	if len(low) != len(plain) {
		return style.Render(plain)
	}
	var b strings.Builder
	for {
		i := strings.Index(low, q)
		if i < 0 {
			b.WriteString(plain)
			return b.String()
		}
		b.WriteString(plain[:i])
		b.WriteString(style.Render(plain[i : i+len(q)]))
		plain, low = plain[i+len(q):], low[i+len(q):]
	}
}

// footnote is the search in the footer: being typed, or kept with its
// place among the matches. It says "search" and "in this task" so that
// it reads apart from the lists' filter.
func (s *textSearch) footnote(th *theme.Theme, w int, of string) (string, bool) {
	if s.typed.Editing() {
		hint := common.TypingHint(th, s.keys.Keep, s.keys.Clear, " · searches the text of "+of+", "+s.count())
		line := s.typed.Input.View()
		if lipgloss.Width(line)+2+lipgloss.Width(hint) <= w {
			line += "  " + hint
		}
		return ansi.Truncate(line, w, ""), true
	}
	if !s.active() {
		return "", false
	}
	return th.Prompt.Render("search ") + th.Text.Render(sanitize.Line(s.query, 40)) +
		th.Muted.Render(" in "+of+": "+s.count()+" ("+s.keys.Next.Help().Key+"/"+s.keys.Prev.Help().Key+" move, "+
			s.keys.Clear.Help().Key+" clears)") + "  ", false
}

// count is "3/7 lines" or "no match".
func (s *textSearch) count() string {
	if !s.active() {
		return "type to search"
	}
	if len(s.lines) == 0 {
		return "no match"
	}
	return strconv.Itoa(s.cur+1) + "/" + common.Plural(len(s.lines), "line")
}
