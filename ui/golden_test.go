package ui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

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
	{"cancel_confirm", []string{"c"}, "Cancel this task?", false},
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
					tm.Send(keyMsg(k))
				}
				teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
					return bytes.Contains(b, []byte(sc.wait))
				}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
				if err := tm.Quit(); err != nil {
					t.Fatal(err)
				}
				out := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).View()
				checkFrame(t, out, sz[0], sz[1])
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// checkFrame asserts a frame fills the terminal and never overflows it.
func checkFrame(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Errorf("frame has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := len([]rune(l)); n > w {
			t.Errorf("line %d is %d cells wide (> %d): %q", i, n, w, l)
		}
	}
}
