package approvals

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// countingFile records the order of writes and syncs.
type countingFile struct {
	syncWriter
	ops []string
}

func (c *countingFile) Write(b []byte) (int, error) {
	c.ops = append(c.ops, "write")
	return c.syncWriter.Write(b)
}

func (c *countingFile) Sync() error {
	c.ops = append(c.ops, "sync")
	return c.syncWriter.Sync()
}

func decisionRecord(id string) record {
	return record{Type: recDecision, ID: id, At: time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC), Agent: "deployer",
		Task: "t1", Context: "c1", Kind: KindApprove, Prompt: "p1", State: a2a.TaskStateAuthRequired,
		Parts:    a2a.ContentParts{a2a.NewTextPart("approved"), a2a.NewDataPart(map[string]any{"decision": "approve"})},
		Approver: "ops@test", Attempt: 1}
}

func TestJournalFileIsPrivateAndSyncedPerRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "journal.jsonl")
	j, recs, err := openJournal(path, false)
	if err != nil || len(recs) != 0 {
		t.Fatalf("open: %v %v", recs, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	cf := &countingFile{syncWriter: j.f}
	j.f = cf
	for _, id := range []string{"m1", "m2", "m3"} {
		if err := j.append(decisionRecord(id)); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(cf.ops, ","); got != "write,sync,write,sync,write,sync" {
		t.Fatalf("ops = %s; want one fsync after each record", got)
	}
	j.close()

	// An existing, too-open file is made private again.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	j2, recs, err := openJournal(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("reopened mode = %v", fi.Mode().Perm())
	}
	if len(recs) != 3 || recs[2].ID != "m3" || recs[0].Parts[1].Data().(map[string]any)["decision"] != "approve" {
		t.Fatalf("read back %+v", recs)
	}
}

func TestJournalToleratesTornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, _, err := openJournal(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.append(decisionRecord("m1")); err != nil {
		t.Fatal(err)
	}
	j.close()
	// A crash in the middle of the next write leaves half a line.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"v":1,"type":"outcome","id":"m1","res`)
	f.Close()

	j, recs, err := openJournal(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].ID != "m1" || j.damaged != 0 {
		t.Fatalf("records %d, damaged %d", len(recs), j.damaged)
	}
	if err := j.append(record{Type: recOutcome, ID: "m1", Result: ResultAccepted}); err != nil {
		t.Fatal(err)
	}
	j.close()
	j, recs, err = openJournal(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[1].Result != ResultAccepted || j.damaged != 1 {
		t.Fatalf("after the next record: %d records, damaged %d", len(recs), j.damaged)
	}
}

func TestServiceReadsJournalBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, _, _ := openJournal(path, false)
	at := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	for _, r := range []record{
		decisionRecord("m1"),
		{Type: recOutcome, ID: "m1", At: at.Add(time.Second), Result: ResultAccepted, State: a2a.TaskStateWorking, Via: "send"},
		{Type: recState, ID: "m1", At: at.Add(2 * time.Second), Agent: "deployer", Task: "t1", From: a2a.TaskStateAuthRequired, To: a2a.TaskStateCompleted, Source: "fleet"},
		{Type: recState, At: at.Add(3 * time.Second), Agent: "deployer", Task: "t2", From: a2a.TaskStateAuthRequired, To: a2a.TaskStateWorking, Source: "fleet", Note: "nothing was sent"},
	} {
		if err := j.append(r); err != nil {
			t.Fatal(err)
		}
	}
	j.close()
	svc, err := Open(Options{JournalPath: path, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	got := svc.Journal()
	if len(got) != 2 || !got[0].Observed() || got[1].MessageID != "m1" {
		t.Fatalf("journal = %+v", got)
	}
	e := got[1]
	if e.Result != ResultAccepted || e.AgentState() != a2a.TaskStateCompleted || e.Approver != "ops@test" || len(e.Parts) != 2 {
		t.Fatalf("entry = %+v", e)
	}
	if p, ok := svc.Prior("deployer", "t1", "p1"); !ok || p.MessageID != "m1" {
		t.Fatalf("prior = %+v %v", p, ok)
	}
}
