package tasks

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"a2atop/model"
	"a2atop/ui/common"
)

// columns are the widths of a row's cells; 0 drops a cell. With merged,
// one cell carries the hint and then the text; without it, a hint of 0
// means no row shows a hint and the text takes the room.
type columns struct {
	agent, id, state, age, text, hint int
	merged                            bool
}

const (
	idWidth  = common.IDWidth
	ageWidth = 4
	minText  = 40 // text + hint side by side from here
	// minStatus is the status the other cells give way to: below it the
	// age goes, then long agent names and states are cut.
	minStatus = 10
	// minIDStatus is the status below which the id goes too.
	minIDStatus = 4
	// minStateWidth is as far as a long (unknown) state is cut.
	minStateWidth = len("input-required")
	// maxHintWidth bounds the hint column ("gone: agent no longer knows
	// this task" fits).
	maxHintWidth = 40
)

// rowStateText is the state a row shows: "gone" for a task its agent no
// longer knows (it sits among the finished ones; the detail view keeps
// its last state), else stateText.
func rowStateText(t *model.Task) string {
	if t.Gone {
		return "gone"
	}
	return common.StateText(t.State)
}

// stateWidthOf is a pane's state column: the longest state its class
// holds, so Active and Terminal give five more cells to the text than
// Interrupted ("input-required"). The Unknown pane measures its visible
// rows: an unexpected state is what a person needs to read there.
func stateWidthOf(p *pane) int {
	switch p.class {
	case model.ClassActive, model.ClassTerminal:
		return len("submitted") // and "completed"
	case model.ClassInterrupted:
		return len("input-required")
	}
	w := len("unknown")
	for _, t := range p.rows {
		w = max(w, ansi.StringWidth(common.StateText(t.State)))
	}
	return w
}

// columnSet names columns a saved view leaves out; the status always
// shows.
type columnSet uint8

const (
	showAgent columnSet = 1 << iota
	showID
	showState
	showAge
	showHint
	showAll = showAgent | showID | showState | showAge | showHint
)

// columnNames are the columns a saved view may list, as it writes them.
var columnNames = map[string]columnSet{"agent": showAgent, "id": showID, "state": showState, "age": showAge,
	"updated": showAge, "hint": showHint, "status": 0}

// columnsFor fits the cells into w cells: the cursor gutter, the cells
// and the spaces between them. hintW is the widest hint of the visible
// rows (0: none has one). show leaves out the columns it lacks.
func columnsFor(w, agentW, stateW, hintW int, show columnSet) columns {
	c := columns{agent: agentW, id: idWidth, state: stateW, age: ageWidth}
	for _, h := range []struct {
		bit  columnSet
		cell *int
	}{{showAgent, &c.agent}, {showID, &c.id}, {showState, &c.state}, {showAge, &c.age}, {showHint, &hintW}} {
		if show&h.bit == 0 {
			*h.cell = 0
		}
	}
	fixed := func() int {
		n := 1 + c.agent + c.state
		if c.agent > 0 {
			n++
		}
		if c.state > 0 {
			n++
		}
		if c.id > 0 {
			n += c.id + 1
		}
		if c.age > 0 {
			n += c.age + 1
		}
		return n
	}
	// The status narrows first, to minStatus; then the age goes, a long
	// agent name and a long unknown state are cut, and the id, which the
	// commands take, goes last, in a pane too narrow for any status.
	short := func() bool { return w-fixed() < minStatus }
	if short() {
		c.age = 0
	}
	if short() && c.agent > 8 {
		c.agent = 8
	}
	if need := minStatus - (w - fixed()); need > 0 && c.state > minStateWidth {
		c.state = max(minStateWidth, c.state-need)
	}
	if w-fixed() < minIDStatus {
		c.id = 0
	}
	rest := max(w-fixed(), 0)
	switch {
	case hintW == 0:
		c.text = rest
	case rest >= minText+2:
		c.hint = min(hintW, maxHintWidth, rest*2/5)
		c.text = rest - c.hint - 1
	default:
		c.merged, c.text = true, rest
	}
	return c
}

// total is the width of a row's cells after the gutter.
func (c columns) total() int {
	n := c.agent + c.state + c.text
	if c.agent > 0 {
		n++
	}
	if c.state > 0 {
		n++
	}
	if c.id > 0 {
		n += c.id + 1
	}
	if c.age > 0 {
		n += c.age + 1
	}
	if !c.merged && c.hint > 0 {
		n += c.hint + 1
	}
	return n
}

// headerRow names the columns, the one sorted by with its arrow (the
// age column's name, age, carries its own).
func headerRow(c columns, s common.Sort, age string) string {
	var cells []string
	if c.agent > 0 {
		cells = append(cells, common.Pad(s.Mark(colAgent, "AGENT"), c.agent))
	}
	if c.id > 0 {
		cells = append(cells, common.Pad(s.Mark(colID, "ID"), c.id))
	}
	if c.state > 0 {
		cells = append(cells, common.Pad(s.Mark(colState, "STATE"), c.state))
	}
	if c.age > 0 {
		cells = append(cells, common.PadLeft(age, c.age))
	}
	status := s.Mark(colStatus, "STATUS")
	if c.merged {
		status = s.Mark(colHint, status)
	}
	cells = append(cells, common.Pad(status, c.text))
	if !c.merged && c.hint > 0 {
		cells = append(cells, common.Pad(s.Mark(colHint, "HINT"), c.hint))
	}
	return " " + strings.Join(cells, " ")
}
