package common

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
)

// SortKeys move a list's sort to the previous or next column (k9s's <
// and >); a list's own column keys (shift+letter) sort by one column,
// and pressed again reverse it.
type SortKeys struct {
	Prev, Next key.Binding
}

// DefaultSortKeys are < and >.
func DefaultSortKeys() SortKeys {
	return SortKeys{
		Prev: key.NewBinding(key.WithKeys("<"), key.WithHelp("<", "sort by the column before")),
		Next: key.NewBinding(key.WithKeys(">"), key.WithHelp(">", "sort by the next column")),
	}
}

// SortColumn is one column a list sorts by: its name as the header
// writes it, the key that sorts by it, and its first direction (Desc:
// newest, largest or last first). Indexed says that the model keeps
// the rows in this column's order (model.Query's Sort By), so the list
// reads them in order rather than sorting them itself.
type SortColumn struct {
	Name    string
	Key     key.Binding
	Desc    bool
	Indexed bool
	By      model.SortBy
}

// Sort is which column a list is sorted by, and which way. Build it with
// NewSort; the zero value sorts by nothing.
type Sort struct {
	cols []SortColumn
	col  int
	desc bool
}

// NewSort sorts by column col of cols, in its first direction.
func NewSort(cols []SortColumn, col int) Sort {
	s := Sort{cols: cols}
	s.Set(col, cols[col].Desc)
	return s
}

// NewSortBy sorts by the column of cols the model keeps in order by,
// in its first direction (column 0 when none is).
func NewSortBy(cols []SortColumn, by model.SortBy) Sort {
	col := 0
	for i, c := range cols {
		if c.Indexed && c.By == by {
			col = i
			break
		}
	}
	return NewSort(cols, col)
}

// ModelOrder is the model's order of the column sorted by, and whether
// the model keeps it (SortColumn.Indexed); model.SortUpdated and false
// for a column the list sorts itself.
func (s Sort) ModelOrder() (model.SortBy, bool) {
	if len(s.cols) == 0 || !s.cols[s.col].Indexed {
		return model.SortUpdated, false
	}
	return s.cols[s.col].By, true
}

// Set sorts by column col in direction desc.
func (s *Sort) Set(col int, desc bool) {
	if col >= 0 && col < len(s.cols) {
		s.col, s.desc = col, desc
	}
}

// Col is the column sorted by; Desc whether it runs from the last.
func (s Sort) Col() int   { return s.col }
func (s Sort) Desc() bool { return s.desc }

// Reversed reports whether the sort runs against its column's first
// direction.
func (s Sort) Reversed() bool { return len(s.cols) > 0 && s.desc != s.cols[s.col].Desc }

// Named finds a column by its name or the start of it ("upd", "state"),
// ignoring case.
func (s Sort) Named(name string) (int, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return 0, false
	}
	found := -1
	for i, c := range s.cols {
		n := strings.ToLower(c.Name)
		if n == name {
			return i, true
		}
		if strings.HasPrefix(n, name) {
			if found >= 0 {
				return 0, false
			}
			found = i
		}
	}
	return found, found >= 0
}

// Names are the columns' names, for completion and messages.
func (s Sort) Names() []string {
	out := make([]string, len(s.cols))
	for i, c := range s.cols {
		out[i] = strings.ToLower(c.Name)
	}
	return out
}

// Key handles the sort keys: < and > move to the column before or
// after, a column's key sorts by it (pressed again, reversed). It
// reports whether the sort changed.
func (s *Sort) Key(msg tea.KeyMsg, keys SortKeys) bool {
	n := len(s.cols)
	if n == 0 {
		return false
	}
	switch {
	case key.Matches(msg, keys.Prev):
		c := (s.col - 1 + n) % n
		s.Set(c, s.cols[c].Desc)
		return true
	case key.Matches(msg, keys.Next):
		c := (s.col + 1) % n
		s.Set(c, s.cols[c].Desc)
		return true
	}
	for i, c := range s.cols {
		if key.Matches(msg, c.Key) {
			if i == s.col {
				s.desc = !s.desc
			} else {
				s.Set(i, c.Desc)
			}
			return true
		}
	}
	return false
}

// Arrow is what the header writes after the sorted column's name: ↓
// from the last (newest, largest) first, ↑ from the first.
func (s Sort) Arrow() string {
	if s.desc {
		return "↓"
	}
	return "↑"
}

// Mark is name with the arrow when col is the column sorted by.
func (s Sort) Mark(col int, name string) string {
	if len(s.cols) == 0 || col != s.col {
		return name
	}
	return name + s.Arrow()
}

// Label is "sorted by updated ↓", for a title.
func (s Sort) Label() string {
	if len(s.cols) == 0 {
		return ""
	}
	return "sorted by " + strings.ToLower(s.cols[s.col].Name) + " " + s.Arrow()
}

// Keys are the columns' keys, for the help.
func (s Sort) Keys() []key.Binding {
	out := make([]key.Binding, len(s.cols))
	for i, c := range s.cols {
		out[i] = c.Key
	}
	return out
}
