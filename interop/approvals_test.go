package interop

import (
	"path/filepath"
	"slices"
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
