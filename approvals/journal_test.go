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
	st, err := openFileStore(path, false, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, lockPath(path)} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: mode = %v, %v; want 0600", p, fi.Mode().Perm(), err)
		}
	}
	cf := &countingFile{syncWriter: st.w}
	st.w = cf
	for _, id := range []string{"m1", "m2", "m3"} {
		if err := st.update(func([]line, bool) {}, func() ([]record, error) { return []record{decisionRecord(id)}, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(cf.ops, ","); got != "write,sync,write,sync,write,sync" {
		t.Fatalf("ops = %s; want one fsync after each record", got)
	}
	st.close()

	// An existing, too-open file is made private again.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	st2, err := openFileStore(path, false, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	st2.close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("reopened mode = %v", fi.Mode().Perm())
	}
	recs := records(t, path)
	if len(recs) != 3 || recs[2].ID != "m3" || recs[0].Parts[1].Data().(map[string]any)["decision"] != "approve" {
		t.Fatalf("read back %+v", recs)
	}
}

// TestJournalToleratesTornLastLine: half a line after a crash is a torn
// line, not damage, and stays so once the next writer has started a new
// line after it (it names the torn line in a "torn" record), whoever
// reads the journal later.
func TestJournalToleratesTornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	appendRecords(t, path, decisionRecord("m1"))
	// A crash in the middle of the next write leaves half a line.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"v":2,"type":"outcome","id":"m1","res`)
	f.Close()

	svc, err := Open(Options{JournalPath: path, Sender: newSDKSender()})
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := svc.Entry("m1"); e.Result != ResultPending || svc.Damaged() != 0 {
		t.Fatalf("entry %+v, damaged %d", e, svc.Damaged())
	}
	if err := svc.write(record{Type: recOutcome, ID: "m1", Result: ResultAccepted}); err != nil {
		t.Fatal(err)
	}
	svc.Close()
	for _, readOnly := range []bool{true, false} {
		svc, err := Open(Options{JournalPath: path, ReadOnly: readOnly, Sender: newSDKSender()})
		if err != nil {
			t.Fatal(err)
		}
		e, _ := svc.Entry("m1")
		dm := svc.Damage()
		if e.Result != ResultAccepted || svc.Damaged() != 0 || len(dm) != 1 || !dm[0].Torn || dm[0].Line != 2 || dm[0].Blocks {
			t.Fatalf("after the next record (read-only %v): entry %s, damaged %d, lines %+v", readOnly, e.Result, svc.Damaged(), dm)
		}
		svc.Close()
	}
	b, _ := os.ReadFile(path)
	if lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"); len(lines) != 4 || !strings.Contains(lines[2], `"type":"torn","at"`) || !strings.Contains(lines[2], `"line":2`) {
		t.Fatalf("the journal after the next write:\n%s", b)
	}
}

func TestServiceReadsJournalBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	at := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	appendRecords(t, path,
		decisionRecord("m1"),
		record{Type: recOutcome, ID: "m1", At: at.Add(time.Second), Result: ResultAccepted, State: a2a.TaskStateWorking, Via: "send"},
		record{Type: recState, ID: "m1", At: at.Add(2 * time.Second), Agent: "deployer", Task: "t1", From: a2a.TaskStateAuthRequired, To: a2a.TaskStateCompleted, Source: "fleet"},
		record{Type: recState, At: at.Add(3 * time.Second), Agent: "deployer", Task: "t2", From: a2a.TaskStateAuthRequired, To: a2a.TaskStateWorking, Source: "fleet", Note: "nothing was sent"},
	)
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

// TestJournalReadsVersion1: a journal written before records had
// checksums and agent URLs is read as it was.
func TestJournalReadsVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	old := `{"v":1,"type":"decision","id":"m1","at":"2026-11-29T20:00:00Z","agent":"deployer","task":"t1","kind":"approve","prompt":"p1","state":"TASK_STATE_AUTH_REQUIRED","approver":"ops@test","attempt":1}
{"v":1,"type":"outcome","id":"m1","at":"2026-11-29T20:00:01Z","result":"accepted","via":"send","attempt":1}
`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	svc, err := Open(Options{JournalPath: path, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := svc.Entry("m1"); !ok || e.Result != ResultAccepted || svc.Damaged() != 0 {
		t.Fatalf("entry %+v, damaged %d", e, svc.Damaged())
	}
}

// TestJournalReplacedOrTruncated: a journal replaced (renamed over) or
// truncated under an open Service is not followed as if it were the same
// file: Refresh says so, and Send refuses, sending nothing.
func TestJournalReplacedOrTruncated(t *testing.T) {
	for _, how := range []string{"replaced", "truncated"} {
		t.Run(how, func(t *testing.T) {
			fx := newFixture(t)
			mt := fx.start(t, "ask")
			appendRecords(t, fx.path, decisionRecord("m1"))
			if _, err := fx.svc.Refresh(); err != nil {
				t.Fatal(err)
			}
			switch how {
			case "replaced":
				tmp := fx.path + ".new"
				if err := os.WriteFile(tmp, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, fx.path); err != nil {
					t.Fatal(err)
				}
			case "truncated":
				if err := os.Truncate(fx.path, 0); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := fx.svc.Refresh(); err == nil || !strings.Contains(err.Error(), how) {
				t.Fatalf("Refresh = %v; want it to say the journal was %s", err, how)
			}
			d := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "main"})
			if out := fx.svc.Send(t.Context(), d); out.Problem != ProblemJournal || fx.ag.onTask(mt.Key.ID) != 0 {
				t.Fatalf("Send: %s/%s %v", out.Result, out.Problem, out.Err)
			}
		})
	}
}
