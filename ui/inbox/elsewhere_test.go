package inbox

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
)

// otherProcess opens the fixture's journal as another process would (a
// second Service on the same file), deciding as ops@other.
func otherProcess(t *testing.T, fx *fixture) *approvals.Service {
	t.Helper()
	svc, err := approvals.Open(approvals.Options{JournalPath: fx.svc.Path(), Sender: fx.snd, Approver: "ops@other", Now: fx.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// decide sends in on the task as svc does, and fails the test unless the
// agent took it.
func decide(t *testing.T, fx *fixture, svc *approvals.Service, k model.TaskKey, in approvals.Input) {
	t.Helper()
	it := svc.ItemFor(fx.fleet.Task(k))
	in.Again = it.Prior != nil
	d, err := svc.Prepare(it, in)
	if err != nil {
		t.Fatal(err)
	}
	if out := svc.Send(context.Background(), d); out.Result != approvals.ResultAccepted {
		t.Fatalf("%s on %v elsewhere: %s %v", in.Kind, k, out.Result, out.Err)
	}
}

// refreshed reads what others appended, as the root does on its clock,
// and hands it to c.
func refreshed(t *testing.T, fx *fixture, c common.Component) common.Component {
	t.Helper()
	r, err := fx.svc.Refresh()
	if err != nil {
		t.Fatal(err)
	}
	c, _ = c.Update(common.JournalRefreshedMsg{Refreshed: r})
	return c
}

var (
	review = model.TaskKey{Agent: "code-reviewer", ID: idReview}
	deploy = model.TaskKey{Agent: "deployer", ID: idDeploy}
	other  = model.TaskKey{Agent: "deployer", ID: idOther}
)

// TestEveryDialogSaysItsPromptWasAnsweredElsewhere: the reply editor,
// the deny reason and the confirmation are open when another process
// answers the same prompt. Each says who answered at once, keeps what was
// typed, and its send key sends nothing, saying why. A decision on
// another task changes nothing. They used to say nothing, and the send
// went on to be refused by the journal.
func TestEveryDialogSaysItsPromptWasAnsweredElsewhere(t *testing.T) {
	for _, tc := range []struct {
		name  string
		keys  []string
		typed string
		send  string
		task  model.TaskKey
		in    approvals.Input
		says  string
	}{
		{"editor", []string{"j", "j", "r"}, "release/1.4", "ctrl+s", review, approvals.Input{Kind: approvals.KindReply, Text: "main"}, "replied"},
		{"reason", []string{"j", "d"}, "not today", "enter", deploy, approvals.Input{Kind: approvals.KindApprove}, "approved"},
		{"confirmation", []string{"j", "a"}, "", "y", deploy, approvals.Input{Kind: approvals.KindDeny, Reason: "no"}, "denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, false)
			m := newInbox(t, fx)
			var c common.Component = m
			c, _ = sendKeys(c, tc.keys...)
			c = typeText(c, tc.typed)
			elsewhere := otherProcess(t, fx)
			decide(t, fx, elsewhere, other, approvals.Input{Kind: approvals.KindApprove})
			c = refreshed(t, fx, c)
			if v := c.View(); m.elsewhere != "" || strings.Contains(v, "nothing is sent from here") {
				t.Fatalf("a decision on another task marked the dialog:\n%s", v)
			}
			decide(t, fx, elsewhere, tc.task, tc.in)
			c = refreshed(t, fx, c)
			v := c.View()
			if want := "answered elsewhere by ops@other at "; !strings.Contains(v, want) || !strings.Contains(v, ": "+tc.says) ||
				!strings.Contains(v, "nothing is sent from here") {
				t.Fatalf("the %s does not say %q … %s:\n%s", tc.name, want, tc.says, v)
			}
			if tc.typed != "" && !strings.Contains(v, tc.typed) {
				t.Fatalf("the %s lost what was typed:\n%s", tc.name, v)
			}
			fx.clk.add(time.Second) // a confirmation is armed
			fx.said()
			sent := len(fx.snd.sent)
			c, _ = sendKeys(c, tc.send)
			if said := fx.said(); len(fx.snd.sent) != sent || !strings.Contains(said, "not sent: answered elsewhere by ops@other") || !m.Capturing() {
				t.Fatalf("%s in the %s: sent %d more, said %q, dialog open %v", tc.send, tc.name, len(fx.snd.sent)-sent, said, m.Capturing())
			}
			if n := decisionsOn(fx, tc.task.ID); n != 1 {
				t.Fatalf("the journal holds %d decisions on the task, want the other process's alone", n)
			}
		})
	}
}

func decisionsOn(fx *fixture, id a2a.TaskID) int {
	n := 0
	for _, e := range fx.svc.Journal() {
		if !e.Observed() && e.TaskID == id {
			n++
		}
	}
	return n
}

// moveOn applies the task's status changing to working, as the watchers
// would, and hands the inbox the batch.
func moveOn(fx *fixture, c common.Component, k model.TaskKey) common.Component {
	at := t0.Add(time.Second)
	res := fx.fleet.Apply([]model.Event{{Kind: model.EventStatus, Agent: k.Agent, At: at, Status: &a2a.TaskStatusUpdateEvent{
		TaskID: k.ID, Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &at}}}})
	c, cmd := c.Update(common.FleetChangedMsg{Result: res, Version: fx.fleet.Version()})
	for _, msg := range runNoTick(cmd) {
		c, _ = c.Update(msg)
	}
	return c
}

// TestADroppedDraftSaysWhoAnswered: another process answers a question
// the inbox has a draft for, and the task leaves the inbox. Whether the
// dashboard hears of the task moving on before or after it reads the
// journal, and whether the draft is open or kept, the footer ends up
// saying who answered, not a bare "left the inbox". It used to say only
// that the draft was dropped.
func TestADroppedDraftSaysWhoAnswered(t *testing.T) {
	for _, tc := range []struct {
		name         string
		keys         []string
		journalFirst bool
		rest         string
	}{
		{"open, the fleet first", []string{"j", "j", "r"}, false, "draft dropped, nothing was sent"},
		{"open, the journal first", []string{"j", "j", "r"}, true, "draft dropped, nothing was sent"},
		{"kept, the fleet first", []string{"j", "j", "r", "m", "a", "i", "n", "esc", "k"}, false, "its kept draft is dropped, nothing was sent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, false)
			var c common.Component = newInbox(t, fx)
			c, _ = sendKeys(c, tc.keys...)
			c = typeText(c, "release/1.4")
			fx.said()
			decide(t, fx, otherProcess(t, fx), review, approvals.Input{Kind: approvals.KindReply, Text: "main"})
			if tc.journalFirst {
				c = refreshed(t, fx, c)
			}
			c = moveOn(fx, c, review)
			said := fx.said()
			if !tc.journalFirst {
				if !strings.Contains(said, "left the inbox (now working)") || strings.Contains(said, "elsewhere") {
					t.Fatalf("before the journal was read the notice is %q", said)
				}
				c = refreshed(t, fx, c)
				said = fx.said()
			}
			want := "code-reviewer · 7d2a9e44: answered elsewhere by ops@other at "
			if !strings.Contains(said, want) || !strings.Contains(said, ": replied; now working — "+tc.rest) {
				t.Fatalf("the notice is %q, want %q … replied; now working — %s", said, want, tc.rest)
			}
			c = refreshed(t, fx, c) // said once
			if said := fx.said(); said != "" {
				t.Fatalf("the next read of the journal said %q again", said)
			}
			_ = c
		})
	}
}

// TestARowSaysItWasAnsweredElsewhere: a task still waiting whose prompt
// another process answered says so on its row and under the question.
func TestARowSaysItWasAnsweredElsewhere(t *testing.T) {
	fx := newFixture(t, false)
	var c common.Component = newInbox(t, fx)
	decide(t, fx, otherProcess(t, fx), deploy, approvals.Input{Kind: approvals.KindApprove})
	c = refreshed(t, fx, c)
	c, _ = sendKeys(c, "j")
	v := c.View()
	row := strings.Split(v, "\n")[lineOf(v, "└ deployer")]
	if !strings.Contains(row, "[answered elsewhere by ops@other at ") {
		t.Fatalf("the row is %q", row)
	}
	if !strings.Contains(v, ": approved → the agent took the message") {
		t.Fatalf("the question does not say who answered:\n%s", v)
	}
}

// TestTheJournalsSendAgainSaysItWasAnsweredElsewhere: the journal's
// "send again?" of a decision that was not delivered is open when
// another process decides the prompt anew: it says so and y sends
// nothing.
func TestTheJournalsSendAgainSaysItWasAnsweredElsewhere(t *testing.T) {
	fx := newFixture(t, false)
	it := fx.svc.ItemFor(fx.fleet.Task(review))
	d, err := fx.svc.Prepare(it, approvals.Input{Kind: approvals.KindReply, Text: "main"})
	if err != nil {
		t.Fatal(err)
	}
	fx.snd.mu.Lock()
	fx.snd.fail = fmt.Errorf("reply: %w", context.DeadlineExceeded)
	fx.snd.mu.Unlock()
	fx.svc.Send(context.Background(), d)
	fx.snd.mu.Lock()
	fx.snd.fail = nil
	fx.snd.mu.Unlock()
	if out := fx.svc.ReconcileOne(context.Background(), d.MessageID); out.Result != approvals.ResultNotDelivered {
		t.Fatalf("reconciled: %s %v", out.Result, out.Err)
	}
	j := NewJournal(fx.ctx, fx.svc, Options{})
	j.SetSize(120, 38)
	var c common.Component = j
	c, _ = sendKeys(c, "s")
	if j.conf == nil {
		t.Fatalf("s opened nothing: %q", fx.said())
	}
	decide(t, fx, otherProcess(t, fx), review, approvals.Input{Kind: approvals.KindReply, Text: "release/1.4"})
	c = refreshed(t, fx, c)
	if v := c.View(); !strings.Contains(v, "answered elsewhere by ops@other at ") {
		t.Fatalf("the confirmation does not say who answered:\n%s", v)
	}
	fx.clk.add(time.Second)
	fx.said()
	sent := len(fx.snd.sent)
	c, _ = sendKeys(c, "y")
	if said := fx.said(); len(fx.snd.sent) != sent || !strings.Contains(said, "not sent: answered elsewhere") {
		t.Fatalf("y: sent %d more, said %q", len(fx.snd.sent)-sent, said)
	}
	_ = c
}

// TestADamagedLineHidesTheJournalsSendAgain: while a damaged journal
// line refuses decisions on the code-reviewer, the journal view offers no
// send again on its unknown reply, and s says why instead of opening a
// confirmation that would be refused.
func TestADamagedLineHidesTheJournalsSendAgain(t *testing.T) {
	fx := newFixture(t, false)
	d, err := fx.svc.Prepare(fx.svc.ItemFor(fx.fleet.Task(review)), approvals.Input{Kind: approvals.KindReply, Text: "main"})
	if err != nil {
		t.Fatal(err)
	}
	fx.snd.mu.Lock()
	fx.snd.fail = fmt.Errorf("reply: %w", context.DeadlineExceeded)
	fx.snd.mu.Unlock()
	if out := fx.svc.Send(context.Background(), d); !out.Result.Retryable() {
		t.Fatalf("the send is %s", out.Result)
	}
	j := NewJournal(fx.ctx, fx.svc, Options{})
	j.SetSize(120, 38)
	if got := " " + helpKeys(j.ShortHelp()) + " "; !strings.Contains(got, " s ") {
		t.Fatalf("a retryable reply, yet the footer is %q", got)
	}
	f, err := os.OpenFile(fx.svc.Path(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"v":2,"type":"retry","agent":"code-reviewer","task":"` + string(idReview) + `","sum":"00000000"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var c common.Component = refreshed(t, fx, j)
	if got := " " + helpKeys(j.ShortHelp()) + " "; strings.Contains(got, " s ") || strings.Contains(c.View(), "s: send again") {
		t.Fatalf("the agent is blocked, yet the footer is %q:\n%s", got, c.View())
	}
	fx.said()
	c, _ = sendKeys(c, "s")
	if said := fx.said(); j.conf != nil || !strings.Contains(said, "decisions on code-reviewer refused") || !strings.Contains(said, "journal.jsonl line 3 damaged") {
		t.Fatalf("s on a blocked agent: confirmation %v, said %q", j.conf != nil, said)
	}
}

// TestTheRootLeavingAfterItsEndKeepsTheNotice: an approve opened on a
// chain's root goes to its end; another process answers the end, which
// leaves the inbox, then the root leaves too. The footer keeps saying
// who answered: the root leaving is the same news, not a newer one. It
// used to be replaced by "planner · 5b1e0c7a left the inbox".
func TestTheRootLeavingAfterItsEndKeepsTheNotice(t *testing.T) {
	fx := newFixture(t, false)
	m := newInbox(t, fx)
	var c common.Component = m
	c, _ = sendKeys(c, "a") // on the planner: the deployer's approve
	if m.mode != modeConfirm || m.target != deploy {
		t.Fatalf("a on the root: mode %d, target %v", m.mode, m.target)
	}
	decide(t, fx, otherProcess(t, fx), deploy, approvals.Input{Kind: approvals.KindApprove})
	c = refreshed(t, fx, c)
	fx.said()
	c = moveOn(fx, c, deploy)
	if said := fx.said(); !strings.Contains(said, "deployer · 23cf3710: answered elsewhere by ops@other") {
		t.Fatalf("the end left: %q", said)
	}
	c = moveOn(fx, c, model.TaskKey{Agent: "planner", ID: idPlan})
	if said := fx.said(); said != "" {
		t.Fatalf("the root leaving said %q over who answered", said)
	}
}

// TestJournalNamesEntriesInTheFileOnly: past journal_memory the journal
// view shows the entries in memory and says how many older ones are in
// the file only, and where to read them.
func TestJournalNamesEntriesInTheFileOnly(t *testing.T) {
	fx := newFixture(t, false)
	small, err := approvals.Open(approvals.Options{JournalPath: fx.svc.Path(), Sender: fx.snd, Approver: "ops@host", Now: fx.clk.Now, Memory: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { small.Close() })
	decide(t, fx, small, model.TaskKey{Agent: "deployer", ID: idDeploy}, approvals.Input{Kind: approvals.KindApprove})
	decide(t, fx, small, model.TaskKey{Agent: "deployer", ID: idOther}, approvals.Input{Kind: approvals.KindApprove})
	decide(t, fx, small, model.TaskKey{Agent: "code-reviewer", ID: idReview}, approvals.Input{Kind: approvals.KindReply, Text: "main"})
	j := NewJournal(fx.ctx, small, Options{})
	j.SetSize(120, 30)
	view := j.View()
	if n := small.Forgotten(); n == 0 || !strings.Contains(view, fmt.Sprintf("%d older in the file: a2atop journal export", n)) {
		t.Errorf("the journal view does not say that %d older entries are in the file only:\n%s", n, view)
	}
	all, err := small.History()
	if err != nil || len(all) != 3 {
		t.Errorf("History: %d entries, %v; want the 3 decisions from the file", len(all), err)
	}
}
