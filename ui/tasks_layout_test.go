package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
	"a2atop/ui/tasks"
)

// fleetOf is a fleet with n[0] active, n[1] interrupted, n[2] terminal
// and n[3] tasks in a state of the agent's own.
func fleetOf(n [4]int) *model.Fleet {
	f := model.NewFleet(model.Options{})
	var evs []model.Event
	k := 0
	for i, st := range []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateInputRequired, a2a.TaskStateCompleted, "TASK_STATE_PAUSED"} {
		for range n[i] {
			k++
			evs = append(evs, taskEvent("agent", a2a.TaskID(fmt.Sprintf("t%05d-0000", k)), st, time.Duration(k)*time.Second, "x"))
		}
	}
	f.Apply(evs)
	return f
}

// TestPanesGiveTheirSpareRowsToPanesThatWouldBeCut: each pane gets what
// its rows need (at least its title and a row); what is left goes to the
// panes that would be cut, and only when none is does a line stay blank,
// under the last pane. At 120x40 about 20 rows stood blank inside the
// Interrupted pane (the remainder went to the pane with most tasks).
func TestPanesGiveTheirSpareRowsToPanesThatWouldBeCut(t *testing.T) {
	counts := [][4]int{
		{2, 6, 5, 0}, {2, 6, 40, 0}, {0, 3, 100, 0}, {1, 32, 30, 0}, {0, 0, 0, 0}, {3, 0, 2, 0},
		{2, 20, 5, 0}, {50, 1, 1, 0}, {1, 2, 3, 2}, {10, 10, 10, 10}, {0, 40, 0, 0},
	}
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {120, 40}} {
		for _, n := range counts {
			m, _ := newTestModel(t, Options{Fleet: fleetOf(n)})
			sized(m, sz[0], sz[1])
			v := tasksOf(m)
			ps := v.Visible()
			cut, blank, bottom := false, 0, 0
			total := 0
			for i, p := range ps {
				total += p.H
				rows := p.RowsHeight
				shown := min(p.Count, rows)
				if p.Count > rows {
					cut = true
				}
				free := rows - max(shown, 1) // an empty pane says "no tasks"
				if i < len(ps)-1 {
					blank += free
				} else {
					bottom = free
				}
			}
			if total != v.Height() {
				t.Errorf("%v at %dx%d: the panes take %d of %d lines", n, sz[0], sz[1], total, v.Height())
			}
			if blank > 0 || cut && bottom > 0 {
				t.Errorf("%v at %dx%d: %d blank rows above the last pane, %d in it, a pane cut: %v", n, sz[0], sz[1], blank, bottom, cut)
				for _, p := range ps {
					t.Logf("  %s: %d tasks, %d rows", tasks.PaneName(p.Class), p.Count, p.RowsHeight)
				}
			}
		}
	}
}

// TestFilterMovesFocusToAPaneWithRows: a filter that leaves the focused
// pane empty moves the focus to the first pane with rows, so the keys
// act on a task the filter shows.
func TestFilterMovesFocusToAPaneWithRows(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "/", "d", "e", "p", "l", "o", "y")
	v := tasksOf(m)
	if v.Focus() != model.ClassInterrupted || v.Selected() == nil || v.Selected().Key.Agent != "deployer" {
		t.Fatalf("after /deploy the focus is on %v with %v selected", v.Focus(), v.Selected())
	}
	press(m, "esc")
	if v.Focus() != model.ClassInterrupted {
		t.Fatalf("clearing the filter moved the focus to %v", v.Focus())
	}
}
