package ui_test

import (
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui"
	"a2atop/ui/inbox"
	"a2atop/ui/internal/uitest"
	"a2atop/ui/theme"
)

// TestTheDetailListsTheVotes: under a two-person approval policy, alice
// votes on the deploy from another process sharing the journal; the
// deploy's detail lists where the votes stand and her vote, with its
// time and reason, and says nothing is sent yet.
func TestTheDetailListsTheVotes(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	fleet := model.NewFleet(model.Options{})
	fleet.AddAgent("deployer", "http://127.0.0.1:1")
	fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: "deployer", Source: model.SourceSweep, At: now, Task: &a2a.Task{
		ID: "abfc4a03-0000-4000-8000-000000000001", ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.TaskStateAuthRequired,
			Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("approve deploy of 9f3c2e1 to production?")), Timestamp: &now}}}})
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	open := func(approver string) *approvals.Service {
		svc, err := approvals.Open(approvals.Options{JournalPath: path, Sender: &recordingSender{}, Approver: approver, Now: clock,
			QuietPeriod: 500 * time.Millisecond, Policies: map[string]approvals.Policy{"deployer": {Required: 2, RequireReason: true}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		return svc
	}
	svc, alice := open("ops@host"), open("alice@host")
	d, err := alice.Prepare(alice.ItemFor(fleet.Task(model.TaskKey{Agent: "deployer", ID: "abfc4a03-0000-4000-8000-000000000001"})),
		approvals.Input{Kind: approvals.KindApprove, Reason: "rollout window ok"})
	if err != nil {
		t.Fatal(err)
	}
	if o := alice.Send(t.Context(), d); o.Result != approvals.ResultVoted {
		t.Fatalf("alice's vote: %s (%v)", o.Words(), o.Err)
	}
	if _, err := svc.Refresh(); err != nil {
		t.Fatal(err)
	}
	views := inbox.Options{Sort: model.SortAge}
	m := ui.New(ui.Options{Fleet: fleet, Output: io.Discard, Now: clock, Theme: theme.New(theme.Options{Mode: theme.ModeDark}),
		Inbox: inbox.InboxFactory(svc, views), Journal: inbox.JournalFactory(svc, views), Approvals: svc})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	send(m, uitest.Key("tab"))
	send(m, uitest.Key("enter")) // the deploy's detail
	v := m.View()
	for _, want := range []string{"1 of 2 approvals: nothing is sent until the last", `✓ alice@host approved ` + now.Local().Format("15:04") + ` "rollout window ok"`} {
		if !strings.Contains(v, want) {
			t.Errorf("the deploy's detail does not say %q:\n%s", want, v)
		}
	}
}
