package tasks

import (
	"strings"

	"a2atop/ui/common"
)

// What the root's :sort, its completion and CheckViews ask of the
// screen's columns. The names and first directions are the screen's
// own, the same whatever keys [keys] binds.

// SortNames are the columns the panes sort by, lower case, in header
// order: "agent", "id", "state", "upd", "age", "status", "hint".
func SortNames() []string {
	s := defaultSort()
	return s.Names()
}

// SortNamed is the column name names (a unique start of it, any case)
// and the direction it sorts in first; ok is false when it names none.
func SortNamed(name string) (col int, desc bool, ok bool) {
	s := defaultSort()
	col, ok = s.Named(name)
	if !ok {
		return 0, false, false
	}
	return col, DefaultSortKeys().columns()[col].Desc, true
}

// IsColumn reports whether name (any case) is a column a saved view may
// list: agent, id, state, age (or updated), status, hint.
func IsColumn(name string) bool {
	_, ok := columnNames[strings.ToLower(name)]
	return ok
}

// defaultSort is a sort over the panes' columns, by the last update.
func defaultSort() common.Sort { return common.NewSort(DefaultSortKeys().columns(), colUpdated) }
