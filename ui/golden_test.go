package ui

import (
	"a2atop/ui/internal/uitest"
	"fmt"
	"testing"

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
}{
	{"tasks", nil, "Terminal 3", false},
	{"detail", []string{"tab", "tab", "enter"}, "History (2", false},
	{"detail_raw", []string{"tab", "enter", "J"}, "raw JSON", false},
	{"detail_link", []string{"tab", "j", "j", "enter"}, "References", false},
	{"agents", []string{"3"}, "Raw exchanges", false},
	{"help", []string{"?"}, "Keys", false},
	{"filter", []string{"/", "d", "e", "p"}, "/dep", false},
	{"cmdline", []string{":", "a", "g"}, ":ag", false},
	{"cancel_confirm", []string{"c"}, "CancelTask", false},
	{"hostile_detail", []string{"j", "j", "enter"}, "History (2", false},
	{"tasks_read_only", nil, "READ-ONLY", true},
	{"help_read_only", []string{"?"}, "Keys", true},
}

// TestGolden runs the dashboard in teatest for every screen and size and
// compares the final frame with testdata (go test -update rewrites).
func TestGolden(t *testing.T) {
	for _, sc := range goldenScreens {
		for _, sz := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				m, _ := newTestModel(t, Options{ReadOnly: sc.readOnly})
				tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(sz[0], sz[1]))
				for _, k := range sc.keys {
					tm.Send(uitest.Key(k))
				}
				out := uitest.Frame(t, tm, sc.wait, sz[0], sz[1], true)
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}
