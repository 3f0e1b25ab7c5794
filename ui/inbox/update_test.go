package inbox

import (
	"a2atop/ui/internal/uitest"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
)

func newInbox(t *testing.T, fx *fixture) *Inbox {
	t.Helper()
	m := NewInbox(fx.ctx, fx.svc, Options{Sort: model.SortAge})
	m.SetSize(120, 38)
	m.Update(common.ShownMsg{})
	return m
}

// sendKeys feeds keys and runs the commands they return (not ticks),
// feeding their messages back.
func sendKeys(c common.Component, keys ...string) (common.Component, []tea.Msg) {
	var msgs []tea.Msg
	for _, k := range keys {
		var cmd tea.Cmd
		c, cmd = c.Update(uitest.Key(k))
		for _, msg := range runNoTick(cmd) {
			msgs = append(msgs, msg)
			c, _ = c.Update(msg)
		}
	}
	return c, msgs
}

// runNoTick runs a command unless it is the arming tick (wall clock).
func runNoTick(cmd tea.Cmd) []tea.Msg {
	var out []tea.Msg
	for _, m := range uitest.Run(cmd) {
		if _, ok := m.(common.ArmedMsg); !ok {
			out = append(out, m)
		}
	}
	return out
}

func TestQueueDrawsChainsAsTrees(t *testing.T) {
	fx := newFixture(t, false)
	v := newInbox(t, fx).View()
	for _, want := range []string{"Inbox · 4 waiting · oldest first", "planner", "└ deployer", "waiting on deployer · 23cf3710",
		"code-reviewer", "chain: planner · 5b1e0c7a → deployer · 23cf3710 (asks)", "waiting on deployer · 23cf3710, the end of the chain: answers go there"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if strings.Index(v, "planner ") > strings.Index(v, "└ deployer") {
		t.Error("the root must come before its leaf")
	}
}

func TestApproveArmsOnlyAfterQuiet(t *testing.T) {
	fx := newFixture(t, false)
	var c common.Component = newInbox(t, fx)
	c, _ = sendKeys(c, "a") // on the root: the leaf's confirmation
	if m := c.(*Inbox); m.mode != modeConfirm || m.conf.key.ID != idDeploy {
		t.Fatalf("approve on the root: mode %d, said %q", m.mode, fx.said())
	}
	c, _ = sendKeys(c, "esc", "j", "a", "y") // type-ahead "y" right after "a"
	if len(fx.snd.sent) != 0 || !c.(*Inbox).Capturing() {
		t.Fatal("a y typed ahead approved")
	}
	v := c.View()
	for _, want := range []string{"Approve this request?", `"decision": "approve"`, `"approver": "ops@host"`, "approved", "y arms after a quiet moment"} {
		if !strings.Contains(v, want) {
			t.Errorf("confirmation lacks %q:\n%s", want, v)
		}
	}
	fx.clk.add(400 * time.Millisecond)
	c, _ = sendKeys(c, "y") // still within the quiet period of the last key
	if len(fx.snd.sent) != 0 {
		t.Fatal("approved before the quiet period")
	}
	fx.clk.add(600 * time.Millisecond)
	c, msgs := sendKeys(c, "y")
	if len(fx.snd.sent) != 1 || len(msgs) != 1 {
		t.Fatalf("sent %d, msgs %v", len(fx.snd.sent), msgs)
	}
	m := fx.snd.sent[0]
	if m.TaskID != idDeploy || m.ContextID != "ctx-23cf3710" || m.Parts[0].Text() != "approved" {
		t.Fatalf("sent %+v", m)
	}
	if said := fx.said(); !strings.Contains(said, "approve → deployer · 23cf3710: the agent took the message") {
		t.Fatalf("outcome notice: %q", said)
	}
	// The task then leaves the inbox: the outcome stays the notice (no
	// notice that it left follows).
	at := t0.Add(time.Second)
	res := fx.fleet.Apply([]model.Event{{Kind: model.EventStatus, Agent: "deployer", At: at, Status: &a2a.TaskStatusUpdateEvent{
		TaskID: idDeploy, ContextID: "ctx-23cf3710", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &at}}}})
	c, _ = c.Update(common.FleetChangedMsg{Result: res, Version: fx.fleet.Version()})
	if v, said := c.View(), fx.said(); said != "" || strings.Contains(v, "approve deploy of 9f3c2e1") {
		t.Fatalf("after the approved task left, notice %q:\n%s", said, v)
	}
}

func TestDenyNeedsReason(t *testing.T) {
	fx := newFixture(t, false)
	var c common.Component = newInbox(t, fx)
	c, _ = sendKeys(c, "j", "d", "enter")
	if !strings.Contains(c.View(), "a deny needs a reason") {
		t.Fatalf("empty reason:\n%s", c.View())
	}
	c = typeText(c, "staging is frozen")
	c, _ = sendKeys(c, "enter")
	if v := c.View(); !strings.Contains(v, "Deny this request?") || !strings.Contains(v, "denied: staging is frozen") {
		t.Fatalf("deny confirmation:\n%s", v)
	}
	c, _ = sendKeys(c, "q", "2") // keys go to the dialog, not the root
	if !c.(*Inbox).Capturing() {
		t.Fatal("the dialog let go of the keys")
	}
	c, _ = sendKeys(c, "esc")
	if c.(*Inbox).mode != modeReason {
		t.Fatal("n/esc should return to the reason")
	}
}

func TestReplyEditorValidatesJSONInPlace(t *testing.T) {
	fx := newFixture(t, false)
	var c common.Component = newInbox(t, fx)
	c, _ = sendKeys(c, "j", "j", "r", "tab")
	c = typeText(c, `{"branch": `)
	if v := c.View(); !strings.Contains(v, "✗ the data part is not valid JSON") {
		t.Fatalf("no JSON error in place:\n%s", v)
	}
	c, _ = sendKeys(c, "ctrl+s")
	if c.(*Inbox).mode != modeEditor {
		t.Fatal("invalid JSON reached the confirmation")
	}
	c = typeText(c, `"main"}`)
	if v := c.View(); !strings.Contains(v, "✓ valid JSON") {
		t.Fatalf("valid JSON not shown:\n%s", v)
	}
	c, _ = sendKeys(c, "tab")
	c = typeText(c, "compare with main")
	c, _ = sendKeys(c, "ctrl+s")
	if v := c.View(); !strings.Contains(v, "Send this reply?") || !strings.Contains(v, `"branch": "main"`) || !strings.Contains(v, "compare with main") {
		t.Fatalf("confirmation:\n%s", v)
	}
	fx.clk.add(time.Second)
	c, _ = sendKeys(c, "y")
	if len(fx.snd.sent) != 1 || len(fx.snd.sent[0].Parts) != 2 || fx.snd.sent[0].TaskID != idReview {
		t.Fatalf("sent %+v", fx.snd.sent)
	}
}

func TestItemLeavesWhileTyping(t *testing.T) {
	fx := newFixture(t, false)
	var c common.Component = newInbox(t, fx)
	c, _ = sendKeys(c, "j", "j", "r")
	c = typeText(c, "mai")
	at := t0.Add(time.Second)
	res := fx.fleet.Apply([]model.Event{{Kind: model.EventStatus, Agent: "code-reviewer", At: at, Status: &a2a.TaskStatusUpdateEvent{
		TaskID: idReview, ContextID: "ctx-7d2a9e44", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &at}}}})
	c, cmd := c.Update(common.FleetChangedMsg{Result: res, Version: fx.fleet.Version()})
	for _, msg := range runNoTick(cmd) {
		if n, ok := msg.(NotedMsg); ok && n.Err != nil {
			t.Fatal(n.Err)
		}
	}
	if said := fx.said(); c.(*Inbox).Capturing() || !strings.Contains(said, "code-reviewer · 7d2a9e44 left the inbox (now working) while you were answering: draft dropped, nothing was sent") {
		t.Fatalf("after the task left, notice %q:\n%s", said, c.View())
	}
	if strings.Contains(c.View(), "Which branch") {
		t.Fatal("the item is still shown")
	}
	j := fx.svc.Journal()
	if len(j) != 1 || !j[0].Observed() || j[0].TaskID != idReview || j[0].States[0].To != a2a.TaskStateWorking {
		t.Fatalf("journal = %+v", j)
	}
	if len(fx.snd.sent) != 0 {
		t.Fatal("something was sent")
	}
}

func TestReadOnlyHidesWrites(t *testing.T) {
	fx := newFixture(t, true)
	var c common.Component = newInbox(t, fx)
	for _, b := range c.ShortHelp() {
		if b.Enabled() && (key.Matches(uitest.Key("a"), b) || key.Matches(uitest.Key("r"), b) || key.Matches(uitest.Key("d"), b)) {
			t.Errorf("write key %q enabled in read-only", b.Help().Key)
		}
	}
	c, _ = sendKeys(c, "j", "a", "r", "d")
	v := c.View()
	if c.(*Inbox).Capturing() || strings.Contains(v, "a: approve") || !strings.Contains(v, "READ-ONLY") {
		t.Fatalf("read-only view:\n%s", v)
	}
}

func TestSecondDecisionNamesTheFirst(t *testing.T) {
	fx := newFixture(t, false)
	// The agent refuses: the prompt keeps its earlier decision.
	fx.snd.tasks[idOther].Status.State = a2a.TaskStateAuthRequired
	var c common.Component = newInbox(t, fx)
	d, err := fx.svc.Prepare(fx.svc.ItemFor(fx.fleet.Task(model.TaskKey{Agent: "deployer", ID: idOther})), approvals.Input{Kind: approvals.KindApprove})
	if err != nil {
		t.Fatal(err)
	}
	delete(fx.snd.tasks, idOther) // the agent lost it: refused, not-found
	if out := fx.svc.Send(t.Context(), d); out.Result != approvals.ResultRefused {
		t.Fatalf("%+v", out)
	}
	c, _ = c.Update(common.TickMsg{Now: fx.clk.Now()})
	c, _ = sendKeys(c, "G", "a")
	if v := c.View(); !strings.Contains(v, "already decided: approve by ops@host") {
		t.Fatalf("second decision without naming the first:\n%s", v)
	}
	if !errors.Is(approvals.ErrAlreadyDecided, approvals.ErrAlreadyDecided) {
		t.Fatal()
	}
}

func TestJournalViewShowsDecisionAndStateApart(t *testing.T) {
	fx := newFixture(t, false)
	var c common.Component = newInbox(t, fx)
	c, _ = sendKeys(c, "j", "a")
	fx.clk.add(time.Second)
	sendKeys(c, "y")
	jv := NewJournal(fx.ctx, fx.svc, Options{})
	jv.SetSize(120, 30)
	v := jv.View()
	for _, want := range []string{"approve   deployer · 23cf3710  by ops@host", "accepted", `decision: "approved" + data {"approver":"ops@host"`,
		"agent:    auth-required → working (reply"} {
		if !strings.Contains(v, want) {
			t.Errorf("journal lacks %q:\n%s", want, v)
		}
	}
}

func TestJournalOffersFollowUpForEndedTask(t *testing.T) {
	fx := newFixture(t, false)
	d, err := fx.svc.Prepare(fx.svc.ItemFor(fx.fleet.Task(model.TaskKey{Agent: "code-reviewer", ID: idReview})), approvals.Input{Kind: approvals.KindReply, Text: "main"})
	if err != nil {
		t.Fatal(err)
	}
	fx.snd.tasks[idReview].Status.State = a2a.TaskStateCanceled // it ended first
	if out := fx.svc.Send(t.Context(), d); out.Problem != approvals.ProblemTaskEnded || !out.FollowUp {
		t.Fatalf("%+v", out)
	}
	var c common.Component = NewJournal(fx.ctx, fx.svc, Options{})
	c.SetSize(120, 30)
	if !strings.Contains(c.View(), "(f: follow-up task)") {
		t.Fatalf("no follow-up offered:\n%s", c.View())
	}
	c, _ = sendKeys(c, "f")
	if v := c.View(); !strings.Contains(v, "The task ended first. Send as a follow-up task?") || !strings.Contains(v, "7d2a9e44-revw-4000-8000-000000000003") || !strings.Contains(v, "(new task)") {
		t.Fatalf("follow-up confirmation:\n%s", v)
	}
	fx.clk.add(time.Second)
	sendKeys(c, "y")
	last := fx.snd.sent[len(fx.snd.sent)-1]
	if last.TaskID != "" || last.ContextID != "ctx-7d2a9e44" || len(last.ReferenceTasks) != 1 || last.ReferenceTasks[0] != idReview {
		t.Fatalf("follow-up sent %+v", last)
	}
}

func TestAgentReadOnlyInConfigRefusesDecisions(t *testing.T) {
	fx := newFixture(t, false)
	for _, a := range fx.fleet.Agents() {
		fx.fleet.Apply([]model.Event{{Kind: model.EventAgent, Agent: a.Name, Info: &model.AgentInfo{ReadOnly: true}}})
	}
	var c common.Component = newInbox(t, fx)
	for _, k := range []string{"a", "r", "d"} {
		c, _ = sendKeys(c, k)
		if c.(*Inbox).Capturing() {
			t.Fatalf("%s opened a dialog for a read-only agent", k)
		}
	}
	if v, said := c.View(), fx.said(); !strings.Contains(said, "read-only in the config") || strings.Contains(v, "a: approve") {
		t.Fatalf("the inbox does not say the agent is read-only (%q), or offers actions:\n%s", said, v)
	}
	if len(fx.snd.sent) != 0 {
		t.Fatal("something was sent")
	}
}
