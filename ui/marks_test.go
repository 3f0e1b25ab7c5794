package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
)

// TestMarksAndCancelMany: space marks rows, ctrl+a marks the focused
// pane, the footer counts them, and c cancels every marked task that can
// be canceled with one armed confirmation, skipping (and listing) the
// others; each task's answer is shown on its own row.
func TestMarksAndCancelMany(t *testing.T) {
	clk := newClock()
	m, b := newTestModel(t, Options{Now: clk.Now})
	sized(m, 120, 40)
	press(m, "space", "j", "space")
	if n := tasksOf(m).Marked(); n != 2 {
		t.Fatalf("%d marked after two spaces, want 2", n)
	}
	if f := m.footer(); !strings.Contains(f, "2 marked") {
		t.Fatalf("the footer does not count the marks: %q", f)
	}
	press(m, "space") // unmark the second
	press(m, "*")     // everything the focused pane shows
	if n := tasksOf(m).Marked(); n != 3 {
		t.Fatalf("ctrl+a/* marked %d tasks of the Active pane, want 3", n)
	}
	press(m, "tab", "tab", "space") // a terminal task: it cannot be canceled
	press(m, "c")
	if !confirming(m) {
		t.Fatal("c on marked tasks opened no confirmation")
	}
	view := m.View()
	for _, want := range []string{"Cancel 3 tasks?", "skipped (1)", "already completed", "0a0b0c0d", "5b1d7c20", "bad0bad0"} {
		if !strings.Contains(view, want) {
			t.Errorf("the confirmation does not show %q:\n%s", want, view)
		}
	}
	press(m, "y") // typed ahead: not armed yet
	if len(b.cancels) != 0 {
		t.Fatal("a y before the dialog armed canceled")
	}
	clk.add(time.Second)
	press(m, "y")
	if len(b.cancels) != 3 {
		t.Fatalf("one y sent %d cancels, want 3 (one per task): %v", len(b.cancels), b.cancels)
	}
	seen := map[model.TaskKey]int{}
	for _, k := range b.cancels {
		seen[k]++
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%v was canceled %d times", k, n)
		}
	}
	view = m.View()
	if !strings.Contains(view, "3 sent") || !strings.Contains(view, "1 skipped") {
		t.Fatalf("the outcomes are not shown task by task:\n%s", view)
	}
	if tasksOf(m).Marked() != 4 {
		t.Fatalf("the marks were dropped by the cancel (%d left); they stay until unmarked", tasksOf(m).Marked())
	}
	press(m, "esc") // closes the outcomes
	press(m, "esc") // unmarks
	if tasksOf(m).Marked() != 0 || tasksOf(m).ShowingResults() {
		t.Fatal("esc did not close the outcomes, then unmark")
	}
}

// TestMarkedTasksGoToTheInbox: a, d and r on tasks marked in the tasks
// view hand them to the inbox as one answer.
func TestMarkedTasksGoToTheInbox(t *testing.T) {
	rec := &recorder{}
	m, _ := newTestModel(t, Options{Inbox: func(common.Context) common.Component { return rec }})
	sized(m, 120, 40)
	press(m, "tab", "j", "space", "j", "space", "a")
	if m.view != viewInbox {
		t.Fatalf("a on marked tasks did not show the inbox (view %d)", m.view)
	}
	var d common.DecideMsg
	if rec.count(func(msg tea.Msg) bool {
		if x, ok := msg.(common.DecideMsg); ok {
			d = x
			return true
		}
		return false
	}) != 1 || d.Kind != approvals.KindApprove || len(d.Keys) != 2 {
		t.Fatalf("the inbox got %#v, want one approve of 2 tasks", d)
	}
	if tasksOf(m).Marked() != 0 {
		t.Fatal("the tasks view kept marks it handed to the inbox")
	}
}

// TestMarksAreAbsentInReadOnly: marking serves only actions that write.
func TestMarksAreAbsentInReadOnly(t *testing.T) {
	m, _ := newTestModel(t, Options{ReadOnly: true})
	sized(m, 120, 40)
	press(m, "space", "*")
	if n := tasksOf(m).Marked(); n != 0 {
		t.Fatalf("read-only marked %d tasks", n)
	}
}
