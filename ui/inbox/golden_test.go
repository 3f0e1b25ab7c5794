package inbox

import (
	"a2atop/ui/internal/uitest"
	"fmt"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
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
	compose *common.ComposeMsg // the compose screen, opened with this
}{
	{"inbox", false, []string{"j", "j"}, "diff.patch", nil},
	{"chain", false, nil, "the end of the chain: answers go there", nil},
	{"editor", false, []string{"j", "j", "r", "m", "a", "i", "n", "tab", "{", "\"", "b", "\"", ":"}, "✗ the data part", nil},
	{"confirm", false, []string{"j", "a", "+"}, "y: send", nil},
	{"deny_reason", false, []string{"j", "d", "enter"}, "a deny needs a reason", nil},
	{"journal", true, nil, "Journal", nil},
	{"filter", false, []string{"/", "d", "e", "p", "enter"}, "· 3 shown", nil},
	{"draft", false, []string{"j", "j", "r", "m", "a", "i", "n", "esc"}, "✎ draft", nil},
	{"marked", false, []string{"space", "j", "j", "space"}, "▸✓code-reviewer", nil},
	{"batch_confirm", false, []string{"*", "a", "+"}, "y: send them all", nil},
	{"batch_results", false, []string{"*", "a", "+", "y"}, "2 sent", nil},
	{"compose_agents", false, []string{"j"}, "Choose the agent", &common.ComposeMsg{}},
	{"compose_editor", false, []string{"d", "e", "p", "l", "o", "y", "space", "9", "f", "3", "c", "2", "e", "1", "tab", "{", "}"},
		"✓ valid JSON", &common.ComposeMsg{Agent: "deployer"}},
	{"compose_confirm", false, []string{"d", "e", "p", "l", "o", "y", "ctrl+s", "+"}, "y: send", &common.ComposeMsg{Agent: "deployer"}},
	{"compose_followup", false, []string{"r", "e", "r", "u", "n", "ctrl+s", "+"}, "y: send",
		&common.ComposeMsg{After: model.TaskKey{Agent: "code-reviewer", ID: idEnded}}},
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
				switch {
				case sc.compose != nil:
					fx.fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: "code-reviewer", At: t0,
						Task: snap(idEnded, a2a.TaskStateCompleted, time.Minute, []*a2a.Part{a2a.NewTextPart("compared against main")})}})
					c = NewCompose(fx.ctx, fx.svc, Options{})
					c.SetSize(sz[0], sz[1])
					c, _ = c.Update(*sc.compose)
				case sc.journal:
					seedJournal(t, fx)
					c = NewJournal(fx.ctx, fx.svc, Options{})
				default:
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
