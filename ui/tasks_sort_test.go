package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// paneIDs are the short ids of a pane's visible rows, in order.
func paneIDs(m *Model, c model.Class) []string {
	var out []string
	for _, t := range tasksOf(m).PaneOf(c).Rows {
		out = append(out, model.ShortID(t.Key.ID))
	}
	return out
}

// TestSortByEveryColumn: each column's key sorts the panes by it, again
// reverses it, and < > move between columns; the selection stays on its
// task.
func TestSortByEveryColumn(t *testing.T) {
	clk := newClock()
	m, _ := newTestModel(t, Options{Now: clk.Now})
	sized(m, 200, 50)
	for _, tc := range []struct {
		keys []string
		pane model.Class
		want []string
	}{
		{nil, model.ClassTerminal, []string{"9f3c2e1a", "7e7ec7ed", "deadbee0"}},                          // newest first
		{[]string{"U"}, model.ClassTerminal, []string{"deadbee0", "7e7ec7ed", "9f3c2e1a"}},                // reversed: oldest first
		{[]string{"O"}, model.ClassTerminal, []string{"deadbee0", "7e7ec7ed", "9f3c2e1a"}},                // by age, oldest first
		{[]string{"S"}, model.ClassTerminal, []string{"9f3c2e1a", "deadbee0", "7e7ec7ed"}},                // completed, failed, rejected
		{[]string{"S"}, model.ClassTerminal, []string{"7e7ec7ed", "deadbee0", "9f3c2e1a"}},                // reversed
		{[]string{"I"}, model.ClassTerminal, []string{"7e7ec7ed", "9f3c2e1a", "deadbee0"}},                // by id
		{[]string{"A"}, model.ClassInterrupted, []string{"c0de4e71", "23cf3710", "e3a11000", "91a4e2b0"}}, // by agent name
		{[]string{"T"}, model.ClassInterrupted, []string{"23cf3710", "91a4e2b0", "e3a11000", "c0de4e71"}}, // by status text
		{[]string{"<"}, model.ClassInterrupted, []string{"e3a11000", "23cf3710", "91a4e2b0", "c0de4e71"}}, // to AGE: oldest first
	} {
		press(m, tc.keys...)
		clk.add(2 * time.Second) // a pane sorted here is sorted again after tasks.ResortEvery
		resort(m)
		if got := paneIDs(m, tc.pane); !slices.Equal(got, tc.want) {
			t.Errorf("after %v (%s): %v, want %v", tc.keys, tasksOf(m).Sort().Label(), got, tc.want)
		}
	}
}

// TestSortedHereFollowsTheFleet: a pane sorted by a column the model has
// no index for takes in new tasks once tasks.ResortEvery has passed.
func TestSortedHereFollowsTheFleet(t *testing.T) {
	clk := newClock()
	m, _ := newTestModel(t, Options{Now: clk.Now})
	sized(m, 200, 50)
	press(m, "I")
	n := tasksOf(m).PaneOf(model.ClassActive).Count
	m.Update(eventsMsg{batch: []model.Event{taskEvent("test-runner", "00000000-new", a2a.TaskStateWorking, time.Second, "new")}})
	clk.add(2 * time.Second)
	m.Update(eventsMsg{batch: []model.Event{taskEvent("test-runner", "00000000-new", a2a.TaskStateWorking, 0, "newer")}})
	if got := tasksOf(m).PaneOf(model.ClassActive).Count; got != n+1 {
		t.Fatalf("the Active pane sorted by id holds %d tasks, want %d", got, n+1)
	}
	if ids := paneIDs(m, model.ClassActive); ids[0] != "00000000" {
		t.Fatalf("the new task is not first by id: %v", ids)
	}
}

// TestZoomAndHideTerminal: z shows the focused pane alone (tab moves the
// zoom), again all panes; hide_terminal_after keeps what ended long ago
// off the Terminal pane and says how many it hides.
func TestZoomAndHideTerminal(t *testing.T) {
	m, _ := newTestModel(t, Options{HideTerminalAfter: 30 * time.Minute})
	sized(m, 120, 40)
	v := tasksOf(m)
	if got := v.PaneOf(model.ClassTerminal).Count; got != 2 {
		t.Fatalf("the Terminal pane holds %d tasks with hide_terminal_after 30m, want 2 (the failed one is 2h old)", got)
	}
	if !strings.Contains(m.View(), "(+1 older than 30m hidden)") {
		t.Fatal("the Terminal pane does not say what it hides")
	}
	press(m, "z")
	if ps := v.Visible(); len(ps) != 1 || ps[0].Class != model.ClassActive {
		t.Fatalf("z drew %d panes, want the Active pane alone", len(ps))
	}
	press(m, "tab")
	if ps := v.Visible(); len(ps) != 1 || ps[0].Class != model.ClassInterrupted {
		t.Fatal("tab did not move the zoom to the next pane")
	}
	press(m, "z")
	if len(v.Visible()) < 3 {
		t.Fatal("z again did not bring back every pane")
	}
}

// TestEnterOnAnAgentOpensItsTasks: enter in the agents view shows the
// tasks filtered to that agent.
func TestEnterOnAnAgentOpensItsTasks(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "3", "j", "j", "enter")
	if m.view != viewTasks || tasksOf(m).Filter() != "agent:deployer" {
		t.Fatalf("view %d, filter %q: want the tasks of deployer", m.view, tasksOf(m).Filter())
	}
}

// TestSearchInTheDetail: / in the detail searches its text (every line
// stays), n and N move between the lines that hold it, J searches the
// raw JSON, and esc clears the search before it leaves.
func TestSearchInTheDetail(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "tab", "tab", "enter", "/", "s", "u", "i", "t", "e", "enter")
	d := detailOf(m)
	if len(d.SearchLines()) != 2 || d.SearchLine() != d.SearchLines()[0] {
		t.Fatalf("search \"suite\" found lines %v (current %d), want 2", d.SearchLines(), d.SearchLine())
	}
	if f := m.footer(); !strings.Contains(f, "search suite in this task: 1/2 lines") {
		t.Fatalf("the footer does not say it searches the task: %q", f)
	}
	press(m, "n")
	if d.SearchCurrent() != 1 {
		t.Fatal("n did not move to the next match")
	}
	press(m, "n")
	if d.SearchCurrent() != 0 {
		t.Fatal("n did not wrap to the first match")
	}
	press(m, "N")
	if d.SearchCurrent() != 1 {
		t.Fatal("N did not move back")
	}
	press(m, "J")
	if len(d.SearchLines()) == 0 || !strings.Contains(m.footer(), "in the raw JSON") {
		t.Fatalf("the raw JSON was not searched: %v %q", d.SearchLines(), m.footer())
	}
	press(m, "esc")
	if d.Searching() || !d.Raw() || m.view != viewDetail {
		t.Fatal("esc did not clear the search first")
	}
}

// TestAgentsSortByColumn: the agents list sorts by its columns too.
func TestAgentsSortByColumn(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "3", "N")
	names := func() []string {
		var out []string
		for _, a := range agentsOf(m).Listed() {
			out = append(out, a.Name)
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"code-reviewer", "deployer", "legacy-intake", "planner", "test-runner"}) {
		t.Fatalf("by name: %v", got)
	}
	press(m, "A")
	if got := names(); got[0] != "test-runner" {
		t.Fatalf("by active tasks, most first: %v", got)
	}
	if !strings.Contains(m.View(), "sorted by active ↓") {
		t.Fatal("the list's title does not say how it is sorted")
	}
}
