package ui

import (
	"a2atop/ui/internal/uitest"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
)

// goldenSizes are the terminal sizes every screen is checked at.
var goldenSizes = [][2]int{{80, 24}, {120, 40}, {200, 50}}

// goldenScreens are the screens, the keys that reach them from the
// start, and text that shows once they are drawn.
var goldenScreens = []struct {
	name     string
	keys     []string
	wait     string
	readOnly bool
	hide     time.Duration // Options.HideTerminalAfter
	views    bool          // with goldenViews
	events   func() []model.Event
}{
	{"tasks", nil, "Terminal 3", false, 0, false, nil},
	{"detail", []string{"tab", "tab", "enter"}, "History (2", false, 0, false, nil},
	{"detail_raw", []string{"tab", "enter", "J"}, "raw JSON", false, 0, false, nil},
	{"detail_link", []string{"tab", "j", "j", "enter"}, "References", false, 0, false, nil},
	{"agents", []string{"3"}, "Raw exchanges", false, 0, false, nil},
	{"help", []string{"?"}, "Keys", false, 0, false, nil},
	{"filter", []string{"/", "d", "e", "p"}, "/dep", false, 0, false, nil},
	{"cmdline", []string{":", "a", "g"}, ":ag", false, 0, false, nil},
	{"cancel_confirm", []string{"c"}, "CancelTask", false, 0, false, nil},
	{"hostile_detail", []string{"j", "j", "enter"}, "History (2", false, 0, false, nil},
	{"tasks_read_only", nil, "READ-ONLY", true, 0, false, nil},
	{"help_read_only", []string{"?"}, "Keys", true, 0, false, nil},
	{"marks", []string{"space", "j", "space"}, "2 marked", false, 0, false, nil},
	{"sort_state", []string{"S"}, "STATE↑", false, 0, false, nil},
	{"sort_id_reversed", []string{"I", "I"}, "ID↓", false, 0, false, nil},
	{"zoom", []string{"tab", "z"}, "all panes", false, 0, false, nil},
	{"agents_zoom", []string{"3", "z"}, "the list", false, 0, false, nil},
	{"detail_search", []string{"tab", "tab", "enter", "/", "s", "u", "i", "t", "e", "enter", "n"}, "2/", false, 0, false, nil},
	{"detail_raw_search", []string{"tab", "tab", "enter", "J", "/", "p", "a", "s", "s", "e", "d"}, "search: passed", false, 0, false, nil},
	{"hide_terminal", nil, "older than 30m hidden", false, 30 * time.Minute, false, nil},
	{"cancel_many", []string{"space", "j", "space", "c"}, "Cancel 2 tasks?", false, 0, false, nil},
	{"cancel_results", []string{"space", "j", "space", "c", "+", "y"}, "2 sent", false, 0, false, nil},
	{"views", []string{"5"}, "[5 deploys]", false, 0, true, nil},
	{"cmdline_arg", []string{":", "a", "g", "e", "n", "t", "space", "d"}, ":agent d", false, 0, false, nil},
	{"cmdline_list", []string{":", "tab"}, "choices", false, 0, false, nil},
	{"cmdline_ambiguous", []string{":", "s", "tab"}, "2 choices", false, 0, false, nil},
	{"unknown_command", []string{":", "f", "i", "l", "t", "r", "enter"}, "did you mean", false, 0, false, nil},
	{"agents_activity", []string{"3"}, "in the last hour · peak 12/min", false, 0, false, activityEvents},
	{"detail_timeline", []string{"j", "j", "j", "enter"}, "streaming: 5 chunks", false, 0, false, timelineEvents},
}

// activityEvents are an hour of events from test-runner (and a few
// from deployer), minute by minute: the agents view's sparklines.
func activityEvents() []model.Event {
	var evs []model.Event
	for i := range 60 {
		at := testNow.Add(-time.Duration(59-i) * time.Minute)
		for range (i * 7) % 13 {
			ev := taskEvent("test-runner", idRunning, a2a.TaskStateWorking, 10*time.Minute, "running full suite")
			ev.At = at
			evs = append(evs, ev)
		}
		if i%10 == 0 {
			ev := taskEvent("deployer", idDeploy, a2a.TaskStateAuthRequired, 10*time.Minute, "approve deploy of 9f3c2e1 to staging?")
			ev.At = at
			evs = append(evs, ev)
		}
	}
	return evs
}

// goldenCalls are test-runner's last calls, for the latency sparkline.
func goldenCalls() []model.Exchange {
	var xs []model.Exchange
	for i, ms := range []int{12, 9, 14, 40, 11, 10, 95, 13} {
		xs = append(xs, model.Exchange{At: testNow.Add(-time.Duration(8-i) * time.Second), Method: "POST", URL: "http://127.0.0.1:7001/",
			RPC: "ListTasks", Status: 200, Duration: time.Duration(ms) * time.Millisecond})
	}
	return xs
}

// timelineEvents are a task that went submitted, working, input-required
// and working again, and streams a log: the detail's timeline and
// progress line.
func timelineEvents() []model.Event {
	const id a2a.TaskID = "71e11e00-0000-4000-8000-00000000000c"
	evs := []model.Event{taskEvent("test-runner", id, a2a.TaskStateSubmitted, 9*time.Minute, "queued")}
	for _, s := range []struct {
		state a2a.TaskState
		ago   time.Duration
		text  string
	}{{a2a.TaskStateWorking, 8 * time.Minute, "building"}, {a2a.TaskStateInputRequired, 6 * time.Minute, "which shard?"},
		{a2a.TaskStateWorking, 3 * time.Minute, "running shard 2 of 4"}} {
		ts := testNow.Add(-s.ago)
		msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(s.text))
		evs = append(evs, model.Event{Kind: model.EventStatus, Agent: "test-runner", Source: model.SourceStream, At: ts,
			Status: &a2a.TaskStatusUpdateEvent{TaskID: id, ContextID: "ctx-71e11e00", Status: a2a.TaskStatus{State: s.state, Timestamp: &ts, Message: msg}}})
	}
	for i := range 5 {
		evs = append(evs, model.Event{Kind: model.EventArtifact, Agent: "test-runner", Source: model.SourceStream,
			At: testNow.Add(-3*time.Minute + time.Duration(i)*40*time.Second),
			Artifact: &a2a.TaskArtifactUpdateEvent{TaskID: id, Append: i > 0, Artifact: &a2a.Artifact{ID: "log", Name: "log.txt",
				Parts: a2a.ContentParts{a2a.NewTextPart(strings.Repeat("ok ", 100) + "\n")}}}})
	}
	return evs
}

// goldenViews are the saved views of the "views" golden.
var goldenViews = []SavedView{
	{Name: "deploys", Filter: "agent:deployer", Sort: "state", Columns: []string{"agent", "id", "state", "status"}},
	{Name: "waiting", Filter: "class:interrupted", Sort: "age desc"},
}

// clocked is the dashboard with a clock a golden moves: "+" moves it a
// second, so that a confirmation arms.
type clocked struct {
	*Model
	clk *clock
}

type advanceMsg struct{}

func (c clocked) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(advanceMsg); ok {
		c.clk.add(time.Second)
		return c, nil
	}
	_, cmd := c.Model.Update(msg)
	return c, cmd
}

// TestGolden runs the dashboard in teatest for every screen and size and
// compares the final frame with testdata (go test -update rewrites).
func TestGolden(t *testing.T) {
	for _, sc := range goldenScreens {
		for _, sz := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				clk := newClock()
				o := Options{ReadOnly: sc.readOnly, Now: clk.Now, HideTerminalAfter: sc.hide}
				if sc.views {
					o.Views = goldenViews
				}
				m, b := newTestModel(t, o)
				if sc.events != nil {
					m.Update(eventsMsg{batch: sc.events()})
					b.captures["test-runner"] = goldenCalls()
				}
				tm := teatest.NewTestModel(t, clocked{m, clk}, teatest.WithInitialTermSize(sz[0], sz[1]))
				for _, k := range sc.keys {
					if k == "+" {
						tm.Send(advanceMsg{})
						continue
					}
					tm.Send(uitest.Key(k))
				}
				out := uitest.Frame(t, tm, sc.wait, sz[0], sz[1], true)
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}
