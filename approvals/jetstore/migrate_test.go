package jetstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/approvals/jetstore"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

// decideOnFile makes a file journal of n real decisions (approve, sent
// to a real agent), and returns the journal's entries.
func decideOnFile(t *testing.T, path string, n int) []approvals.Entry {
	t.Helper()
	ag := agenttest.StartAgent(t)
	mgr := a2aclient.New([]a2aclient.AgentOptions{{Name: "agent", URL: ag.URL}}, a2aclient.Options{})
	svc, err := approvals.Open(approvals.Options{JournalPath: path, Sender: mgr, Approver: "ops@test",
		Agents: []approvals.Agent{{Name: "agent", URL: ag.URL}}, SendTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	for range n {
		id := ag.Start("deploy")
		task, err := mgr.Get(context.Background(), "agent", id, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		f := model.NewFleet(model.Options{})
		f.AddAgent("agent", ag.URL)
		f.Apply([]model.Event{{Kind: model.EventTask, Agent: "agent", Task: task}})
		it, _ := svc.ItemOf(f, model.TaskKey{Agent: "agent", ID: id})
		d, err := svc.Prepare(it, approvals.Input{Kind: approvals.KindApprove})
		if err != nil {
			t.Fatal(err)
		}
		if o := svc.Send(context.Background(), d); o.Result != approvals.ResultAccepted {
			t.Fatalf("the decision was not accepted: %s", o.Words())
		}
		ag.WaitState(id, func(s a2a.TaskState) bool { return s == a2a.TaskStateCompleted })
	}
	return svc.Journal()
}

func journalOn(t *testing.T, url string) *jetstore.Journal {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := jetstore.Open(ctx, jetstore.Config{URLs: []string{url}, Replicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	j, err := st.Journal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestMigrateCopiesOnceLineByLine: a file journal of real decisions is
// copied into an empty stream, read back and compared line by line; a
// hub on the stream shows the same journal; a second copy is refused.
func TestMigrateCopiesOnceLineByLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	want := decideOnFile(t, path, 5)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(raw), "\n")
	url := startServer(t, true)
	m, err := approvals.Migrate(path, journalOn(t, url))
	if err != nil {
		t.Fatal(err)
	}
	if m.Lines != lines || !m.Verified || m.Damaged != 0 {
		t.Fatalf("migrated %+v, want %d lines verified", m, lines)
	}
	svc, err := approvals.Open(approvals.Options{Shared: journalOn(t, url), ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	got := svc.Journal()
	if len(got) != len(want) {
		t.Fatalf("the stream's journal has %d entries, the file's %d", len(got), len(want))
	}
	for i := range want {
		if got[i].MessageID != want[i].MessageID || got[i].Result != want[i].Result || got[i].Approver != want[i].Approver || len(got[i].States) != len(want[i].States) {
			t.Fatalf("entry %d: the stream has %s %s by %s, the file %s %s by %s", i, got[i].MessageID, got[i].Result, got[i].Approver,
				want[i].MessageID, want[i].Result, want[i].Approver)
		}
	}
	if _, err := approvals.Migrate(path, journalOn(t, url)); err == nil || !strings.Contains(err.Error(), "copied once") {
		t.Fatalf("a second copy: %v, want it refused", err)
	}
}
