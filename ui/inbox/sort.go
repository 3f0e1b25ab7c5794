package inbox

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
)

// The columns the inbox sorts by, in the order its rows show them.
const (
	colAgent = iota
	colID
	colState
	colAge
	colUpdated
	colText
)

// SortKeys sort the inbox by one column (shift and the column's letter;
// again reverses), as on the tasks screen.
type SortKeys struct {
	Agent, ID, State, Age, Updated, Text key.Binding
}

// DefaultSortKeys are A, I, S, O (oldest), U and T.
func DefaultSortKeys() SortKeys {
	b := func(k, desc string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, desc)) }
	return SortKeys{Agent: b("A", "sort by agent"), ID: b("I", "sort by id"), State: b("S", "sort by state"),
		Age: b("O", "sort by waiting time (oldest)"), Updated: b("U", "sort by last update"), Text: b("T", "sort by question")}
}

func (k SortKeys) columns() []common.SortColumn {
	return []common.SortColumn{{Name: "AGENT", Key: k.Agent, Indexed: true, By: model.SortAgent}, {Name: "ID", Key: k.ID}, {Name: "STATE", Key: k.State},
		{Name: "AGE", Key: k.Age, Desc: true, Indexed: true, By: model.SortAge},
		{Name: "UPD", Key: k.Updated, Desc: true, Indexed: true, By: model.SortUpdated}, {Name: "TEXT", Key: k.Text}}
}

// queueSort is the order the queue is asked for: the model's for the
// columns it keeps, newest first for the others (sorted here).
func (m *Inbox) queueSort() model.SortBy {
	by, _ := m.order.ModelOrder()
	return by
}

// ordered puts the queue's chains in the order of the sort: the model's
// order, reversed when asked, or sorted here by the text of each
// chain's asking task (id, state, question), the queue's order breaking
// ties. A chain stays whole, root to leaf.
func (m *Inbox) ordered(items []approvals.Item) []approvals.Item {
	col := m.order.Col()
	_, native := m.order.ModelOrder()
	if native && !m.order.Reversed() {
		return items
	}
	var groups [][]approvals.Item
	for i := 0; i < len(items); {
		j := i + 1
		for j < len(items) && items[j].Leaf == items[i].Leaf {
			j++
		}
		groups = append(groups, items[i:j])
		i = j
	}
	if native {
		slices.Reverse(groups)
	} else {
		desc := m.order.Desc()
		slices.SortStableFunc(groups, func(a, b []approvals.Item) int {
			c := strings.Compare(groupText(a, col), groupText(b, col))
			if desc {
				return -c
			}
			return c
		})
	}
	out := make([]approvals.Item, 0, len(items))
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// groupText is what a chain sorts by: its asking task's column.
func groupText(g []approvals.Item, col int) string {
	t := g[len(g)-1].Leaf
	if t == nil {
		t = g[len(g)-1].Task
	}
	switch col {
	case colID:
		return model.ShortID(t.Key.ID)
	case colState:
		return string(t.State)
	}
	return strings.ToLower(t.Text)
}

// sortLabel is how the title names the order.
func (m *Inbox) sortLabel() string {
	if !m.order.Reversed() {
		switch m.order.Col() {
		case colAge:
			return "oldest first"
		case colAgent:
			return "by agent"
		case colUpdated:
			return "newest first"
		}
	}
	return m.order.Label()
}

// nextOrder is the o key: oldest first, by agent, newest first.
func (m *Inbox) nextOrder() {
	switch m.order.Col() {
	case colAge:
		m.order.Set(colAgent, false)
	case colAgent:
		m.order.Set(colUpdated, true)
	default:
		m.order.Set(colAge, true)
	}
}
