package approvals

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// decided is a decision record on a task of its own.
func decided(id string) record {
	r := decisionRecord(id)
	r.Task, r.Prompt = a2a.TaskID("task-"+id), "prompt-"+id
	return r
}

// outcomeOf is an outcome record of decision id.
func outcomeOf(id string, res Result) record {
	return record{Type: recOutcome, ID: id, At: time.Date(2026, 11, 29, 20, 1, 0, 0, time.UTC), Agent: "deployer",
		Task: a2a.TaskID("task-" + id), Result: res, Via: "send", Attempt: 1}
}

// writeOpenJournal writes the journal of five decisions: m1 accepted, its task
// ended; m2 pending (a crash); m3 unknown (a timeout); m4 retried and
// unknown again; m5 accepted, its task still going (asked again).
func writeOpenJournal(t *testing.T, path string) {
	t.Helper()
	retry := record{Type: recRetry, ID: "m4", At: time.Date(2026, 11, 29, 20, 2, 0, 0, time.UTC), Agent: "deployer",
		Task: "task-m4", Approver: "ops@test", By: "lead@test", Attempt: 2}
	state := func(id string, to a2a.TaskState) record {
		return record{Type: recState, ID: id, At: time.Date(2026, 11, 29, 20, 3, 0, 0, time.UTC), Agent: "deployer",
			Task: a2a.TaskID("task-" + id), From: a2a.TaskStateAuthRequired, To: to, Source: "fleet"}
	}
	appendRecords(t, path, decided("m1"), outcomeOf("m1", ResultAccepted), state("m1", a2a.TaskStateCompleted), decided("m2"), decided("m3"),
		outcomeOf("m3", ResultUnknown), decided("m4"), outcomeOf("m4", ResultUnknown), retry, outcomeOf("m4", ResultUnknown),
		decided("m5"), outcomeOf("m5", ResultAccepted), state("m5", a2a.TaskStateInputRequired))
}

// summary is what a user meets of each decision: where it stands, how
// often it was sent, who sent it again, the agent's states.
func summary(es []Entry) []string {
	var out []string
	for _, e := range es {
		if e.MessageID == "" {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s attempts=%d by=%s states=%d", e.MessageID, e.Result, e.Attempts, e.RetriedBy, len(e.States)))
	}
	slices.Sort(out)
	return out
}

func openService(t *testing.T, o Options) *Service {
	t.Helper()
	svc, err := Open(o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// TestRotationCarriesTheOpenDecisions: a write past the segment's size
// closes it (renamed to PATH.000001, mode 0400) and begins the next at
// the journal's path with every open decision restated. A Service that
// opens the new segment alone holds the open decisions as they stood
// (pending, unknown, the attempts and who retried) and the last one on a
// task still going, not the one whose task ended, which History reads
// back from the closed segment; a reader of the whole journal meets each
// decision once, as it stood before.
func TestRotationCarriesTheOpenDecisions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "journal.jsonl")
	writeOpenJournal(t, path)
	before := summary(openService(t, Options{JournalPath: path, ReadOnly: true}).Journal())

	w := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Size: 1}})
	if err := w.write(record{Type: recState, Agent: "deployer", Task: "other", From: a2a.TaskStateWorking, To: a2a.TaskStateCompleted, Source: "fleet"}); err != nil {
		t.Fatal(err)
	}
	closed := archivePath(path, 1)
	fi, err := os.Stat(closed)
	if err != nil || fi.Mode().Perm() != 0o400 {
		t.Fatalf("closed segment %s: %v %v, want mode 0400", closed, fi, err)
	}
	if _, err := os.Stat(tempPath(path)); !os.IsNotExist(err) {
		t.Fatalf("the rotation left %s: %v", tempPath(path), err)
	}
	recs := records(t, path)
	if len(recs) == 0 || recs[0].Type != recSegment || recs[0].Seg.Seq != 2 || recs[0].Line != 15 || recs[0].Seg.Prev != filepath.Base(closed) {
		t.Fatalf("the new segment's first record = %+v, want the header of segment 2 at line 15", recs[0])
	}
	var ids []string
	for _, r := range recs[1:] {
		if r.Carried != 2 {
			t.Fatalf("record %+v in the new segment is not marked carried", r)
		}
		ids = append(ids, r.Type+":"+r.ID)
	}
	want := []string{"decision:m2", "decision:m3", "outcome:m3", "decision:m4", "retry:m4", "outcome:m4", "decision:m5", "outcome:m5", "state:m5"}
	if !slices.Equal(ids, want) {
		t.Fatalf("carried %v, want %v", ids, want)
	}

	fresh := openService(t, Options{JournalPath: path, ReadOnly: true})
	open := summary(fresh.Journal())
	if want := before[1:]; !slices.Equal(open, want) {
		t.Fatalf("the new segment alone holds\n%v\nwant the open and live decisions as they stood\n%v", open, want)
	}
	if len(fresh.Damage()) != 0 || fresh.Forgotten() == 0 {
		t.Fatalf("damage %v, forgotten %d", fresh.Damage(), fresh.Forgotten())
	}
	hist, err := fresh.History()
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(hist); !slices.Equal(got, before) {
		t.Fatalf("History = %v, want %v", got, before)
	}
	all := openService(t, Options{JournalPath: path, ReadOnly: true, Memory: MemoryAll})
	if got := summary(all.Journal()); !slices.Equal(got, before) || len(all.Damage()) != 0 {
		t.Fatalf("every segment read = %v (damage %v), want %v", got, all.Damage(), before)
	}
	if got := summary(w.Journal()); !slices.Equal(got, before) {
		t.Fatalf("the writer that rotated holds %v, want %v", got, before)
	}
}

// TestRotationWaitsForDamage: a damaged line that is not accepted keeps
// its segment open (the line stays where every reader meets it); once it
// is accepted, a later write closes the segment.
func TestRotationWaitsForDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "journal.jsonl")
	writeOpenJournal(t, path)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"v":2,"type":"decision","id":"mx","agent":"deployer","sum":"00000000"}` + "\n")
	f.Close()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	w := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Size: 1}, Now: func() time.Time { return now }})
	note := func() {
		t.Helper()
		if err := w.write(record{Type: recState, Agent: "deployer", Task: "t", From: a2a.TaskStateWorking, To: a2a.TaskStateCompleted}); err != nil {
			t.Fatal(err)
		}
	}
	note()
	if seqs, _ := archives(path); len(seqs) != 0 {
		t.Fatalf("the segment was closed over a damaged line: %v", seqs)
	}
	if _, err := w.Accept(w.Blocking()[0].Line, "looked"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * rotateRetry)
	note()
	if seqs, _ := archives(path); len(seqs) != 1 {
		t.Fatalf("closed segments after the line was accepted: %v", seqs)
	}
	fresh := openService(t, Options{JournalPath: path, ReadOnly: true})
	if len(fresh.Damage()) != 0 {
		t.Fatalf("the new segment shows damage: %v", fresh.Damage())
	}
}

// TestRotationOfANewJournal: a journal created by a writer that rotates
// (no line read before its first write) closes its first segment as
// PATH.000001, and a reader opened before the first write follows every
// rotation; the whole journal holds every entry.
func TestRotationOfANewJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "journal.jsonl")
	w := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Size: 1}})
	r := openService(t, Options{JournalPath: path})
	for i := range 4 {
		if err := w.write(record{Type: recState, Agent: "deployer", Task: a2a.TaskID(fmt.Sprintf("t%d", i)), From: a2a.TaskStateWorking, To: a2a.TaskStateCompleted}); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if _, err := r.Refresh(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := r.Refresh(); err != nil {
		t.Fatal(err)
	}
	if seqs, _ := archives(path); !slices.Equal(seqs, []int{1, 2, 3, 4}) {
		t.Fatalf("closed segments %v, want 1 to 4", seqs)
	}
	all := openService(t, Options{JournalPath: path, ReadOnly: true, Memory: MemoryAll})
	if n := len(all.Journal()); n != 4 || len(r.Journal()) != 4 {
		t.Fatalf("the whole journal holds %d entries, the reader %d; want 4", n, len(r.Journal()))
	}
}

// TestRotationByAge: with an age, the segment is closed at the first
// write after it is that old, and the new segment's age starts at its
// own beginning.
func TestRotationByAge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "journal.jsonl")
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	w := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Age: 24 * time.Hour}, Now: func() time.Time { return now }})
	note := func(task string) {
		t.Helper()
		if err := w.write(record{Type: recState, Agent: "deployer", Task: a2a.TaskID(task), From: a2a.TaskStateWorking, To: a2a.TaskStateCompleted}); err != nil {
			t.Fatal(err)
		}
	}
	closed := func() int { seqs, _ := archives(path); return len(seqs) }
	note("a")
	now = now.Add(23 * time.Hour)
	note("b")
	if n := closed(); n != 0 {
		t.Fatalf("%d segments closed before a day passed", n)
	}
	now = now.Add(2 * time.Hour)
	note("c") // the day has passed: this write closes the segment
	if n := closed(); n != 1 {
		t.Fatalf("%d segments closed after a day, want 1", n)
	}
	now = now.Add(23 * time.Hour)
	note("d")
	if n := closed(); n != 1 {
		t.Fatalf("the new segment was closed before its own day passed: %d closed", n)
	}
	all := openService(t, Options{JournalPath: path, ReadOnly: true, Memory: MemoryAll})
	if n := len(all.Journal()); n != 4 {
		t.Fatalf("the whole journal holds %d entries, want 4", n)
	}
}

// TestRestatedRecordsFoldedTwice: a reader that does not pass over the
// restated records (the closed and the open segment read as one file,
// as `cat journal.jsonl.* journal.jsonl` gives them) folds each open
// decision twice and still holds it as it stood: the same result, the
// same attempts, nothing counted as sent again.
func TestRestatedRecordsFoldedTwice(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "journal.jsonl")
	writeOpenJournal(t, path)
	before := openService(t, Options{JournalPath: path, ReadOnly: true}).Journal()
	w := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Size: 1}})
	if err := w.write(record{Type: recState, Agent: "deployer", Task: "other", From: a2a.TaskStateWorking, To: a2a.TaskStateCompleted}); err != nil {
		t.Fatal(err)
	}
	closed, err := os.ReadFile(archivePath(path, 1))
	if err != nil {
		t.Fatal(err)
	}
	open, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	joined := filepath.Join(dir, "joined.jsonl")
	if err := os.WriteFile(joined, append(closed, open...), 0o600); err != nil {
		t.Fatal(err)
	}
	twice := openService(t, Options{JournalPath: joined, ReadOnly: true, Memory: MemoryAll})
	words := func(es []Entry) []string {
		var out []string
		for _, e := range es {
			if e.MessageID != "" {
				out = append(out, fmt.Sprintf("%s %s attempts=%d by=%s", e.MessageID, e.Result, e.Attempts, e.RetriedBy))
			}
		}
		slices.Sort(out)
		return out
	}
	if got, want := words(twice.Journal()), words(before); !slices.Equal(got, want) {
		t.Fatalf("read twice:\n%v\nwant\n%v", got, want)
	}
	if len(twice.Damage()) != 0 {
		t.Fatalf("damage: %v", twice.Damage())
	}
}

// TestDamageAfterRotationNamesItsFileLine: line numbers run on across
// segments, so a damaged line of the open segment is line N of the
// journal but another line of its file; what the dashboard and reply
// say names both, so that the operator finds it in the file.
func TestDamageAfterRotationNamesItsFileLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "journal.jsonl")
	writeOpenJournal(t, path)
	w := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Size: 1}})
	if err := w.write(record{Type: recState, Agent: "deployer", Task: "other", From: a2a.TaskStateWorking, To: a2a.TaskStateCompleted}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	inFile := len(journalLines(t, path)) + 1
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"v":2,"type":"decision","id":"mx","agent":"deployer","sum":"00000000"}` + "\n")
	f.Close()
	svc := openService(t, Options{JournalPath: path, ReadOnly: true})
	b := svc.Blocking()
	if len(b) != 1 {
		t.Fatalf("blocking: %+v", b)
	}
	want := fmt.Sprintf("line %d of the file", inFile)
	if b[0].Line == inFile || !strings.Contains(b[0].Words(), want) || b[0].FileLine != inFile || b[0].File != path {
		t.Fatalf("damage %+v says %q; want line %d of the journal and %q", b[0], b[0].Words(), b[0].Line, want)
	}
}
