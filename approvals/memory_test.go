package approvals

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// decideRound makes n decisions through svc on a test agent of its own
// ("ask" tasks, each answered "main" and completed), then closes the
// agent and forgets its client, so that what stays in memory is the
// Service's alone.
func decideRound(t *testing.T, svc *Service, snd *sdkSender, n int) {
	t.Helper()
	ag := newAgent(t)
	defer ag.srv.Close()
	snd.add(t, "agent", ag.srv.URL, "")
	defer func() {
		snd.mu.Lock()
		delete(snd.clients, "agent")
		snd.replies = map[string]int{}
		snd.mu.Unlock()
	}()
	c, _ := snd.client("agent")
	for range n {
		res, err := c.SendMessage(context.Background(), &a2a.SendMessageRequest{
			Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ask"))})
		if err != nil {
			t.Fatalf("start: %v", err)
		}
		task := res.(*a2a.Task)
		mt := modelTask("agent", ag.waitState(task.ID, func(s a2a.TaskState) bool { return s == a2a.TaskStateInputRequired }))
		d, err := svc.Prepare(svc.ItemFor(mt), Input{Kind: KindReply, Text: "main"})
		if err != nil {
			t.Fatalf("Prepare: %v", err)
		}
		if out := svc.Send(context.Background(), d); out.Result != ResultAccepted {
			t.Fatalf("Send: %s %v", out.Result, out.Err)
		}
		ag.waitState(task.ID, isTerminal)
	}
}

// heapAfterGC is the live heap once garbage is collected.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestJournalMemoryIsBounded: a Service that keeps deciding (a hub, a
// dashboard left running for months) holds in memory the decisions
// still open and a recent history of Options.Memory entries, not
// everything ever decided: after N decisions and after 4N, the retained
// heap differs by less than a small constant per decision. (Before the
// bound every decision kept its entry, parts and states: several KB.)
// Bounded loop counts, no wall time.
func TestJournalMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 400 decisions")
	}
	const n, memory = 100, 25
	snd := newSDKSender()
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	svc, err := Open(Options{JournalPath: path, Sender: snd, Approver: "ops@test", SendTimeout: 5 * time.Second, Memory: memory})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	decideRound(t, svc, snd, n)
	before := heapAfterGC()
	for range 3 {
		decideRound(t, svc, snd, n)
	}
	after := heapAfterGC()
	if dir := os.Getenv("A2ATOP_HEAPPROFILE"); dir != "" {
		f, err := os.Create(filepath.Join(dir, "journal-memory.pprof"))
		if err == nil {
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	per := (int64(after) - int64(before)) / (3 * n)
	t.Logf("heap %d B after %d decisions, %d B after %d: %d B per decision", before, n, after, 4*n, per)
	if per > 512 { // bounded logs (the queue's touched tasks) still fill: tens of bytes
		t.Errorf("the heap grows by %d B per decision (%d B after %d decisions, %d B after %d): the journal keeps what it has settled, past its memory of %d", per, before, n, after, 4*n, memory)
	}
	if got := len(svc.Journal()); got > memory+memory/4 {
		t.Errorf("Journal holds %d entries in memory; want at most %d (the recent history, and a quarter more before the oldest are let go)", got, memory+memory/4)
	}
	if got := len(records(t, path)); got < 3*4*n {
		t.Errorf("the file holds %d records; want every one of %d decisions (decision, outcome, state)", got, 4*n)
	}
}

// TestForgottenEntriesStayInTheFile: past its memory a Service keeps the
// open decisions however old and the newest settled ones; History reads
// every one back from the file, and a later record of a decision let go
// is not taken for damage.
func TestForgottenEntriesStayInTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	s, err := Open(Options{JournalPath: path, Approver: "ops@test", Memory: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	open := decisionRecord("m-open") // no outcome: pending, for Reconcile
	open.Task = "t-open"
	if err := s.write(open); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		r := decisionRecord(fmt.Sprintf("m%02d", i))
		r.Task = a2a.TaskID(fmt.Sprintf("t%02d", i))
		if err := s.write(r); err != nil {
			t.Fatal(err)
		}
		if err := s.write(record{Type: recOutcome, ID: r.ID, Result: ResultAccepted, Via: "send", Attempt: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := s.Entry("m-open"); !ok {
		t.Error("the open (pending) decision left memory; Reconcile needs it")
	}
	if _, ok := s.Entry("m19"); !ok {
		t.Error("the newest decision left memory")
	}
	if _, ok := s.Entry("m00"); ok {
		t.Error("the oldest settled decision is still in memory past a memory of 4")
	}
	if _, ok := s.Prior("deployer", "t00", "p1"); ok {
		t.Error("a decision let go from memory still answers Prior")
	}
	if n := len(s.Journal()); n > 4+4/4+1 {
		t.Errorf("Journal holds %d entries; want the newest 4 (a quarter more at most) and the open one", n)
	}
	if s.Forgotten() == 0 {
		t.Error("Forgotten is 0 after entries left memory")
	}
	all, err := s.History()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 21 {
		t.Errorf("History returned %d entries; want all 21 from the file", len(all))
	}
	late := record{Type: recState, ID: "m00", Agent: "deployer", Task: "t00", From: a2a.TaskStateWorking, To: a2a.TaskStateCompleted, Source: "fleet"}
	if err := s.write(late); err != nil {
		t.Fatal(err)
	}
	if d := s.Damage(); len(d) != 0 {
		t.Errorf("a later record of a decision let go from memory was taken for damage: %+v", d)
	}
}

// TestCheckReadsTheWholeJournalWithinItsMemory: a journal check
// (Options.Check) reads every segment from the oldest while it holds no
// more entries than its memory, and still finds the one record whose
// decision no line holds, among records of decisions it let go (an
// outcome, a late state), which are not damage. Before Check, a bounded
// memory took every record of a decision not in memory for one let go,
// so journal check held every entry (MemoryAll) to find such a record.
func TestCheckReadsTheWholeJournalWithinItsMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	w, err := Open(Options{JournalPath: path, Approver: "ops@test", Memory: 4, Segment: SegmentPolicy{Size: 4 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	open := decisionRecord("m-open") // no outcome: pending
	open.Task = "t-open"
	if err := w.write(open); err != nil {
		t.Fatal(err)
	}
	const n = 60
	for i := range n {
		r := decisionRecord(fmt.Sprintf("m%02d", i))
		r.Task = a2a.TaskID(fmt.Sprintf("t%02d", i))
		if err := w.write(r); err != nil {
			t.Fatal(err)
		}
		if err := w.write(record{Type: recOutcome, ID: r.ID, Result: ResultAccepted, Via: "send", Attempt: 1}); err != nil {
			t.Fatal(err)
		}
		if i == n/4 { // an outcome of a decision no line holds: its line was lost
			if err := w.write(record{Type: recOutcome, ID: "m-lost", Agent: "deployer", Task: "t-lost", Result: ResultAccepted, Via: "send", Attempt: 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	late := record{Type: recState, ID: "m01", Agent: "deployer", Task: "t01", From: a2a.TaskStateWorking, To: a2a.TaskStateCompleted, Source: "fleet"}
	if err := w.write(late); err != nil {
		t.Fatal(err)
	}

	all, err := Open(Options{JournalPath: path, ReadOnly: true, Memory: MemoryAll})
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	if len(all.Segments()) < 3 {
		t.Fatalf("the journal has %d segments; the test wants several", len(all.Segments()))
	}
	want := all.Damage()
	if len(want) != 1 || want[0].MessageID != "m-lost" {
		t.Fatalf("reading every entry: damage %+v; want the one outcome of m-lost", want)
	}

	const memory = 8
	chk, err := Open(Options{JournalPath: path, ReadOnly: true, Check: true, Memory: memory})
	if err != nil {
		t.Fatal(err)
	}
	defer chk.Close()
	if got := chk.Damage(); len(got) != 1 || got[0].Line != want[0].Line || got[0].MessageID != "m-lost" ||
		!strings.Contains(got[0].Reason, "no readable line") || got[0].AllAgents {
		t.Errorf("check within a memory of %d: damage %+v; want line %d, the outcome of m-lost, blocking deployer alone", memory, got, want[0].Line)
	}
	if got := len(chk.Journal()); got > memory+memory/4+1 {
		t.Errorf("check holds %d entries in memory; want at most %d (its memory, a quarter more, the open decision)", got, memory+memory/4+1)
	}
	if _, ok := chk.Entry("m-open"); !ok {
		t.Error("check let go of the open decision")
	}
	if got, want := len(chk.Segments()), len(all.Segments()); got != want {
		t.Errorf("check read %d segments; want all %d", got, want)
	}
}
