package ui

import (
	"a2atop/ui/internal/uitest"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
	"a2atop/ui/common"
)

// recorder is a Component that records what the root sends it.
type recorder struct {
	ctx       common.Context
	msgs      []tea.Msg
	capturing bool
	w, h      int
}

func (r *recorder) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	r.msgs = append(r.msgs, msg)
	if k, ok := msg.(tea.KeyMsg); ok && k.Type == tea.KeyEsc && !r.capturing {
		return r, func() tea.Msg { return common.BackMsg{} }
	}
	return r, nil
}
func (r *recorder) View() string     { return "recorder view " + itoa(len(r.msgs)) }
func (r *recorder) SetSize(w, h int) { r.w, r.h = w, h }
func (r *recorder) ShortHelp() []key.Binding {
	return []key.Binding{key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "approve"))}
}
func (r *recorder) FullHelp() [][]key.Binding { return [][]key.Binding{r.ShortHelp()} }
func (r *recorder) Capturing() bool           { return r.capturing }

func (r *recorder) count(pred func(tea.Msg) bool) int {
	n := 0
	for _, m := range r.msgs {
		if pred(m) {
			n++
		}
	}
	return n
}

func TestInboxComponentIsWired(t *testing.T) {
	var rec *recorder
	m, _ := newTestModel(t, Options{Inbox: func(c common.Context) common.Component {
		rec = &recorder{ctx: c}
		return rec
	}})
	sized(m, 120, 40)
	if rec.ctx.Fleet != m.ctx.Fleet || rec.w != 120 || rec.h != 38 {
		t.Fatalf("component got context %+v and size %dx%d", rec.ctx, rec.w, rec.h)
	}
	press(m, "2")
	if m.view != viewInbox || !strings.Contains(m.View(), "recorder view") || !strings.Contains(m.View(), "approve") {
		t.Fatal("2 does not show the inbox with its help")
	}
	m.Update(eventsMsg{batch: []model.Event{taskEvent("code-reviewer", "q-9", a2a.TaskStateInputRequired, 0, "?")}})
	if rec.count(func(m tea.Msg) bool { _, ok := m.(common.FleetChangedMsg); return ok }) != 1 {
		t.Fatal("the inbox was not told the fleet changed")
	}
	rec.capturing = true
	if _, cmd := m.Update(uitest.Key("q")); isQuit(cmd) || m.view != viewInbox {
		t.Fatal("q while the inbox is capturing text left the inbox")
	}
	rec.capturing = false
	press(m, "esc")
	if m.view != viewTasks {
		t.Fatal("BackMsg from the inbox did not go back")
	}
	press(m, "tab", "g", "r") // interrupted pane, top row: the newest, q-9
	if m.view != viewInbox {
		t.Fatal("r did not open the inbox")
	}
	last := rec.msgs[len(rec.msgs)-1]
	if r, ok := last.(common.ReplyToMsg); !ok || r.Key.ID != "q-9" {
		t.Fatalf("the inbox got %#v, want ReplyToMsg for q-9", last)
	}
}

func TestReplyNeedsAnInterruptedTask(t *testing.T) {
	m, _ := newTestModel(t, Options{Inbox: func(c common.Context) common.Component { return &recorder{ctx: c} }})
	sized(m, 120, 40)
	press(m, "r") // an active task
	if m.view != viewTasks || !strings.Contains(m.status.text, "only interrupted") {
		t.Fatalf("r on an active task: view %d, status %q", m.view, m.status.text)
	}
}

// sentMsg stands for the answer to one of a component's own Cmds.
type sentMsg struct{}

func TestComponentAnswersReachHiddenComponents(t *testing.T) {
	var inbox, journal *recorder
	m, _ := newTestModel(t, Options{
		Inbox:   func(c common.Context) common.Component { inbox = &recorder{ctx: c}; return inbox },
		Journal: func(c common.Context) common.Component { journal = &recorder{ctx: c}; return journal },
	})
	sized(m, 120, 40)
	press(m, "3") // agents: neither component is shown
	m.Update(sentMsg{})
	is := func(m tea.Msg) bool { _, ok := m.(sentMsg); return ok }
	if inbox.count(is) != 1 || journal.count(is) != 1 {
		t.Fatal("an answer for a hidden component was dropped")
	}
}

func TestMouseReachesComponentsInTheirOwnCells(t *testing.T) {
	var rec *recorder
	m, _ := newTestModel(t, Options{Inbox: func(c common.Context) common.Component {
		rec = &recorder{ctx: c}
		return rec
	}})
	sized(m, 120, 40)
	press(m, "2")
	m.Update(tea.MouseMsg{X: 7, Y: 5, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	last, ok := rec.msgs[len(rec.msgs)-1].(tea.MouseMsg)
	if !ok || last.Y != 4 || last.X != 7 {
		t.Fatalf("the inbox got %#v, want the click at its line 4 (screen line 5 under the header)", rec.msgs[len(rec.msgs)-1])
	}
}

// TestCancelAnswerReachesEveryScreen: the task a cancel returned enters
// the fleet the way a watcher batch does, so the inbox hears of it too.
func TestCancelAnswerReachesEveryScreen(t *testing.T) {
	var rec *recorder
	clk := newClock()
	m, b := newTestModel(t, Options{Now: clk.Now, Inbox: func(c common.Context) common.Component {
		rec = &recorder{ctx: c}
		return rec
	}})
	sized(m, 120, 40)
	press(m, "tab", "c") // the newest interrupted task
	clk.add(time.Second)
	press(m, "y")
	if len(b.cancels) != 1 {
		t.Fatalf("cancels %v", b.cancels)
	}
	changed := rec.count(func(m tea.Msg) bool { c, ok := m.(common.FleetChangedMsg); return ok && len(c.Result.Left) == 1 })
	if changed != 1 {
		t.Fatalf("the inbox heard %d times that the canceled task left the interrupted set, want once", changed)
	}
}
