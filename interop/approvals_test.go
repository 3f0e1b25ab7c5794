package interop

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/model"
)

// TestApprovalsReachThePeer: INPUT_REQUIRED answered, and AUTH_REQUIRED
// approved and denied, through approvals.Service on top of a2aclient,
// reach the agent on the same taskId: the agent's task carries our
// messageId in its history and ends COMPLETED, COMPLETED and FAILED.
func TestApprovalsReachThePeer(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		token := "approvals-" + tg.Name
		raw, _ := tg.client(t, token)
		asked := send(t, raw, "", "ask", false)
		approveMe := send(t, raw, "", "approve-me", false)
		denyMe := send(t, raw, "", "approve-me", false)
		opts := tg.agent("peer", token)
		opts.Subscribe = true
		opts.Tasks = []a2a.TaskID{asked.ID, approveMe.ID, denyMe.ID}
		c := runManager(t, opts)
		svc, err := approvals.Open(approvals.Options{
			JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"),
			Sender:      c.M,
			Approver:    "tester@interop",
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })

		var items []approvals.Item
		c.wait(t, "three interrupted tasks in the inbox", func() bool {
			items = svc.Queue(c.Fleet, model.SortAge)
			return len(items) == 3
		})
		inputs := map[a2a.TaskID]approvals.Input{
			asked.ID:     {Kind: approvals.KindReply, Text: "staging"},
			approveMe.ID: {Kind: approvals.KindApprove, Reason: "looks fine"},
			denyMe.ID:    {Kind: approvals.KindDeny, Reason: "not today"},
		}
		want := map[a2a.TaskID]a2a.TaskState{
			asked.ID: a2a.TaskStateCompleted, approveMe.ID: a2a.TaskStateCompleted, denyMe.ID: a2a.TaskStateFailed,
		}
		sent := map[a2a.TaskID]string{}
		for _, it := range items {
			var d *approvals.Decision
			var err error
			c.with(func() { d, err = svc.Prepare(it, inputs[it.Key().ID]) })
			if err != nil {
				t.Fatalf("Prepare %s: %v", it.Key().ID, err)
			}
			if d.Message.TaskID != it.Key().ID {
				t.Fatalf("decision for %s is addressed to task %q", it.Key().ID, d.Message.TaskID)
			}
			out := svc.Send(ctxT(t), d)
			if out.Result != approvals.ResultAccepted {
				t.Fatalf("Send %s (%s): %s %s %v", it.Key().ID, d.Kind, out.Result, out.Problem, out.Err)
			}
			sent[it.Key().ID] = d.MessageID
		}
		for id, state := range want {
			got := waitState(t, raw, id, state)
			if !slices.ContainsFunc(got.History, func(m *a2a.Message) bool { return m.ID == sent[id] }) {
				t.Errorf("task %s (%s): our messageId %s is not in its history", id, state, sent[id])
			}
			c.waitState(t, "peer", id, state)
		}
	})
}

// TestReplyResultNotShared: what Manager.Reply returns must not be the
// object it also hands to the model through Events (the UI goroutine
// applies events while approvals reads the reply in a tea.Cmd).
func TestReplyResultNotShared(t *testing.T) {
	tg := goTargets(t)[0]
	raw, _ := tg.client(t, "shared")
	asked := send(t, raw, "", "ask", false)
	opts := tg.agent("peer", "shared")
	opts.Tasks = []a2a.TaskID{asked.ID}
	c := runManager(t, opts)
	c.waitState(t, "peer", asked.ID, a2a.TaskStateInputRequired)
	got, err := c.M.Reply(ctxT(t), "peer", textMsg(asked.ID, "staging"))
	if err != nil || got == nil {
		t.Fatalf("Reply: %v %v", got, err)
	}
	c.wait(t, "the reply's own event", func() bool {
		st := c.tasks["peer"][asked.ID]
		return st != nil && st.Sources[model.SourceReply] > 0
	})
	if c.sharedWithEvents(got) {
		t.Fatal("Manager.Reply returned the *a2a.Task it also sent on Events; model.Fleet updates snapshots in place, " +
			"so approvals reading the result races with the UI applying events")
	}
}

// TestApprovalsReplyToEndedTask: the task ends after approvals checked it
// and before our reply reaches the agent (a proxy holds the SendMessage
// until another client has canceled the task). The agent itself refuses
// the reply (the JS SDK with -32004 UnsupportedOperation, as the spec
// says); approvals says the task ended first and offers a follow-up, which
// starts a new task in the same context naming the ended one in
// referenceTaskIds. On gRPC the proxy fronts the agent's gRPC listener.
func TestApprovalsReplyToEndedTask(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		token := "ended-" + tg.Name
		raw, _ := tg.client(t, token)
		asked := send(t, raw, "", "ask", false)
		px := startProxy(t, tg.URL)
		px.holdSends(string(asked.ID))
		via := tg
		via.URL = px.URL
		if tg.SDK == a2a.TransportProtocolGRPC {
			via.AllowedHosts = []string{px.frontGRPC(t, tg.AllowedHosts[0])}
		}
		opts := via.agent("peer", token)
		opts.Tasks = []a2a.TaskID{asked.ID}
		c := runManager(t, opts)
		svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"), Sender: c.M, Approver: "tester@interop"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		var items []approvals.Item
		c.wait(t, "the INPUT_REQUIRED task in the inbox", func() bool {
			items = svc.Queue(c.Fleet, model.SortAge)
			return len(items) == 1
		})
		var d *approvals.Decision
		c.with(func() {
			d, err = svc.Prepare(items[0], approvals.Input{Kind: approvals.KindReply, Text: "run passed=3"})
		})
		if err != nil {
			t.Fatal(err)
		}
		sent := make(chan approvals.Outcome, 1)
		go func() { sent <- svc.Send(context.Background(), d) }()
		c.wait(t, "the reply held at the proxy", func() bool { return px.heldSends(string(asked.ID)) == 1 })
		if got, err := raw.CancelTask(ctxT(t), &a2a.CancelTaskRequest{ID: asked.ID}); err != nil || got.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("cancel by the other client: %v %v", stateOf(got), err)
		}
		px.releaseSends(string(asked.ID))
		out := <-sent
		if out.Result != approvals.ResultRefused || out.Problem != approvals.ProblemTaskEnded || !out.FollowUp || out.State != a2a.TaskStateCanceled {
			t.Fatalf("reply to the ended task: %s/%s follow-up=%v state=%s err=%v", out.Result, out.Problem, out.FollowUp, out.State, out.Err)
		}
		t.Logf("the agent refused with RPC code %d: %v", rpcCodeOf(out.Err), out.Err)
		if strings.HasPrefix(tg.Name, "js/") && (rpcCodeOf(out.Err) != -32004 || !errors.Is(out.Err, a2a.ErrUnsupportedOperation)) {
			t.Errorf("the JS SDK refuses a message on a terminal task with -32004; got code %d: %v", rpcCodeOf(out.Err), out.Err)
		}
		if e, _ := svc.Entry(d.MessageID); e.Via != "send" || e.Problem != approvals.ProblemTaskEnded {
			t.Fatalf("journal: via %q problem %q, want the agent's own refusal recorded as task-ended", e.Via, e.Problem)
		}

		f, err := svc.PrepareFollowUp(d.MessageID)
		if err != nil {
			t.Fatal(err)
		}
		fo := svc.Send(ctxT(t), f)
		if fo.Result != approvals.ResultAccepted || fo.Task == nil || fo.Task.ID == asked.ID || fo.Task.ContextID != asked.ContextID {
			t.Fatalf("follow-up: %s/%s %v, task %+v", fo.Result, fo.Problem, fo.Err, fo.Task)
		}
		got, err := raw.GetTask(ctxT(t), &a2a.GetTaskRequest{ID: fo.Task.ID})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(got.History, func(m *a2a.Message) bool { return m.ID == f.MessageID })
		if i >= 0 && tg.SDK == a2a.TransportProtocolHTTPJSON && tg.Version == "0.3" {
			// The Go SDK v2.4.0's 0.3 HTTP+JSON conversion (a2apb/v0/pbjson)
			// copies no referenceTaskIds either way. a2aclient puts them
			// back on what it sends; the Go 0.3 REST server still drops
			// them on its side, so its history cannot show them.
			if !sentWithRefs(c.M.Capture("peer"), f.MessageID, asked.ID) {
				t.Fatalf("the follow-up %s left without referenceTaskIds [%s]", f.MessageID, asked.ID)
			}
			if len(got.History[i].ReferenceTasks) != 0 {
				t.Fatalf("the Go 0.3 REST server now keeps referenceTaskIds (%v): the SDK was fixed, update this test and the README", got.History[i].ReferenceTasks)
			}
			return
		}
		if i < 0 || !slices.Equal(got.History[i].ReferenceTasks, []a2a.TaskID{asked.ID}) {
			for _, m := range got.History {
				t.Logf("history: %+v", *m)
			}
			t.Fatalf("the follow-up task's history does not hold our message naming %s", asked.ID)
		}
	})
}

// sentWithRefs reports whether the capture holds a request carrying the
// message messageID with referenceTaskIds exactly [ref], as it left a2aclient.
func sentWithRefs(exs []model.Exchange, messageID string, ref a2a.TaskID) bool {
	for _, ex := range exs {
		i := strings.Index(ex.Request, "{")
		if i < 0 || !strings.Contains(ex.Request, messageID) {
			continue
		}
		var req struct {
			Message *struct {
				ID   string       `json:"messageId"`
				Refs []a2a.TaskID `json:"referenceTaskIds"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(ex.Request[i:]), &req) == nil && req.Message != nil &&
			req.Message.ID == messageID && slices.Equal(req.Message.Refs, []a2a.TaskID{ref}) {
			return true
		}
	}
	return false
}
