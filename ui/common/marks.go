package common

import (
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
	"a2atop/ui/theme"
)

// MarkKeys mark rows of a list for an action on all of them at once.
type MarkKeys struct {
	// Mark toggles the row under the cursor; All marks every row the
	// filter shows (and, when all of them are marked, unmarks them);
	// Clear unmarks every row.
	Mark, All key.Binding
	Clear     key.Binding `keys:"layered"`
}

// DefaultMarkKeys are space, ctrl+a or *, and esc.
func DefaultMarkKeys() MarkKeys {
	return MarkKeys{
		Mark:  key.NewBinding(key.WithKeys(" ", "space"), key.WithHelp("space", "mark")),
		All:   key.NewBinding(key.WithKeys("ctrl+a", "*"), key.WithHelp("ctrl+a/*", "mark all shown")),
		Clear: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "unmark all")),
	}
}

// Marks are the rows a list has marked, by task, in the order they were
// marked: the tasks an action acts on when any are marked. The zero
// value is an empty set, ready to use.
type Marks struct {
	set   map[model.TaskKey]struct{}
	order []model.TaskKey
}

// Len is how many tasks are marked.
func (m *Marks) Len() int { return len(m.order) }

// Has reports whether k is marked.
func (m *Marks) Has(k model.TaskKey) bool {
	_, ok := m.set[k]
	return ok
}

// Toggle marks k, or unmarks it when it is marked, and reports whether
// it is marked now.
func (m *Marks) Toggle(k model.TaskKey) bool {
	if m.Has(k) {
		m.remove(k)
		return false
	}
	m.add(k)
	return true
}

func (m *Marks) add(k model.TaskKey) {
	if m.set == nil {
		m.set = map[model.TaskKey]struct{}{}
	}
	if _, ok := m.set[k]; !ok {
		m.set[k] = struct{}{}
		m.order = append(m.order, k)
	}
}

func (m *Marks) remove(k model.TaskKey) {
	delete(m.set, k)
	for i, o := range m.order {
		if o == k {
			m.order = append(m.order[:i:i], m.order[i+1:]...)
			return
		}
	}
}

// All marks every key of keys; when every one of them is marked
// already, it unmarks them instead. It reports how many are marked now.
func (m *Marks) All(keys []model.TaskKey) int {
	all := len(keys) > 0
	for _, k := range keys {
		if !m.Has(k) {
			all = false
			break
		}
	}
	for _, k := range keys {
		if all {
			m.remove(k)
		} else {
			m.add(k)
		}
	}
	return m.Len()
}

// Keys are the marked tasks in the order they were marked. The slice is
// the caller's.
func (m *Marks) Keys() []model.TaskKey { return append([]model.TaskKey(nil), m.order...) }

// Clear unmarks every task.
func (m *Marks) Clear() { m.set, m.order = nil, nil }

// Keep unmarks the tasks keep rejects (a task that left the list) and
// returns how many it unmarked.
func (m *Marks) Keep(keep func(model.TaskKey) bool) int {
	n := 0
	for _, k := range m.Keys() {
		if !keep(k) {
			m.remove(k)
			n++
		}
	}
	return n
}

// Key handles the mark keys of a list: sel is the task under the cursor
// (the zero key for none) and shown every task the list shows now (called
// only for All). It reports whether msg was one of them.
func (m *Marks) Key(msg tea.KeyMsg, keys MarkKeys, sel model.TaskKey, shown func() []model.TaskKey) bool {
	switch {
	case key.Matches(msg, keys.Mark):
		if sel != (model.TaskKey{}) {
			m.Toggle(sel)
		}
	case key.Matches(msg, keys.All):
		m.All(shown())
	case key.Matches(msg, keys.Clear) && m.Len() > 0:
		m.Clear()
	default:
		return false
	}
	return true
}

// MarkGutter is what a row's gutter shows for a marked task.
const MarkGutter = "✓"

// Footnote is the counter at the start of the footer: "3 marked (esc
// unmarks) · ", or "" when nothing is marked.
func (m *Marks) Footnote(th *theme.Theme, keys MarkKeys) string {
	if m.Len() == 0 {
		return ""
	}
	return th.Marked.Render(strconv.Itoa(m.Len())+" marked") +
		th.Muted.Render(" ("+keys.Clear.Help().Key+" unmarks)") + th.HelpSep.Render(" · ")
}
