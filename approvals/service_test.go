package approvals

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestReplyReachesTheSameTask(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         Input
		wantAnswer string
	}{
		{"text", Input{Kind: KindReply, Text: "main"}, "compared against main"},
		{"data", Input{Kind: KindReply, JSON: `{"branch": "release"}`}, `"branch": "release"`},
		{"both", Input{Kind: KindReply, Text: "see data", JSON: `["main"]`}, "see data["},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t)
			mt := fx.start(t, "ask")
			d := fx.mustPrepare(t, mt, tc.in)
			if d.Message.TaskID != mt.Key.ID || d.Message.ContextID != mt.Snapshot.ContextID || d.Message.Role != a2a.MessageRoleUser {
				t.Fatalf("message not on the task: %+v", d.Message)
			}
			out := fx.svc.Send(context.Background(), d)
			if out.Result != ResultAccepted {
				t.Fatalf("Send: %s %v (%s)", out.Result, out.Err, out.Words())
			}
			done := fx.task(t, mt.Key.ID, isTerminal)
			if done.State != a2a.TaskStateCompleted || !strings.Contains(done.Snapshot.Status.Message.Parts[0].Text(), tc.wantAnswer) {
				t.Fatalf("task %s: %q", done.State, done.Snapshot.Status.Message.Parts[0].Text())
			}
			if !holds(done.Snapshot, d.MessageID) {
				t.Fatal("our message is not in the task's history")
			}
			if n := fx.ag.times(d.MessageID); n != 1 {
				t.Fatalf("agent received the reply %d times", n)
			}
			got := recordTypes(records(t, fx.path), d.MessageID)
			if len(got) < 2 || got[0] != "decision" || got[1] != "outcome:accepted" {
				t.Fatalf("journal records = %v", got)
			}
		})
	}
}

func TestApproveProceedsDenyFails(t *testing.T) {
	fx := newFixture(t)
	a := fx.start(t, "deploy")
	d := fx.mustPrepare(t, a, Input{Kind: KindApprove})
	if out := fx.svc.Send(context.Background(), d); out.Result != ResultAccepted {
		t.Fatalf("approve: %s %v", out.Result, out.Err)
	}
	if got := fx.task(t, a.Key.ID, isTerminal); got.State != a2a.TaskStateCompleted {
		t.Fatalf("approved deploy is %s", got.State)
	}

	b := fx.start(t, "deploy")
	if _, err := fx.svc.Prepare(fx.svc.ItemFor(b), Input{Kind: KindDeny}); !errors.Is(err, ErrReasonRequired) {
		t.Fatalf("deny without reason: %v", err)
	}
	d = fx.mustPrepare(t, b, Input{Kind: KindDeny, Reason: "staging is frozen"})
	if got := d.Message.Parts[0].Text(); got != "denied: staging is frozen" {
		t.Fatalf("deny text = %q", got)
	}
	if out := fx.svc.Send(context.Background(), d); out.Result != ResultAccepted {
		t.Fatalf("deny: %s %v", out.Result, out.Err)
	}
	if got := fx.task(t, b.Key.ID, isTerminal); got.State != a2a.TaskStateFailed {
		t.Fatalf("denied deploy is %s", got.State)
	}
	e, _ := fx.svc.Entry(d.MessageID)
	if e.Reason != "staging is frozen" || e.Approver != "ops@test" || e.Kind != KindDeny || len(e.Parts) != 2 {
		t.Fatalf("journal entry = %+v", e)
	}
}

func TestOutOfBandAgentRefusal(t *testing.T) {
	fx := newFixture(t)
	mt := fx.start(t, "oob")
	d := fx.mustPrepare(t, mt, Input{Kind: KindApprove})
	out := fx.svc.Send(context.Background(), d)
	if out.Result != ResultRefused || out.Problem != ProblemOutOfBand {
		t.Fatalf("got %s/%s %v", out.Result, out.Problem, out.Err)
	}
	if !strings.Contains(out.Words(), "expects out-of-band authorization") {
		t.Fatalf("words = %q", out.Words())
	}
	e, _ := fx.svc.Entry(d.MessageID)
	if e.Result != ResultRefused || e.Problem != ProblemOutOfBand {
		t.Fatalf("journal: %s/%s", e.Result, e.Problem)
	}
	// The same prompt needs a second confirmation now.
	if _, err := fx.svc.Prepare(fx.svc.ItemFor(mt), Input{Kind: KindApprove}); !errors.Is(err, ErrAlreadyDecided) {
		t.Fatalf("second decision without confirming again: %v", err)
	}
	if _, err := fx.svc.Prepare(fx.svc.ItemFor(mt), Input{Kind: KindApprove, Again: true}); err != nil {
		t.Fatalf("second decision confirmed again: %v", err)
	}
	// Resolved out of band, the journal shows the state change apart.
	fx.ag.grant(mt.Key.ID)
	if err := fx.svc.ObserveState("agent", mt.Key.ID, a2a.TaskStateCompleted); err != nil {
		t.Fatal(err)
	}
	e, _ = fx.svc.Entry(d.MessageID)
	if e.Result != ResultRefused || e.AgentState() != a2a.TaskStateCompleted {
		t.Fatalf("after grant: %s, agent %s", e.Result, e.AgentState())
	}
}

func TestResumedOutOfBandWhileTyping(t *testing.T) {
	fx := newFixture(t)
	mt := fx.start(t, "oob")
	d := fx.mustPrepare(t, mt, Input{Kind: KindDeny, Reason: "not now"})
	fx.ag.grant(mt.Key.ID) // the agent moves on while the operator confirms
	out := fx.svc.Send(context.Background(), d)
	if out.Result != ResultRefused || out.Problem != ProblemMoved && out.Problem != ProblemTaskEnded {
		t.Fatalf("got %s/%s %v", out.Result, out.Problem, out.Err)
	}
	if n := fx.ag.times(d.MessageID); n != 0 {
		t.Fatalf("the agent received the stale decision %d times", n)
	}
	got := recordTypes(records(t, fx.path), d.MessageID)
	want := []string{"decision", "outcome:refused", "state:completed"}
	if !slices.Equal(got, want) {
		t.Fatalf("journal = %v, want %v", got, want)
	}
	// The other path: the item left the inbox before any send.
	mt2 := fx.start(t, "oob")
	fx.ag.grant(mt2.Key.ID)
	if err := fx.svc.NoteLeft("agent", mt2.Key.ID, a2a.TaskStateAuthRequired, a2a.TaskStateCompleted, "left the inbox while a reply was being written; nothing was sent"); err != nil {
		t.Fatal(err)
	}
	j := fx.svc.Journal()
	if !j[0].Observed() || j[0].TaskID != mt2.Key.ID || !strings.Contains(j[0].States[0].Note, "nothing was sent") {
		t.Fatalf("newest journal entry = %+v", j[0])
	}
}

func TestReplyToTaskThatJustEnded(t *testing.T) {
	fx := newFixture(t)
	mt := fx.start(t, "ask")
	d := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "main"})
	// The task ends inside the agent just before it handles our message.
	// The Go SDK stores INPUT_REQUIRED a moment before the execution that
	// wrote it has closed its queue; a cancel in that moment fails with
	// "queue is closed", so try again until the task has ended.
	cancel := func(id a2a.TaskID) {
		var err error
		for range 200 {
			if _, err = fx.ag.handler.CancelTask(testUserCtx(), &a2a.CancelTaskRequest{ID: id}); err == nil {
				return
			}
			if task, gerr := fx.ag.handler.GetTask(testUserCtx(), &a2a.GetTaskRequest{ID: id}); gerr == nil && isTerminal(task.Status.State) {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Errorf("cancel: %v", err)
	}
	fx.ag.beforeSend.Store(&cancel)
	out := fx.svc.Send(context.Background(), d)
	fx.ag.beforeSend.Store(nil)
	if out.Result != ResultRefused || out.Problem != ProblemTaskEnded || !out.FollowUp || out.State != a2a.TaskStateCanceled {
		t.Fatalf("got %s/%s follow-up=%v state=%s err=%v", out.Result, out.Problem, out.FollowUp, out.State, out.Err)
	}
	if e, _ := fx.svc.Entry(d.MessageID); e.Via != "send" || fx.ag.times(d.MessageID) != 1 {
		t.Fatalf("the agent itself should have refused the message: via %q, received %d", e.Via, fx.ag.times(d.MessageID))
	}
	f, err := fx.svc.PrepareFollowUp(d.MessageID)
	if err != nil {
		t.Fatal(err)
	}
	if f.Message.TaskID != "" || f.Message.ContextID != mt.Snapshot.ContextID || !slices.Equal(f.Message.ReferenceTasks, []a2a.TaskID{mt.Key.ID}) {
		t.Fatalf("follow-up message = %+v", f.Message)
	}
	fo := fx.svc.Send(context.Background(), f)
	if fo.Result != ResultAccepted || fo.Task == nil || fo.Task.ID == mt.Key.ID || fo.Task.ContextID != mt.Snapshot.ContextID {
		t.Fatalf("follow-up: %s %v %+v", fo.Result, fo.Err, fo.Task)
	}

	// Ended before we even sent: the check catches it, nothing leaves.
	mt2 := fx.start(t, "ask")
	d2 := fx.mustPrepare(t, mt2, Input{Kind: KindReply, Text: "main"})
	cancel(mt2.Key.ID)
	out = fx.svc.Send(context.Background(), d2)
	if out.Problem != ProblemTaskEnded || !out.FollowUp || fx.ag.times(d2.MessageID) != 0 {
		t.Fatalf("ended before send: %s/%s, received %d", out.Result, out.Problem, fx.ag.times(d2.MessageID))
	}
}

func TestTimeoutIsUnknownThenReconciled(t *testing.T) {
	t.Run("delivered", func(t *testing.T) {
		fx := newFixture(t, func(o *Options) { o.SendTimeout = 300e6 })
		mt := fx.start(t, "ask")
		d := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "main"})
		fx.ag.holdAfter.Store(true)
		out := fx.svc.Send(context.Background(), d)
		fx.ag.holdAfter.Store(false)
		if out.Result != ResultUnknown || out.Problem != ProblemTimeout {
			t.Fatalf("got %s/%s %v", out.Result, out.Problem, out.Err)
		}
		rs := fx.svc.Reconcile(context.Background())
		if len(rs) != 1 || rs[0].Result != ResultAccepted {
			t.Fatalf("reconcile = %+v", rs)
		}
		if _, err := fx.svc.Retry(d.MessageID); err == nil {
			t.Fatal("retry of an accepted decision was allowed")
		}
		if n := fx.ag.times(d.MessageID); n != 1 {
			t.Fatalf("received %d times", n)
		}
	})
	t.Run("not delivered", func(t *testing.T) {
		fx := newFixture(t, func(o *Options) { o.SendTimeout = 300e6 })
		mt := fx.start(t, "ask")
		d := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "main"})
		fx.ag.holdBefore.Store(true)
		out := fx.svc.Send(context.Background(), d)
		fx.ag.holdBefore.Store(false)
		if out.Result != ResultUnknown {
			t.Fatalf("got %s/%s %v", out.Result, out.Problem, out.Err)
		}
		rs := fx.svc.Reconcile(context.Background())
		if len(rs) != 1 || rs[0].Result != ResultNotDelivered {
			t.Fatalf("reconcile = %+v", rs)
		}
		if _, err := fx.svc.Prepare(fx.svc.ItemFor(mt), Input{Kind: KindReply, Text: "main"}); !errors.Is(err, ErrAlreadyDecided) {
			t.Fatalf("a new decision on the same prompt without confirming: %v", err)
		}
		r, err := fx.svc.Retry(d.MessageID)
		if err != nil || r.MessageID != d.MessageID || r.Attempt != 2 {
			t.Fatalf("retry: %+v %v", r, err)
		}
		if out := fx.svc.Send(context.Background(), r); out.Result != ResultAccepted {
			t.Fatalf("retry send: %s %v", out.Result, out.Err)
		}
		if n := fx.ag.times(d.MessageID); n != 1 {
			t.Fatalf("received %d times", n)
		}
		got := recordTypes(records(t, fx.path), d.MessageID)
		want := []string{"decision", "outcome:unknown", "outcome:not-delivered", "retry", "outcome:accepted", "state:working"}
		if !slices.Equal(got[:5], want[:5]) {
			t.Fatalf("journal = %v", got)
		}
	})
}

func TestRefusalsInWords(t *testing.T) {
	t.Run("task not found", func(t *testing.T) {
		fx := newFixture(t)
		mt := fx.start(t, "ask")
		mt.Key.ID, mt.Snapshot.ID = "no-such-task", "no-such-task"
		d := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "x"})
		out := fx.svc.Send(context.Background(), d)
		if out.Problem != ProblemNotFound || !strings.Contains(out.Next(), "credentials") {
			t.Fatalf("got %s/%s %q", out.Result, out.Problem, out.Next())
		}
	})
	t.Run("unauthorized", func(t *testing.T) {
		fx := newFixture(t)
		mt := fx.start(t, "ask")
		fx.ag.token = "s3cret"
		d := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "x"})
		out := fx.svc.Send(context.Background(), d)
		if out.Problem != ProblemUnauthorized || !strings.Contains(out.Next(), "auth headers") {
			t.Fatalf("got %s/%s %v", out.Result, out.Problem, out.Err)
		}
		if fx.ag.times(d.MessageID) != 0 {
			t.Fatal("sent despite the check failing")
		}
	})
}

// TestReadOnlyJournalRefusesEveryWrite: a journal opened for reading only
// records nothing, so it decides and sends nothing.
func TestReadOnlyJournalRefusesEveryWrite(t *testing.T) {
	fx := newFixture(t)
	mt := fx.start(t, "ask")
	d := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "main"})
	path := fx.path + ".ro"
	ro, err := Open(Options{JournalPath: path, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.Prepare(ro.ItemFor(mt), Input{Kind: KindReply, Text: "main"}); !errors.Is(err, ErrJournalReadOnly) {
		t.Fatalf("Prepare: %v", err)
	}
	if out := ro.Send(context.Background(), d); out.Result != ResultRefused || out.Problem != ProblemJournal || !errors.Is(out.Err, ErrJournalReadOnly) {
		t.Fatalf("Send: %s/%s", out.Result, out.Problem)
	}
	if err := ro.NoteLeft("agent", mt.Key.ID, "", "", ""); err != nil || ro.Reconcile(context.Background()) != nil {
		t.Fatal("read-only wrote or reconciled")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("read-only created the journal: %v", err)
	}
	if fx.ag.times(d.MessageID) != 0 {
		t.Fatal("read-only sent")
	}
}

func TestSendTwiceIsRefused(t *testing.T) {
	fx := newFixture(t)
	mt := fx.start(t, "ask")
	d := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "main"})
	if out := fx.svc.Send(context.Background(), d); out.Result != ResultAccepted {
		t.Fatal(out.Err)
	}
	if out := fx.svc.Send(context.Background(), d); out.Result != ResultRefused || out.Problem != ProblemInFlight {
		t.Fatalf("second send: %s/%s", out.Result, out.Problem)
	}
	if n := fx.ag.times(d.MessageID); n != 1 {
		t.Fatalf("received %d times", n)
	}
}
