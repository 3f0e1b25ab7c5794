package hub_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/model"
)

// TestChangedPromptIsRefused: a decision on a prompt that has changed
// since the dashboard showed it is refused (409) with what happened: the
// decision another operator made on it, or that the task moved on.
func TestChangedPromptIsRefused(t *testing.T) {
	fx := newFixture(t)
	alice, bob := fx.attach("alice"), fx.attach("bob")
	first, second := fx.ag.Start("ask"), fx.ag.Start("ask")
	for _, d := range []*dash{alice, bob} {
		d.waitFor("both questions", func(f *model.Fleet) bool { return d.inInbox(f, first) && d.inInbox(f, second) })
	}
	// Prepared before bob answered: the hub says bob decided it.
	mine := alice.prepare(first, approvals.Input{Kind: approvals.KindReply, Text: "release"})
	if o := bob.svc.Send(context.Background(), bob.prepare(first, approvals.Input{Kind: approvals.KindReply, Text: "main"})); o.Result != approvals.ResultAccepted {
		t.Fatalf("bob: %s", o.Words())
	}
	o := alice.svc.Send(context.Background(), mine)
	if o.Winner == nil || o.Winner.Approver != "bob" || o.Problem != approvals.ProblemDecided || !strings.HasPrefix(o.Words(), "decided by bob at ") {
		t.Errorf("alice after bob: %s (%v)", o.Words(), o.Err)
	}
	// Answered on the agent itself: the task moved on.
	mine = alice.prepare(second, approvals.Input{Kind: approvals.KindReply, Text: "release"})
	fx.ag.Answer(second)
	fx.waitHub("the task done on the hub", func(f *model.Fleet) bool {
		t := f.Task(model.TaskKey{Agent: "agent", ID: second})
		return t != nil && t.State == a2a.TaskStateCompleted
	})
	o = alice.svc.Send(context.Background(), mine)
	if o.Problem != approvals.ProblemMoved || o.State != a2a.TaskStateCompleted || !strings.Contains(o.Words(), "moved on") {
		t.Errorf("alice after the agent moved on: %s (%v)", o.Words(), o.Err)
	}
	if n := fx.ag.OnTask(first); n != 1 {
		t.Errorf("the first question received %d messages, want bob's alone", n)
	}
	if n := fx.ag.OnTask(second); n != 1 {
		t.Errorf("the second question received %d messages, want the agent's own answer alone", n)
	}
}

// TestRetryThroughTheHub: a decision whose send timed out (the agent
// slower than the hub's send timeout) is unknown; the dashboard's retry
// goes through the hub, which finds the message in the task's history
// and does not send it again.
func TestRetryThroughTheHub(t *testing.T) {
	fx := newFixture(t, func(o *hub.Options) { o.Journal.SendTimeout = 300 * time.Millisecond })
	alice := fx.attach("alice")
	id := fx.ag.Start("deploy")
	alice.waitFor("the deploy", func(f *model.Fleet) bool { return alice.inInbox(f, id) })
	fx.ag.SetDelay(time.Second)
	dec := alice.prepare(id, approvals.Input{Kind: approvals.KindApprove})
	o := alice.svc.Send(context.Background(), dec)
	if o.Result != approvals.ResultUnknown {
		t.Fatalf("the slow send: %s (%v), want unknown", o.Words(), o.Err)
	}
	fx.ag.SetDelay(0)
	fx.ag.WaitState(id, func(s a2a.TaskState) bool { return s == a2a.TaskStateCompleted })
	again, err := alice.svc.Retry(dec.MessageID)
	if err != nil {
		t.Fatal(err)
	}
	o = alice.svc.Send(context.Background(), again)
	if o.Result != approvals.ResultAccepted {
		t.Fatalf("the retry: %s (%v)", o.Words(), o.Err)
	}
	if n := fx.ag.OnTask(id); n != 1 {
		t.Errorf("the agent received %d messages, want 1: the retry found it in the history", n)
	}
	e, _ := alice.svc.Entry(dec.MessageID)
	if e.Attempts != 2 || e.Approver != "alice" || e.Result != approvals.ResultAccepted {
		t.Errorf("the journal's entry: %+v", e)
	}
}

// TestClaimsInform: opening a dialog claims the prompt; the others see
// "alice is answering" on the feed; it ends on release, or unrenewed
// after the TTL; one who may not answer cannot claim.
func TestClaimsInform(t *testing.T) {
	fx := newFixture(t, func(o *hub.Options) { o.ClaimTTL = 400 * time.Millisecond })
	alice, bob, carol := fx.attach("alice"), fx.attach("bob"), fx.attach("carol")
	id := fx.ag.Start("ask")
	for _, d := range []*dash{alice, bob} {
		d.waitFor("the question", func(f *model.Fleet) bool { return d.inInbox(f, id) })
	}
	claimed := func(d *dash, who string) bool { return d.claims(id, who, "answering") }
	if err := alice.cl.Claim(context.Background(), "agent", id, "answering"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "bob sees alice answering", func() bool { return claimed(bob, "alice") })
	waitUntil(t, "carol, who only watches, sees it too", func() bool { return claimed(carol, "alice") })
	if err := alice.cl.Release(context.Background(), "agent", id); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the claim released", func() bool { return !claimed(bob, "alice") })

	if err := bob.cl.Claim(context.Background(), "agent", id, "answering"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "alice sees bob answering", func() bool { return claimed(alice, "bob") })
	waitUntil(t, "bob's claim ends unrenewed", func() bool { return !claimed(alice, "bob") })
	if err := carol.cl.Claim(context.Background(), "agent", id, "answering"); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("carol's claim: %v, want 403", err)
	}
	// A dashboard attached later gets the claims in its snapshot.
	if err := alice.cl.Claim(context.Background(), "agent", id, "answering"); err != nil {
		t.Fatal(err)
	}
	late := fx.attach("carol")
	waitUntil(t, "a late dashboard sees the claim", func() bool { return claimed(late, "alice") })
}

// TestNoteLeftGoesToTheHubsJournal: a task that left the inbox while an
// operator wrote an answer is journaled by the hub, under that
// operator's name, and every dashboard's journal shows it.
func TestNoteLeftGoesToTheHubsJournal(t *testing.T) {
	fx := newFixture(t)
	alice, bob := fx.attach("alice"), fx.attach("bob")
	id := fx.ag.Start("ask")
	alice.waitFor("the question", func(f *model.Fleet) bool { return alice.inInbox(f, id) })
	if err := alice.svc.NoteLeft("agent", id, a2a.TaskStateInputRequired, a2a.TaskStateCompleted, "left the inbox while an answer was being written"); err != nil {
		t.Fatal(err)
	}
	noted := func() bool {
		for _, e := range bob.svc.Journal() {
			for _, s := range e.States {
				if e.TaskID == id && s.Note == "alice: left the inbox while an answer was being written" {
					return true
				}
			}
		}
		return false
	}
	bob.waitFor("alice's note in bob's journal", func(*model.Fleet) bool { return noted() })
	carol := fx.attach("carol")
	<-carol.cl.Synced()
	if err := carol.svc.NoteLeft("agent", id, a2a.TaskStateInputRequired, a2a.TaskStateCompleted, "x"); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("carol, who only watches, notes in the journal: %v", err)
	}
}

// TestClaimWords: what a dashboard shows of the others' claims, and the
// roles it shows keys for.
func TestClaimWords(t *testing.T) {
	fx := newFixture(t)
	alice, bob := fx.attach("alice"), fx.attach("bob")
	id := fx.ag.Start("ask")
	alice.waitFor("the question", func(f *model.Fleet) bool { return alice.inInbox(f, id) })
	<-bob.cl.Synced()
	if err := alice.cl.Claim(context.Background(), "agent", id, "answering"); err != nil {
		t.Fatal(err)
	}
	bob.waitFor("alice's claim", func(*model.Fleet) bool { return bob.cl.ClaimWords("agent", id) == "alice is answering" })
	if w := alice.cl.ClaimWords("agent", id); w != "" {
		t.Errorf("alice's own claim shown to her: %q", w)
	}
	if !bob.cl.May("agent", "answer") || bob.cl.May("agent", "approve") || bob.cl.Operator() != "bob" {
		t.Errorf("bob's roles as his dashboard sees them: answer %v, approve %v", bob.cl.May("agent", "answer"), bob.cl.May("agent", "approve"))
	}
}
