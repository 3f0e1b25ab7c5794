package inbox

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/internal/uitest"
)

func TestEditorLeavesTheQuestionTheSpareLines(t *testing.T) {
	fx := newFixture(t, false)
	m := newInbox(t, fx)
	m.SetSize(80, 22) // an 80x24 terminal
	var c common.Component = m
	c, _ = sendKeys(c, "j", "j") // the code-reviewer's question: text, data, file
	c, _ = sendKeys(c, "r")
	v := c.View()
	uitest.CheckFrame(t, v, 80, 22, false)
	for _, want := range []string{"Which branch should I compare against?", `"choices": [`, `"release/1.4"`, "diff.patch", "Text", "JSON data"} {
		if !strings.Contains(v, want) {
			t.Errorf("with the editor open at 80x24 the view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "enter: detail") {
		t.Errorf("the editor takes enter, yet the view offers it for the detail:\n%s", v)
	}
}

// click is a left press at line y of the component.
func click(y int) tea.MouseMsg {
	return tea.MouseMsg{X: 4, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}
}

func TestClickSelectsAQueueRow(t *testing.T) {
	fx := newFixture(t, false)
	m := newInbox(t, fx)
	lines := strings.Split(m.View(), "\n")
	for y, l := range lines {
		if strings.Contains(l, "code-reviewer 7d2a9e44") {
			m.Update(click(y))
			break
		}
	}
	if it := m.selected(); it == nil || it.Key().ID != idReview {
		t.Fatalf("clicking the code-reviewer row selected %v", it)
	}
	m.Update(click(0)) // the title selects nothing
	if it := m.selected(); it.Key().ID != idReview {
		t.Fatalf("a click on the title moved the selection to %v", it.Key())
	}
	m.Update(uitest.Key("r"))
	m.Update(click(1)) // with the editor open, a click changes nothing
	if !m.Capturing() || m.target.ID != idReview {
		t.Fatal("a click while answering closed or moved the editor")
	}
}

func TestClickSelectsAJournalEntry(t *testing.T) {
	fx := newFixture(t, false)
	seedJournal(t, fx)
	j := NewJournal(fx.ctx, fx.svc, Options{})
	j.SetSize(120, 38)
	lines := strings.Split(j.View(), "\n")
	for y, l := range lines {
		if strings.Contains(l, "approve   deployer · 23cf3710") {
			j.Update(click(y))
			break
		}
	}
	if e := j.selected(); e == nil || e.TaskID != idDeploy || e.Kind != "approve" {
		t.Fatalf("clicking the approve entry selected %+v", e)
	}
}

func TestDenyReasonContinuesOnTheKeyMapsKey(t *testing.T) {
	fx := newFixture(t, false)
	km := DefaultKeyMap()
	km.Continue.SetKeys("ctrl+s")
	m := NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge, KeyMap: &km})
	m.SetSize(120, 38)
	var c common.Component = m
	c, _ = sendKeys(c, "j", "d")
	c = typeText(c, "not today")
	c, _ = sendKeys(c, "enter")
	if m.mode != modeReason {
		t.Fatalf("enter left the reason field although Continue is ctrl+s (mode %d)", m.mode)
	}
	sendKeys(c, "ctrl+s")
	if m.mode != modeConfirm || m.conf == nil || m.conf.d.Reason != "not today" {
		t.Fatalf("ctrl+s (Continue) did not open the confirmation (mode %d)", m.mode)
	}
}

func TestHostileTaskIDIsHarmlessInTheQueue(t *testing.T) {
	fx := newFixture(t, false)
	const id a2a.TaskID = "\x1b]52;c;ZWNobw==\x07\x1b[2J-task"
	tk := snap(id, a2a.TaskStateInputRequired, 0, []*a2a.Part{a2a.NewTextPart("which?")})
	fx.fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: "code-reviewer", Source: model.SourceSweep, At: t0, Task: tk}})
	m := newInbox(t, fx)
	for _, keys := range [][]string{nil, {"G"}} { // as a row, then selected
		sendKeys(m, keys...)
		if v := m.View(); strings.ContainsAny(v, "\x1b\x07") {
			t.Fatalf("after %v a control reached the screen:\n%q", keys, v)
		}
	}
}

func TestABatchRebuildsTheQueueOnlyWhenItIsLookedAt(t *testing.T) {
	fx := newFixture(t, false)
	m := newInbox(t, fx)
	tk := snap("aaaa0000-late-4000-8000-000000000009", a2a.TaskStateInputRequired, 0, []*a2a.Part{a2a.NewTextPart("a late question")})
	res := fx.fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: "code-reviewer", Source: model.SourceSweep, At: t0, Task: tk}})
	m.Update(common.FleetChangedMsg{Result: res, Version: fx.fleet.Version()})
	if m.fver == fx.fleet.Version() || len(m.items) != 4 {
		t.Fatalf("the batch rebuilt the queue of a browsing inbox (%d items)", len(m.items))
	}
	if v := m.View(); !strings.Contains(v, "a late question") || len(m.items) != 5 {
		t.Fatalf("the view does not show the new task:\n%s", v)
	}
	// The selected task leaving is shown at once, in a batch.
	sel := m.selected().Key()
	done := snap(sel.ID, a2a.TaskStateCompleted, 0, nil)
	res = fx.fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: sel.Agent, Source: model.SourceSweep, At: t0.Add(time.Second), Task: done}})
	m.Update(common.FleetChangedMsg{Result: res, Version: fx.fleet.Version()})
	if said := fx.said(); len(m.items) != 4 || !strings.Contains(said, "left the inbox") {
		t.Fatalf("the selected task left: %d items, notice %q", len(m.items), said)
	}
}

// replyConfirm opens the confirmation of a reply to the code-reviewer
// whose JSON data has n keys (n+2 lines once pretty-printed), at 80x24.
func replyConfirm(t *testing.T, n int) (*Inbox, string) {
	t.Helper()
	fx := newFixture(t, false)
	m := newInbox(t, fx)
	m.SetSize(80, 22)
	var js []string
	for i := range n {
		js = append(js, fmt.Sprintf(`"k%02d":%d`, i, i))
	}
	var c common.Component = m
	c, _ = sendKeys(c, "j", "j", "r", "tab")
	c = typeText(c, "{"+strings.Join(js, ",")+"}")
	c, _ = sendKeys(c, "ctrl+s")
	if m.mode != modeConfirm {
		t.Fatalf("no confirmation:\n%s", c.View())
	}
	v := c.View()
	uitest.CheckFrame(t, v, 80, 22, false)
	return m, v
}

func TestConfirmationKeepsItsPayloadAndKeysOnScreen(t *testing.T) {
	// 4 keys: the whole payload fits, under the question, once the queue
	// makes room.
	_, v := replyConfirm(t, 4)
	for _, want := range []string{"Send this reply?", "asks: Which branch", `"k03": 3`, "y arms after a quiet moment"} {
		if !strings.Contains(v, want) {
			t.Errorf("with 4 keys the confirmation lacks %q:\n%s", want, v)
		}
	}
	// 40 keys cannot fit: cut in the middle, saying so, keys still shown.
	_, v = replyConfirm(t, 40)
	for _, want := range []string{"Send this reply?", "asks: Which branch", "more lines of the payload do not fit here; all of it is sent", "y arms after a quiet moment"} {
		if !strings.Contains(v, want) {
			t.Errorf("with 40 keys the confirmation lacks %q:\n%s", want, v)
		}
	}
}

// helpKeys are the help names of the bindings the footer shows (the
// enabled ones).
func helpKeys(bs []key.Binding) string {
	var out []string
	for _, b := range bs {
		if b.Enabled() {
			out = append(out, b.Help().Key)
		}
	}
	return strings.Join(out, " ")
}

func TestJournalFooterOffersOnlyWhatTheEntryTakes(t *testing.T) {
	fx := newFixture(t, false)
	seedJournal(t, fx)
	j := NewJournal(fx.ctx, fx.svc, Options{})
	j.SetSize(120, 38)
	// Newest first: the dropped draft (observed), the refused deny, the accepted approve.
	for i := range j.entries {
		j.cursor = i
		if got := " " + helpKeys(j.ShortHelp()) + " "; strings.Contains(got, " s ") {
			t.Errorf("entry %d (%s %s) cannot be sent again, yet the footer offers %q", i, j.entries[i].Kind, j.entries[i].Result, got)
		}
	}
	// An answer lost to a timeout is unknown: s sends it again.
	fx.clk.add(time.Minute)
	d, err := fx.svc.Prepare(fx.svc.ItemFor(fx.fleet.Task(model.TaskKey{Agent: "code-reviewer", ID: idReview})), approvals.Input{Kind: approvals.KindReply, Text: "main"})
	if err != nil {
		t.Fatal(err)
	}
	fx.snd.mu.Lock()
	fx.snd.fail = fmt.Errorf("reply: %w", context.DeadlineExceeded)
	fx.snd.mu.Unlock()
	if o := fx.svc.Send(t.Context(), d); !o.Result.Retryable() {
		t.Fatalf("a canceled send is %s, want a retryable outcome", o.Result)
	}
	j.Update(common.TickMsg{Now: fx.clk.Now()})
	j.cursor = 0
	if got := " " + helpKeys(j.ShortHelp()) + " "; !strings.Contains(got, " s ") {
		t.Errorf("the %s reply is retryable, yet the footer keys are %q", j.entries[0].Result, got)
	}
	// ... but not to an agent that is read-only in the config.
	fx.fleet.Apply([]model.Event{{Kind: model.EventAgent, Agent: "code-reviewer", Info: &model.AgentInfo{ReadOnly: true}}})
	if got := " " + helpKeys(j.ShortHelp()) + " "; strings.Contains(got, " s ") {
		t.Errorf("the agent is read-only, yet the footer keys are %q", got)
	}
}

// TestInboxFooterOffersOnlyWhatTheItemTakes: reply for a question,
// approve and deny (and reply) for an authorization, what the end of the
// chain takes on a root, nothing that writes on a read-only agent.
func TestInboxFooterOffersOnlyWhatTheItemTakes(t *testing.T) {
	fx := newFixture(t, false)
	m := newInbox(t, fx)
	for _, tc := range []struct {
		row        int
		has, lacks string
	}{
		{0, "r a d enter / Y", ""}, // the planner's root: its leaf asks for authorization
		{1, "r a d enter / Y", ""}, // the deployer
		{2, "r enter / Y", "a d"},  // the code-reviewer's question
	} {
		m.cursor = tc.row
		got := " " + helpKeys(m.ShortHelp()) + " "
		for _, k := range strings.Fields(tc.has) {
			if !strings.Contains(got, " "+k+" ") {
				t.Errorf("row %d: the footer keys %q lack %s", tc.row, got, k)
			}
		}
		for _, k := range strings.Fields(tc.lacks) {
			if strings.Contains(got, " "+k+" ") {
				t.Errorf("row %d: the footer keys %q offer %s", tc.row, got, k)
			}
		}
	}
	fx.fleet.Apply([]model.Event{{Kind: model.EventAgent, Agent: "deployer", Info: &model.AgentInfo{ReadOnly: true}}})
	m.cursor = 1
	if got := " " + helpKeys(m.ShortHelp()) + " "; strings.Contains(got, " a ") || strings.Contains(got, " r ") {
		t.Errorf("on a read-only agent the footer keys are %q", got)
	}
}

func TestJournalScrollsToTheSelectedEntry(t *testing.T) {
	fx := newFixture(t, false)
	for i := range 200 {
		fx.clk.add(time.Second)
		if err := fx.svc.NoteLeft("code-reviewer", a2a.TaskID(fmt.Sprintf("t-%03d", i)), "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_WORKING", ""); err != nil {
			t.Fatal(err)
		}
	}
	j := NewJournal(fx.ctx, fx.svc, Options{})
	j.SetSize(80, 22)
	for _, keys := range [][]string{{"G"}, {"k", "k", "k"}, {"g"}, {"j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j"}} {
		sendKeys(j, keys...)
		v := j.View()
		uitest.CheckFrame(t, v, 80, 22, false)
		sel := j.entries[j.cursor]
		if !strings.Contains(v, "▸ ") || !strings.Contains(v, string(sel.TaskID)[:5]) {
			t.Fatalf("after %v the selected entry %d (%s) is not on screen:\n%s", keys, j.cursor, sel.TaskID, v)
		}
	}
}

func TestPageKeysMoveInTheInboxAndTheJournal(t *testing.T) {
	fx := newFixture(t, false)
	m := newInbox(t, fx)
	m.SetSize(80, 10) // three rows at a time
	sendKeys(m, "pgdown")
	if m.cursor != m.listRows() {
		t.Fatalf("pgdn moved the inbox cursor to %d, want %d", m.cursor, m.listRows())
	}
	sendKeys(m, "pgup")
	if m.cursor != 0 {
		t.Fatalf("pgup moved the inbox cursor to %d, want 0", m.cursor)
	}
	for i := range 30 {
		fx.clk.add(time.Second)
		if err := fx.svc.NoteLeft("code-reviewer", a2a.TaskID(fmt.Sprintf("t-%03d", i)), "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_WORKING", ""); err != nil {
			t.Fatal(err)
		}
	}
	j := NewJournal(fx.ctx, fx.svc, Options{})
	sendKeys(j, "pgdown", "pgdown")
	if j.cursor != 2*journalPage {
		t.Fatalf("pgdn twice moved the journal cursor to %d, want %d", j.cursor, 2*journalPage)
	}
}

// TestJournalSaysWhereItIsKept: the journal view says the note it was
// given (the demo's: a temporary file), and a click still lands on the
// entry under the pointer.
func TestJournalSaysWhereItIsKept(t *testing.T) {
	fx := newFixture(t, false)
	seedJournal(t, fx)
	note := "kept in /tmp/a2atop-demo-1/journal.jsonl: a temporary file of this demo, deleted when it exits"
	j := NewJournal(fx.ctx, fx.svc, Options{JournalNote: note})
	j.SetSize(120, 38)
	v := j.View()
	if !strings.Contains(v, note) {
		t.Fatalf("the journal view does not say where it is kept:\n%s", v)
	}
	y := lineOf(v, "deny ")
	j.Update(click(y))
	if e := j.selected(); e == nil || e.Kind != approvals.KindDeny {
		t.Fatalf("a click on line %d selects %v:\n%s", y, e, v)
	}
}
