package ui

import (
	"a2atop/ui/internal/uitest"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/detail"
)

func TestSelectionFollowsTaskWhenRowsMove(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "tab", "j") // interrupted pane, second row: deployer
	if got := tasksOf(m).Selected(); got == nil || got.Key.ID != idDeploy {
		t.Fatalf("selected %v, want the deploy task", got)
	}
	// A newer interrupted task sorts above it; the selection stays on it.
	ev := taskEvent("code-reviewer", "11110000-new", a2a.TaskStateInputRequired, 0, "another question")
	m.Update(eventsMsg{batch: []model.Event{ev}})
	if got := tasksOf(m).Selected(); got == nil || got.Key.ID != idDeploy {
		t.Fatalf("after the new row the selection is %v, want the deploy task", got)
	}
	if p := tasksOf(m).Focused(); p.Cursor != 2 {
		t.Fatalf("cursor %d, want 2 (moved down one row with its task)", p.Cursor)
	}
}

// TestSelectionStaysOnItsTaskOnTheTopRow: with the cursor on the first
// row of a pane, a task arriving above it does not take the cursor, in
// any pane, and c then asks about the task selected, by name. On the top
// row the cursor used to follow the newest task, and c opened "Cancel
// this task?" for one the operator never selected.
func TestSelectionStaysOnItsTaskOnTheTopRow(t *testing.T) {
	for _, tc := range []struct {
		keys  []string
		state a2a.TaskState
	}{
		{nil, a2a.TaskStateWorking},
		{[]string{"tab"}, a2a.TaskStateInputRequired},
		{[]string{"tab", "tab"}, a2a.TaskStateCompleted},
	} {
		m, _ := newTestModel(t, Options{})
		sized(m, 120, 40)
		press(m, tc.keys...)
		was := tasksOf(m).Selected()
		if was == nil || tasksOf(m).Focused().Cursor != 0 {
			t.Fatalf("%s: no task on the top row", tc.state)
		}
		ev := taskEvent("code-reviewer", "11110000-new", tc.state, 0, "running 12 unit tests at 9f3c2e1")
		m.Update(eventsMsg{batch: []model.Event{ev}})
		if got := tasksOf(m).Selected(); got == nil || got.Key != was.Key {
			t.Fatalf("%s: after a new task on top the selection is %v, want %v", tc.state, got, was.Key)
		}
		if p := tasksOf(m).Focused(); p.Cursor != 1 {
			t.Fatalf("%s: cursor %d, want 1 (moved down with its task)", tc.state, p.Cursor)
		}
		if was.Class == model.ClassTerminal {
			continue
		}
		press(m, "c")
		if v := m.View(); !confirming(m) || !strings.Contains(v, common.TaskName(was.Key)) || !strings.Contains(v, was.Text) ||
			strings.Contains(v, "11110000") {
			t.Fatalf("%s: c asks:\n%s\nwant the selected task %s with its status", tc.state, v, common.TaskName(was.Key))
		}
	}
}

// TestSelectedTaskLeavingSaysWhereTheCursorWent: when the selected task
// leaves its pane the cursor stays on the row, now its neighbour's, and
// the footer names the task that left and the one selected now.
func TestSelectedTaskLeavingSaysWhereTheCursorWent(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "j") // Active, second row: the running suite
	if got := tasksOf(m).Selected(); got == nil || got.Key.ID != idRunning {
		t.Fatalf("selected %v, want the running suite", got)
	}
	next := tasksOf(m).Focused().Rows[2].Key
	done := taskEvent("test-runner", idRunning, a2a.TaskStateCompleted, 0, "done")
	m.Update(eventsMsg{batch: []model.Event{done}})
	if got := tasksOf(m).Selected(); got == nil || got.Key != next {
		t.Fatalf("after the selected task ended the selection is %v, want its neighbour %v", got, next)
	}
	want := common.TaskName(model.TaskKey{Agent: "test-runner", ID: idRunning}) + " left Active (now completed); the cursor is on " + common.TaskName(next)
	if m.status.text != want {
		t.Fatalf("footer %q, want %q", m.status.text, want)
	}
	// Away from the tasks screen nothing is said about it.
	press(m, "3")
	m.status = statusLine{}
	m.Update(eventsMsg{batch: []model.Event{taskEvent(next.Agent, next.ID, a2a.TaskStateFailed, 0, "x")}})
	if m.status.text != "" {
		t.Fatalf("a hidden tasks screen said %q", m.status.text)
	}
}

func TestWaitEventsDrainsEverythingWaiting(t *testing.T) {
	ch := make(chan model.Event, 2000)
	for i := range 1500 {
		ch <- taskEvent("test-runner", a2a.TaskID("t-"+itoa(i)), a2a.TaskStateWorking, time.Duration(i)*time.Second, "x")
	}
	m, _ := newTestModel(t, Options{Events: ch})
	msg := m.waitEvents(0)().(eventsMsg)
	if len(msg.batch) != 1500 {
		t.Fatalf("batch of %d, want all 1500 waiting", len(msg.batch))
	}
	close(ch)
	if msg := m.waitEvents(0)().(eventsMsg); !msg.closed {
		t.Fatal("a closed channel was not reported")
	}
}

func TestRendersOnlyWhenSomethingChanged(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	m.View()
	m.View()
	if m.renders != 1 {
		t.Fatalf("%d renders for two Views with no change, want 1", m.renders)
	}
	// A repeated event changes nothing: no render.
	m.Update(eventsMsg{batch: fixtureEvents()[len(fixtureEvents())-3:]})
	m.View()
	if m.renders != 1 {
		t.Fatalf("a no-op batch rendered (%d renders)", m.renders)
	}
	m.Update(eventsMsg{batch: []model.Event{taskEvent("deployer", "new-1", a2a.TaskStateWorking, 0, "new")}})
	m.View()
	if m.renders != 2 {
		t.Fatalf("a change did not render (%d renders)", m.renders)
	}
}

func TestBellRingsForNewInterruptedTasks(t *testing.T) {
	for _, bell := range []bool{true, false} {
		var out bytes.Buffer
		m, _ := newTestModel(t, Options{Bell: bell, Output: &out})
		_, cmd := m.Update(eventsMsg{batch: []model.Event{
			taskEvent("code-reviewer", "q-2", a2a.TaskStateInputRequired, 0, "which file?")}})
		uitest.Run(cmd)
		if got := strings.Contains(out.String(), "\a"); got != bell {
			t.Errorf("Bell=%v: bell written = %v", bell, got)
		}
		out.Reset()
		_, cmd = m.Update(eventsMsg{batch: []model.Event{taskEvent("test-runner", "w-2", a2a.TaskStateWorking, 0, "w")}})
		uitest.Run(cmd)
		if out.Len() != 0 {
			t.Errorf("Bell=%v: a working task rang the bell", bell)
		}
	}
}

func TestCancelAsksThenShowsWhatHappened(t *testing.T) {
	clk := newClock()
	m, b := newTestModel(t, Options{Now: clk.Now})
	sized(m, 120, 40)
	press(m, "j") // the running suite
	press(m, "c")
	if !confirming(m) {
		t.Fatal("c did not ask for confirmation")
	}
	press(m, "n")
	if confirming(m) || len(b.cancels) != 0 {
		t.Fatal("n did not keep the task")
	}
	press(m, "c", "y") // y typed ahead: the confirmation is not armed yet
	if !confirming(m) || len(b.cancels) != 0 {
		t.Fatal("a y typed right after c canceled the task")
	}
	clk.add(time.Second)
	press(m, "y")
	if len(b.cancels) != 1 || b.cancels[0].ID != idRunning {
		t.Fatalf("cancels %v, want the running suite", b.cancels)
	}
	if !strings.Contains(m.status.text, "it is now canceled") {
		t.Fatalf("status %q does not say what GetTask said", m.status.text)
	}
	if task := m.ctx.Fleet.Task(model.TaskKey{Agent: "test-runner", ID: idRunning}); task.State != a2a.TaskStateCanceled {
		t.Fatalf("fleet says %s after the cancel", task.State)
	}
}

func TestCancelFailureSaysWhy(t *testing.T) {
	clk := newClock()
	m, b := newTestModel(t, Options{Now: clk.Now})
	b.cancelErr = errors.New("task cannot be canceled")
	sized(m, 120, 40)
	press(m, "j", "c")
	clk.add(time.Second)
	press(m, "y")
	if !m.status.err || !strings.Contains(m.status.text, "task cannot be canceled") ||
		!strings.Contains(m.status.text, "it is now working") {
		t.Fatalf("status %q", m.status.text)
	}
}

func TestReadOnlyHidesAndDisablesWrites(t *testing.T) {
	m, b := newTestModel(t, Options{ReadOnly: true})
	sized(m, 120, 40)
	press(m, "j", "c", "y")
	if confirming(m) || len(b.cancels) != 0 {
		t.Fatal("c worked in read-only mode")
	}
	press(m, "?")
	if v := m.View(); strings.Contains(v, "cancel") || !strings.Contains(v, "READ-ONLY") {
		t.Fatalf("read-only help shows cancel or lacks the badge:\n%s", v)
	}
}

func TestCopyWritesOSC52WithTheTaskID(t *testing.T) {
	var out bytes.Buffer
	m, _ := newTestModel(t, Options{Output: &out})
	sized(m, 120, 40)
	press(m, "Y")
	want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(idQueued))
	if !strings.Contains(out.String(), want) {
		t.Fatalf("output %q lacks %q", out.String(), want)
	}
	if !strings.Contains(m.status.text, "copied") {
		t.Fatalf("status %q", m.status.text)
	}
}

func TestFilterIsLiveAndEscClears(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "/", "d", "e", "p")
	// "dep" is in the deployer's name and in the planner's status text.
	if n := tasksOf(m).PaneOf(model.ClassInterrupted).Count; n != 2 {
		t.Fatalf("interrupted shows %d with /dep, want 2", n)
	}
	press(m, "enter")
	if tasksOf(m).Capturing() || tasksOf(m).Filter() != "dep" {
		t.Fatal("enter did not keep the filter")
	}
	press(m, "esc")
	if tasksOf(m).Filter() != "" || tasksOf(m).PaneOf(model.ClassInterrupted).Count != 4 {
		t.Fatal("esc did not clear the filter")
	}
	press(m, "/", "c", "l", "a", "s", "s", ":", "t", "e", "r", "m", "esc")
	if tasksOf(m).Filter() != "" {
		t.Fatal("esc in the prompt did not clear the filter")
	}
}

func TestCommandLine(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, ":", "a", "g", "tab") // :agent and :agents: tab completes what they share, and lists both
	if got := m.prompt.value(); got != "agent" {
		t.Fatalf(":ag<tab> is %q, want \"agent\"", got)
	}
	press(m, "s", "tab", "enter")
	if m.view != viewAgents {
		t.Fatalf("view %d after :agents<tab>, want agents", m.view)
	}
	press(m, ":", "b", "o", "g", "u", "s", "enter")
	if !m.status.err || !strings.Contains(m.status.text, "unknown command") {
		t.Fatalf("status %q", m.status.text)
	}
	press(m, ":", "i", "n", "enter")
	if !strings.Contains(m.status.text, "no inbox") {
		t.Fatalf(":inbox without an inbox: status %q", m.status.text)
	}
	m.Update(uitest.Key(":"))
	for _, k := range []string{"q", "u"} {
		m.Update(uitest.Key(k))
	}
	if _, cmd := m.Update(uitest.Key("enter")); !isQuit(cmd) {
		t.Fatal(":qu did not quit")
	}
}

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

func TestQuitAndBack(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "enter")
	if m.view != viewDetail {
		t.Fatal("enter did not open the detail")
	}
	if _, cmd := m.Update(uitest.Key("q")); isQuit(cmd) || m.view != viewTasks {
		t.Fatal("q in the detail should go back, not quit")
	}
	press(m, "3")
	if _, cmd := m.Update(uitest.Key("esc")); isQuit(cmd) || m.view != viewTasks {
		t.Fatal("esc in agents should go back")
	}
	if _, cmd := m.Update(uitest.Key("q")); !isQuit(cmd) {
		t.Fatal("q in tasks should quit")
	}
	press(m, "3")
	if _, cmd := m.Update(uitest.Key("ctrl+c")); !isQuit(cmd) {
		t.Fatal("ctrl+c should quit anywhere")
	}
}

func TestPaneKeys(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "shift+tab")
	if tasksOf(m).Focus() != model.ClassUnknown {
		t.Fatalf("shift+tab from Active focused %s, want the Unknown pane", tasksOf(m).Focus())
	}
	press(m, "tab", "G")
	if p := tasksOf(m).Focused(); p.Cursor != 2 {
		t.Fatalf("G: cursor %d, want 2", p.Cursor)
	}
	press(m, "g")
	if p := tasksOf(m).Focused(); p.Cursor != 0 {
		t.Fatalf("g: cursor %d", p.Cursor)
	}
	press(m, "pgdown", "down", "up")
	if p := tasksOf(m).Focused(); p.Cursor != 1 {
		t.Fatalf("pgdown down up k: cursor %d, want 1", p.Cursor)
	}
}

func TestMouseWheelAndClick(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	ip := tasksOf(m).PaneOf(model.ClassInterrupted)
	// Click the third row of the Interrupted pane (title, header, rows).
	y := 1 + ip.Y + 2 + 2
	m.Update(tea.MouseMsg{X: 5, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if tasksOf(m).Focus() != model.ClassInterrupted || tasksOf(m).Selected().Key.ID != idPlanner {
		t.Fatalf("click selected %v in %s", tasksOf(m).Selected().Key, tasksOf(m).Focus())
	}
	m.Update(tea.MouseMsg{X: 5, Y: y, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if c := tasksOf(m).PaneOf(model.ClassInterrupted).Cursor; c != 3 {
		t.Fatalf("wheel down: cursor %d, want 3 (clamped)", c)
	}
}

func TestDetailDropsLateAnswers(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	m.Update(uitest.Key("enter")) // fetch not run
	k := detailOf(m).Task()
	m.Update(detail.TaskLoadedMsg{Key: k, Seq: detailOf(m).Seq() - 1, Err: errors.New("old")})
	if detailOf(m).Err() != nil {
		t.Fatal("an answer to an older request was taken")
	}
	m.Update(detail.TaskLoadedMsg{Key: k, Seq: detailOf(m).Seq(), Err: errors.New("agent said no")})
	if !strings.Contains(m.View(), "GetTask failed: agent said no") {
		t.Fatal("the fetch error is not shown")
	}
}

func TestDetailFollowsReferenceAndComesBack(t *testing.T) {
	m, b := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "tab", "j", "j", "enter") // planner, which references the deploy
	if detailOf(m).Task().ID != idPlanner || len(detailOf(m).Links()) != 1 {
		t.Fatalf("detail of %v with links %v", detailOf(m).Task(), detailOf(m).Links())
	}
	press(m, "enter")
	if detailOf(m).Task() != (model.TaskKey{Agent: "deployer", ID: idDeploy}) {
		t.Fatalf("enter followed to %v", detailOf(m).Task())
	}
	if last := b.gets[len(b.gets)-1]; last.Agent != "deployer" {
		t.Fatalf("history fetched from %v", last)
	}
	press(m, "esc")
	if m.view != viewDetail || detailOf(m).Task().ID != idPlanner {
		t.Fatal("esc did not return to the planner task")
	}
	press(m, "esc")
	if m.view != viewTasks {
		t.Fatal("second esc did not return to the tasks")
	}
}

func TestAgentsViewSelectsAndLoadsCapture(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "3")
	if !strings.Contains(m.View(), "POST  ListTasks  200") {
		t.Fatal("the capture of test-runner is not shown")
	}
	press(m, "j", "j", "j", "j")
	v := m.View()
	if !strings.Contains(v, "legacy-intake — Demo legacy-intake") || !strings.Contains(v, "connection refused") ||
		!strings.Contains(v, "next retry") {
		t.Fatalf("legacy-intake card lacks health details:\n%s", v)
	}
}

func TestRunesInOneReadAreKeysOneByOne(t *testing.T) {
	m, b := newTestModel(t, Options{})
	sized(m, 120, 40)
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")})
	if p := tasksOf(m).Focused(); p.Cursor != 2 {
		t.Fatalf("\"jj\" moved the cursor to %d, want 2", p.Cursor)
	}
	// A burst ending in a dialog stops there: "cy" must not confirm.
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("cy")})
	if !confirming(m) || len(b.cancels) != 0 {
		t.Fatalf("\"cy\" in one read: confirming %v, cancels %v", confirming(m), b.cancels)
	}
}

func TestTinyTerminalsNeverBreak(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {20, 5}, {40, 10}, {60, 12}, {159, 30}, {160, 30}, {300, 80}} {
		for _, keys := range [][]string{nil, {"enter"}, {"3"}, {"?"}, {"c"}, {"/", "x"}} {
			m, _ := newTestModel(t, Options{})
			sized(m, sz[0], sz[1])
			press(m, keys...)
			uitest.CheckFrame(t, m.View(), sz[0], sz[1], false)
		}
	}
}

func TestDetailMarksStreamingArtifacts(t *testing.T) {
	m, _ := newTestModel(t, Options{Backend: nilBackend{}})
	sized(m, 120, 40)
	press(m, "j", "enter") // the running suite
	chunk := &a2a.TaskArtifactUpdateEvent{TaskID: idRunning, ContextID: "ctx-5b1d7c20", Append: true,
		Artifact: &a2a.Artifact{ID: "log", Name: "test.log", Parts: a2a.ContentParts{a2a.NewTextPart("=== pkg/a\n")}}}
	m.Update(eventsMsg{batch: []model.Event{{Kind: model.EventArtifact, Agent: "test-runner", At: testNow, Artifact: chunk}}})
	if v := m.View(); !strings.Contains(v, "test.log  streaming…") || !strings.Contains(v, "=== pkg/a") {
		t.Fatalf("the streaming log is not marked:\n%s", v)
	}
}

// nilBackend answers nothing, so the detail shows the fleet's snapshot.
type nilBackend struct{}

func (nilBackend) Get(context.Context, string, a2a.TaskID, int, bool) (*a2a.Task, error) {
	return nil, errors.New("offline")
}
func (nilBackend) Cancel(context.Context, string, a2a.TaskID) (*a2a.Task, error) {
	return nil, errors.New("offline")
}
func (nilBackend) Capture(string) []model.Exchange { return nil }

func TestMouseMotionKeepsAPendingRender(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	m.View()
	m.Update(eventsMsg{batch: []model.Event{taskEvent("deployer", "new-2", a2a.TaskStateWorking, 0, "new")}})
	m.Update(tea.MouseMsg{X: 3, Y: 3, Action: tea.MouseActionMotion})
	if !strings.Contains(m.View(), "new-2") {
		t.Fatal("mouse motion dropped the render of a change")
	}
	before := m.renders
	m.Update(tea.MouseMsg{X: 3, Y: 3, Action: tea.MouseActionMotion})
	m.View()
	if m.renders != before {
		t.Fatal("mouse motion alone rendered")
	}
}

func TestCopyInsideTmuxWritesPlainAndPassthrough(t *testing.T) {
	var out bytes.Buffer
	m, _ := newTestModel(t, Options{Output: &out})
	m.clip.Tmux = true
	sized(m, 120, 40)
	press(m, "Y")
	b64 := base64.StdEncoding.EncodeToString([]byte(idQueued))
	plain := "\x1b]52;c;" + b64 + "\x07"
	wrapped := "\x1bPtmux;\x1b\x1b]52;c;" + b64 + "\x07\x1b\\"
	if !strings.HasPrefix(out.String(), plain) || !strings.Contains(out.String(), wrapped) {
		t.Fatalf("output %q, want the plain sequence (tmux set-clipboard) and the passthrough one", out.String())
	}
}

func TestEscLeavesTheRawJSONForTheTask(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "enter", "J")
	if !detailOf(m).Raw() {
		t.Fatal("J did not show the raw JSON")
	}
	press(m, "esc")
	if m.view != viewDetail || detailOf(m).Raw() {
		t.Fatalf("esc from the raw JSON: view %d raw %v, want the task's detail", m.view, detailOf(m).Raw())
	}
	press(m, "esc")
	if m.view != viewTasks {
		t.Fatalf("second esc: view %d, want the tasks", m.view)
	}
}

func TestAgentCardSaysThingsOnce(t *testing.T) {
	f := fixtureFleet()
	f.Apply([]model.Event{{Kind: model.EventAgent, Agent: "planner", At: testNow, Info: &model.AgentInfo{CardName: "planner", ProtocolVersion: "1.0"}}})
	m, _ := newTestModel(t, Options{Fleet: f})
	sized(m, 120, 40)
	press(m, "3")
	card := agentsOf(m).Card()
	if !strings.Contains(card, "(1 stream open)") || strings.Contains(card, "streams open") {
		t.Errorf("test-runner's card: want '(1 stream open)':\n%s", card)
	}
	press(m, "j", "j", "j")
	if card := agentsOf(m).Card(); strings.Contains(card, "planner — planner") {
		t.Errorf("planner's card repeats its name:\n%s", card)
	}
}

func TestDetailTickRebuildsOnlyTheAges(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "tab", "tab", "enter") // the passed suite, with its artifacts
	before := detailOf(m).BodyBuilds()
	m.Update(tickMsg{now: testNow})
	m.Update(tickMsg{now: testNow})
	if detailOf(m).BodyBuilds() != before {
		t.Fatalf("a tick rebuilt the history and artifacts (%d -> %d builds)", before, detailOf(m).BodyBuilds())
	}
	// A new artifact on the task is shown at once.
	ev := taskEvent("test-runner", idPassed, a2a.TaskStateCompleted, time.Minute, "suite finished at 9f3c2e1")
	ev.Task.Artifacts = []*a2a.Artifact{{ID: "extra", Name: "coverage.txt", Parts: a2a.ContentParts{a2a.NewTextPart("81.2%")}}}
	m.Update(eventsMsg{batch: []model.Event{ev}})
	if v := m.View(); !strings.Contains(v, "coverage.txt") {
		t.Fatalf("the new artifact is not shown:\n%s", v)
	}
}

func TestAgentReadOnlyInConfigRefusesWrites(t *testing.T) {
	m, b := newTestModel(t, Options{})
	sized(m, 120, 40)
	m.ctx.Fleet.Apply([]model.Event{{Kind: model.EventAgent, Agent: "test-runner", Info: &model.AgentInfo{ReadOnly: true}}})
	press(m, "j", "c") // the running suite, on a read-only agent
	if confirming(m) || len(b.cancels) != 0 {
		t.Fatal("c worked on an agent configured read_only")
	}
	if !strings.Contains(m.status.text, "read-only in the config") {
		t.Fatalf("status %q does not say why", m.status.text)
	}
}

// TestKeysRightAfterEnterReachTheDetail: a screen asks for another view
// within the Update of its key, so keys typed right behind (before any
// Cmd has run) already reach the view they were meant for, as when a
// script sends "enter J".
func TestKeysRightAfterEnterReachTheDetail(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	for _, k := range []string{"enter", "J"} {
		m.Update(uitest.Key(k)) // the Cmds (GetTask) are not run
	}
	if m.view != viewDetail || !detailOf(m).Raw() {
		t.Fatalf("enter J: view %d raw %v, want the raw JSON of the task", m.view, detailOf(m).Raw())
	}
	for _, k := range []string{"esc", "esc", "j"} {
		m.Update(uitest.Key(k))
	}
	if m.view != viewTasks || tasksOf(m).Focused().Cursor != 1 {
		t.Fatalf("esc esc j: view %d cursor %d, want the tasks with the second row selected", m.view, tasksOf(m).Focused().Cursor)
	}
}

// TestCancelAnswerIsTakenOnceByItsScreen: the answer to a cancel is the
// business of the screen that sent it; an answer nobody waits for (a
// late one, or another screen's) changes nothing.
func TestCancelAnswerIsTakenOnceByItsScreen(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	sized(m, 120, 40)
	k := model.TaskKey{Agent: "test-runner", ID: idRunning}
	ts := testNow
	done := &a2a.Task{ID: idRunning, Status: a2a.TaskStatus{State: a2a.TaskStateCanceled, Timestamp: &ts}}
	m.Update(common.CancelDoneMsg{Key: k, Task: done})
	if m.status.text != "" || m.ctx.Fleet.Task(k).State != a2a.TaskStateWorking {
		t.Fatalf("an answer to no cancel: status %q, task %s", m.status.text, m.ctx.Fleet.Task(k).State)
	}
}

// TestCancelDialogClosesWhenItsTaskEnds: a task that ends while its
// cancel asks leaves nothing to cancel; the dialog closes and says so.
func TestCancelDialogClosesWhenItsTaskEnds(t *testing.T) {
	m, b := newTestModel(t, Options{})
	sized(m, 120, 40)
	press(m, "j", "c") // the running suite
	if !confirming(m) {
		t.Fatal("c did not ask")
	}
	m.Update(eventsMsg{batch: []model.Event{taskEvent("test-runner", idRunning, a2a.TaskStateCompleted, 0, "done")}})
	if confirming(m) || len(b.cancels) != 0 || !strings.Contains(m.status.text, "is completed already; nothing was sent") {
		t.Fatalf("after the task ended: confirming %v, cancels %v, footer %q", confirming(m), b.cancels, m.status.text)
	}
}

// TestDetailAtTheBottomFollowsTheLog: scrolled to the end of a streaming
// log, the detail stays at the end as chunks arrive, like tail -f; away
// from the end it stays where the person put it.
func TestDetailAtTheBottomFollowsTheLog(t *testing.T) {
	m, _ := newTestModel(t, Options{Backend: nilBackend{}})
	sized(m, 120, 24)
	press(m, "j", "enter") // the running suite
	chunk := func(i int, more bool) model.Event {
		var b strings.Builder
		for j := range 6 {
			fmt.Fprintf(&b, "--- PASS: TestChunk%02dCase%d\n", i, j)
		}
		return model.Event{Kind: model.EventArtifact, Agent: "test-runner", At: testNow, Artifact: &a2a.TaskArtifactUpdateEvent{
			TaskID: idRunning, ContextID: "ctx-5b1d7c20", Append: i > 0, LastChunk: !more,
			Artifact: &a2a.Artifact{ID: "log", Name: "test.log", Parts: a2a.ContentParts{a2a.NewTextPart(b.String())}}}}
	}
	for i := range 4 {
		m.Update(eventsMsg{batch: []model.Event{chunk(i, true)}})
	}
	press(m, "G")
	for i := 4; i < 8; i++ {
		m.Update(eventsMsg{batch: []model.Event{chunk(i, true)}})
		if v := m.View(); !strings.Contains(v, fmt.Sprintf("TestChunk%02dCase5", i)) {
			t.Fatalf("at the bottom, chunk %d is not on screen:\n%s", i, v)
		}
	}
	press(m, "g")
	m.Update(eventsMsg{batch: []model.Event{chunk(8, false)}})
	if v := m.View(); strings.Contains(v, "TestChunk08") || !strings.Contains(v, "state") {
		t.Fatalf("at the top, a new chunk moved the view:\n%s", v)
	}
}
