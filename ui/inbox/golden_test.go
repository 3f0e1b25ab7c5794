package inbox

import (
	"a2atop/ui/internal/uitest"
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"a2atop/model"
	"a2atop/ui/common"
)

// harness runs one Component as a program, as the root model would: it
// sizes it on tea.WindowSizeMsg and forwards everything else. advance is
// how far the fixed clock moves for each "+" sent (to arm a confirmation).
type harness struct {
	c   common.Component
	clk *clock
}

type advanceMsg struct{}

func (h *harness) Init() tea.Cmd { return nil }

func (h *harness) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		h.c.SetSize(msg.Width, msg.Height)
		return h, nil
	case advanceMsg:
		h.clk.add(time.Second)
		return h, nil
	case common.ArmedMsg:
		return h, nil // the wall-clock tick: the fixed clock decides
	}
	var cmd tea.Cmd
	h.c, cmd = h.c.Update(msg)
	return h, cmd
}

func (h *harness) View() string { return h.c.View() }

// goldenSizes are the sizes every screen is checked at.
var goldenSizes = [][2]int{{80, 24}, {120, 40}, {200, 50}}

var goldenScreens = []struct {
	name    string
	journal bool
	keys    []string // "+" advances the clock one second
	wait    string
}{
	{"inbox", false, []string{"j", "j"}, "diff.patch"},
	{"chain", false, nil, "the end of the chain: answers go there"},
	{"editor", false, []string{"j", "j", "r", "m", "a", "i", "n", "tab", "{", "\"", "b", "\"", ":"}, "✗ the data part"},
	{"confirm", false, []string{"j", "a", "+"}, "y: send"},
	{"deny_reason", false, []string{"j", "d", "enter"}, "a deny needs a reason"},
	{"journal", true, nil, "Journal"},
	{"filter", false, []string{"/", "d", "e", "p", "enter"}, "· 3 shown"},
	{"draft", false, []string{"j", "j", "r", "m", "a", "i", "n", "esc"}, "✎ draft"},
	{"marked", false, []string{"space", "j", "j", "space"}, "▸✓code-reviewer"},
	{"batch_confirm", false, []string{"*", "a", "+"}, "y: send them all"},
	{"batch_results", false, []string{"*", "a", "+", "y"}, "2 sent"},
}

// TestGolden draws each screen at each size with a fixed clock and the
// Ascii profile, and compares the final frame with testdata
// (go test -update rewrites).
func TestGolden(t *testing.T) {
	for _, sc := range goldenScreens {
		for _, sz := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				fx := newFixture(t, false)
				var c common.Component
				if sc.journal {
					seedJournal(t, fx)
					c = NewJournal(fx.ctx, fx.svc, Options{})
				} else {
					c = NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge})
				}
				h := &harness{c: c, clk: fx.clk}
				tm := teatest.NewTestModel(t, h, teatest.WithInitialTermSize(sz[0], sz[1]))
				for _, k := range sc.keys {
					if k == "+" {
						tm.Send(advanceMsg{})
						continue
					}
					tm.Send(uitest.Key(k))
				}
				out := uitest.Frame(t, tm, sc.wait, sz[0], sz[1], false)
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// seedJournal records an approve (accepted), a deny refused because the
// agent lost the task, and a dropped draft, through the service.
func seedJournal(t *testing.T, fx *fixture) {
	t.Helper()
	s := fx.svc
	item := func(id string) *model.Task {
		for _, tk := range fx.fleet.Interrupted(model.SortAge) {
			if string(tk.Key.ID) == id {
				return tk
			}
		}
		t.Fatalf("no task %s", id)
		return nil
	}
	d, err := s.Prepare(s.ItemFor(item(string(idDeploy))), approvalsInput("approve", ""))
	if err != nil {
		t.Fatal(err)
	}
	s.Send(t.Context(), d)
	fx.clk.add(time.Minute)
	d, err = s.Prepare(s.ItemFor(item(string(idOther))), approvalsInput("deny", "deadbee fails its tests"))
	if err != nil {
		t.Fatal(err)
	}
	delete(fx.snd.tasks, idOther)
	s.Send(t.Context(), d)
	fx.clk.add(time.Minute)
	if err := s.NoteLeft("code-reviewer", idReview, "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_WORKING", "left the inbox while an answer was being written; the draft was dropped, nothing was sent"); err != nil {
		t.Fatal(err)
	}
}
