package ui

import (
	"a2atop/ui/internal/uitest"
	"fmt"
	"testing"
	"time"

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
}{
	{"tasks", nil, "Terminal 3", false, 0, false},
	{"detail", []string{"tab", "tab", "enter"}, "History (2", false, 0, false},
	{"detail_raw", []string{"tab", "enter", "J"}, "raw JSON", false, 0, false},
	{"detail_link", []string{"tab", "j", "j", "enter"}, "References", false, 0, false},
	{"agents", []string{"3"}, "Raw exchanges", false, 0, false},
	{"help", []string{"?"}, "Keys", false, 0, false},
	{"filter", []string{"/", "d", "e", "p"}, "/dep", false, 0, false},
	{"cmdline", []string{":", "a", "g"}, ":ag", false, 0, false},
	{"cancel_confirm", []string{"c"}, "CancelTask", false, 0, false},
	{"hostile_detail", []string{"j", "j", "enter"}, "History (2", false, 0, false},
	{"tasks_read_only", nil, "READ-ONLY", true, 0, false},
	{"help_read_only", []string{"?"}, "Keys", true, 0, false},
	{"marks", []string{"space", "j", "space"}, "2 marked", false, 0, false},
	{"sort_state", []string{"S"}, "STATE↑", false, 0, false},
	{"sort_id_reversed", []string{"I", "I"}, "ID↓", false, 0, false},
	{"zoom", []string{"tab", "z"}, "all panes", false, 0, false},
	{"agents_zoom", []string{"3", "z"}, "the list", false, 0, false},
	{"detail_search", []string{"tab", "tab", "enter", "/", "s", "u", "i", "t", "e", "enter", "n"}, "2/", false, 0, false},
	{"detail_raw_search", []string{"tab", "tab", "enter", "J", "/", "p", "a", "s", "s", "e", "d"}, "search: passed", false, 0, false},
	{"hide_terminal", nil, "older than 30m hidden", false, 30 * time.Minute, false},
	{"cancel_many", []string{"space", "j", "space", "c"}, "Cancel 2 tasks?", false, 0, false},
	{"cancel_results", []string{"space", "j", "space", "c", "+", "y"}, "2 sent", false, 0, false},
	{"views", []string{"5"}, "[5 deploys]", false, 0, true},
	{"cmdline_arg", []string{":", "a", "g", "e", "n", "t", "space", "d"}, ":agent d", false, 0, false},
	{"unknown_command", []string{":", "f", "i", "l", "t", "r", "enter"}, "did you mean", false, 0, false},
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
				m, _ := newTestModel(t, o)
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
