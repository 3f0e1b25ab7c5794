package ui

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/inbox"
)

// runLine types a command line and runs it.
func runLine(m *Model, line string) {
	press(m, ":")
	for _, r := range line {
		if r == ' ' {
			press(m, "space")
			continue
		}
		press(m, string(r))
	}
	press(m, "enter")
}

// TestCommandsTakeArguments: each command that takes an argument does
// what it says with it.
func TestCommandsTakeArguments(t *testing.T) {
	m, b := newTestModel(t, Options{})
	sized(m, 120, 40)
	runLine(m, "agent deployer")
	if m.view != viewTasks || tasksOf(m).Filter() != "agent:deployer" {
		t.Fatalf(":agent deployer: view %d filter %q", m.view, tasksOf(m).Filter())
	}
	runLine(m, "state input")
	if tasksOf(m).Filter() != "state:input" || tasksOf(m).PaneOf(model.ClassInterrupted).Count != 2 {
		t.Fatalf(":state input: filter %q", tasksOf(m).Filter())
	}
	runLine(m, "filter 9f3c2e1")
	if tasksOf(m).Filter() != "9f3c2e1" {
		t.Fatalf(":filter: %q", tasksOf(m).Filter())
	}
	runLine(m, "filter")
	if !strings.Contains(m.status.text, ":filter needs EXPR") {
		t.Fatalf(":filter alone: %q", m.status.text)
	}
	runLine(m, "sort state desc")
	if s := tasksOf(m).Sort(); s.Col() != sortCol("state") || !s.Desc() {
		t.Fatalf(":sort state desc: %s", s.Label())
	}
	tasksOf(m).Update(common.ShowTasksMsg{})
	runLine(m, "cancel 5b1d7c20")
	if !confirming(m) || tasksOf(m).Targets()[0].ID != idRunning {
		t.Fatal(":cancel ID did not ask to cancel that task")
	}
	press(m, "esc")
	if len(b.cancels) != 0 {
		t.Fatal(":cancel canceled without the confirmation")
	}
	runLine(m, "cancel 9f3c")
	if !strings.Contains(m.status.text, "already completed") {
		t.Fatalf(":cancel of an ended task: %q", m.status.text)
	}
	runLine(m, "cancel zzzz")
	if !strings.Contains(m.status.text, "no task zzzz") {
		t.Fatalf(":cancel of an unknown id: %q", m.status.text)
	}
}

// TestUnknownCommandSuggestsTheNearest: a typo says so and names the
// nearest command.
func TestUnknownCommandSuggestsTheNearest(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	for line, want := range map[string]string{"filtr x": ":filter", "jornal": ":journal", "exprt": ":export", "thme": ":theme"} {
		runLine(m, line)
		if !strings.Contains(m.status.text, "unknown command") || !strings.Contains(m.status.text, "did you mean "+want+"?") {
			t.Errorf(":%s says %q, want a suggestion of %s", line, m.status.text, want)
		}
	}
	runLine(m, "s")
	if !strings.Contains(m.status.text, "could be :state, :sort") {
		t.Errorf(":s says %q", m.status.text)
	}
}

// TestCommandCompletion: tab completes a command's argument from the
// fleet.
func TestCommandCompletion(t *testing.T) {
	m := fullModel(t)
	sized(m, 120, 40)
	press(m, ":", "a", "g", "e", "n", "t", "space", "d", "e", "p", "tab")
	if got := m.prompt.value(); got != "agent deployer" {
		t.Fatalf("tab completed %q, want \"agent deployer\"", got)
	}
	press(m, "esc", ":", "r", "e", "p", "l", "y", "space", "c", "0", "tab")
	if got := m.prompt.value(); got != "reply c0de4e71" {
		t.Fatalf("tab completed %q, want \"reply c0de4e71\" (a waiting task)", got)
	}
}

// TestSavedViews: a view opens on its key and with :view, its filter,
// sort and columns in effect; the tabs say which; 1 goes back to the
// plain tasks; the default view is open at start.
func TestSavedViews(t *testing.T) {
	views := []SavedView{
		{Name: "deploys", Filter: "agent:deployer", Sort: "state", Columns: []string{"agent", "id", "state", "status"}},
		{Name: "waiting", Filter: "class:interrupted", Sort: "age", Default: true},
	}
	if err := CheckViews(views, nil); err != nil {
		t.Fatal(err)
	}
	m, _ := newTestModel(t, Options{Views: views})
	sized(m, 120, 40)
	v := tasksOf(m)
	if v.ViewName() != "waiting" || v.Filter() != "class:interrupted" || v.Sort().Col() != sortCol("age") {
		t.Fatalf("the default view is not open at start: %q %q %s", v.ViewName(), v.Filter(), v.Sort().Label())
	}
	press(m, "5")
	if v.ViewName() != "deploys" || v.Filter() != "agent:deployer" || v.Sort().Col() != sortCol("state") || v.Shows("age") {
		t.Fatalf("5 did not open the first view: %q %q %s age shown %v", v.ViewName(), v.Filter(), v.Sort().Label(), v.Shows("age"))
	}
	if !strings.Contains(m.View(), "[5 deploys]") || strings.Contains(m.View(), " UPD") {
		t.Fatalf("the tabs or the columns are wrong:\n%s", m.View())
	}
	press(m, "1")
	if v.ViewName() != "" || v.Filter() != "" || !v.ShowsAll() {
		t.Fatal("1 did not go back to the plain tasks")
	}
	runLine(m, "view wait")
	if v.ViewName() != "waiting" {
		t.Fatalf(":view wait opened %q", v.ViewName())
	}
	runLine(m, "view nope")
	if !strings.Contains(m.status.text, "the views: deploys, waiting") {
		t.Fatalf(":view nope says %q", m.status.text)
	}
}

// TestCheckViews refuses what a view cannot be.
func TestCheckViews(t *testing.T) {
	for _, tc := range []struct {
		views []SavedView
		field string
	}{
		{[]SavedView{{Name: ""}}, "name"},
		{[]SavedView{{Name: "a"}, {Name: "a"}}, "name"},
		{[]SavedView{{Name: "tasks"}}, "name"},
		{[]SavedView{{Name: "a", Filter: "class:nope"}}, "filter"},
		{[]SavedView{{Name: "a", Filter: "stat:failed"}}, "filter"},
		{[]SavedView{{Name: "a", Filter: "state:waiting"}}, "filter"},
		{[]SavedView{{Name: "a", Filter: "agent:nosuch"}}, "filter"},
		{[]SavedView{{Name: "a", Sort: "colour"}}, "sort"},
		{[]SavedView{{Name: "a", Sort: "state sideways"}}, "sort"},
		{[]SavedView{{Name: "a", Columns: []string{"agent", "size"}}}, "columns"},
		{[]SavedView{{Name: "a", Default: true}, {Name: "b", Default: true}}, "default"},
	} {
		var ve *ViewError
		if err := CheckViews(tc.views, []string{"deployer"}); !errors.As(err, &ve) || ve.Field != tc.field {
			t.Errorf("CheckViews(%+v) = %v, want an error on %s", tc.views, err, tc.field)
		}
	}
}

// TestThemeAndExportCommands: :theme switches the colours in place,
// :export writes the journal through Options.Export and says where.
func TestThemeAndExportCommands(t *testing.T) {
	var dirs []string
	m, _ := newTestModel(t, Options{Export: func(dir string) (string, error) {
		dirs = append(dirs, dir)
		return dir + "/a2atop-journal.csv", nil
	}})
	sized(m, 120, 40)
	runLine(m, "theme light")
	if m.ctx.Theme.Dark || !strings.Contains(m.status.text, "theme: light") {
		t.Fatalf(":theme light: dark %v, %q", m.ctx.Theme.Dark, m.status.text)
	}
	runLine(m, "theme")
	if !m.ctx.Theme.Dark {
		t.Fatal(":theme alone did not switch back")
	}
	runLine(m, "export /tmp/audit")
	if len(dirs) != 1 || dirs[0] != "/tmp/audit" || !strings.Contains(m.status.text, "/tmp/audit/a2atop-journal.csv") {
		t.Fatalf(":export: %v, %q", dirs, m.status.text)
	}
}

// TestWhatAnApproveDidOutlastsTheFleetsNotices: tried over SSH as a new
// user would, "approve → deployer · 9c8bae5d: the agent took the
// message" was never drawn: the deploy left Interrupted within the same
// frame and its aside replaced the answer. The answer to what the person
// did holds against asides as an error does.
func TestWhatAnApproveDidOutlastsTheFleetsNotices(t *testing.T) {
	clk := newClock()
	m, _ := newTestModel(t, Options{Now: clk.Now})
	sized(m, 120, 40)
	took := "approve → deployer · 9c8bae5d: the agent took the message"
	m.Update(common.StatusMsg{Text: took})
	m.Update(common.StatusMsg{Text: "deployer · 9c8bae5d left Interrupted (now working); Interrupted is empty now", Aside: true})
	if m.status.text != took {
		t.Fatalf("the fleet's notice replaced what the approve did: %q", m.status.text)
	}
	if v := m.View(); !strings.Contains(v, "the agent took the message") {
		t.Fatalf("the footer does not say what the approve did:\n%s", v)
	}
	clk.add(errorHold)
	m.Update(common.StatusMsg{Text: "later", Aside: true})
	if m.status.text != "later" {
		t.Fatalf("the answer held past errorHold: %q", m.status.text)
	}
}

// TestAnErrorOutlastsTheFleetsNotices: tried as a new user would, the
// answer to a mistyped command was replaced within a second by a task
// leaving a pane. A refusal now stays against the fleet's own notices
// (Aside) until a key is pressed or errorHold passed; a newer error or
// another notice (the hub is back) replaces it at once.
func TestAnErrorOutlastsTheFleetsNotices(t *testing.T) {
	clk := newClock()
	m, _ := newTestModel(t, Options{Now: clk.Now})
	sized(m, 120, 40)
	runLine(m, "filtr")
	want := m.status.text
	if !m.status.err || !strings.Contains(want, "did you mean") {
		t.Fatalf(":filtr says %q", want)
	}
	clk.add(time.Second)
	m.Update(common.StatusMsg{Text: "test-runner · 5b1d7c20 left Active (now completed)", Aside: true})
	if m.status.text != want {
		t.Fatalf("a notice replaced the error: %q", m.status.text)
	}
	m.Update(common.StatusMsg{Text: "a newer refusal", Err: true})
	if m.status.text != "a newer refusal" {
		t.Fatalf("a newer error did not replace the older: %q", m.status.text)
	}
	m.Update(common.StatusMsg{Text: "the hub is back"})
	if m.status.text != "the hub is back" {
		t.Fatalf("a notice that is not aside did not replace the error: %q", m.status.text)
	}
	m.Update(common.StatusMsg{Text: "one more refusal", Err: true})
	press(m, "j")
	m.Update(common.StatusMsg{Text: "after a key", Aside: true})
	if m.status.text != "after a key" {
		t.Fatalf("after a key, a notice still yields to the error: %q", m.status.text)
	}
	m.Update(common.StatusMsg{Text: "refused again", Err: true})
	clk.add(errorHold)
	m.Update(common.StatusMsg{Text: "much later", Aside: true})
	if m.status.text != "much later" {
		t.Fatalf("the error held past errorHold: %q", m.status.text)
	}
	m.Update(common.StatusMsg{Text: "deployer · 9c8bae5d left Active (now completed)", Aside: true})
	if m.status.text != "deployer · 9c8bae5d left Active (now completed)" {
		t.Fatalf("a newer aside did not replace the older: %q", m.status.text)
	}
}

// TestCommandErrorGoesWithTheNextCommand: a refused command's message
// does not stay in the footer over the commands that follow and work.
func TestCommandErrorGoesWithTheNextCommand(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	runLine(m, "sort bogus")
	if !strings.Contains(m.status.text, ":sort bogus") {
		t.Fatalf(":sort bogus says %q", m.status.text)
	}
	runLine(m, "state input")
	if strings.Contains(m.status.text, "bogus") || strings.Contains(m.footer(), "bogus") {
		t.Fatalf("after :state input the footer still says %q", m.status.text)
	}
}

// TestNewTakesAStartOfAnAgentName: :new and :agent read an agent name
// the same way: a unique start is enough, several say which.
func TestNewTakesAStartOfAnAgentName(t *testing.T) {
	f := fixtureFleet()
	svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"), Sender: benchSender{f},
		Approver: "ops@host", Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	m, _ := newTestModel(t, Options{Fleet: f, Compose: inbox.ComposeFactory(svc, inbox.Options{})})
	sized(m, 120, 40)
	runLine(m, "agent dep")
	if tasksOf(m).Filter() != "agent:deployer" {
		t.Fatalf(":agent dep: filter %q", tasksOf(m).Filter())
	}
	runLine(m, "agent nosuch")
	if !strings.Contains(m.status.text, "no agent nosuch") || !strings.Contains(m.status.text, "deployer") {
		t.Fatalf(":agent nosuch says %q", m.status.text)
	}
	runLine(m, "new dep")
	if m.status.err || !strings.Contains(m.View(), "deployer") || !strings.Contains(m.View(), "New message") {
		t.Fatalf(":new dep was refused: %q\n%s", m.status.text, m.View())
	}
}

// TestCommandRefusalsSayTheOneReason: every : command that writes,
// refused, says what the context's one source of refusals says
// (common.Context.Refusal, ReadOnlyWords), so that the command line
// names the flag or the hub's role that really applies, as the keys do.
func TestCommandRefusalsSayTheOneReason(t *testing.T) {
	m, _ := newTestModel(t, Options{ReadOnly: true})
	sized(m, 120, 40)
	for line, want := range map[string]string{
		"reply c0de4e71":     m.ctx.Refusal("code-reviewer", common.RoleAnswer),
		"cancel 5b1d7c20":    m.ctx.Refusal("test-runner", common.RoleCancel),
		"follow-up 9f3c2e1a": m.ctx.Refusal("test-runner", common.RoleAnswer),
		"new deployer":       m.ctx.Refusal("deployer", common.RoleAnswer),
		"new":                m.ctx.ReadOnlyWords(""),
	} {
		runLine(m, line)
		if want == "" || m.status.text != want {
			t.Errorf(":%s says %q, want %q", line, m.status.text, want)
		}
	}
}
