package approvals

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// writeJournal writes n decisions, each with its outcome and the agent's
// state change (3 records, as a typical accepted send leaves), and returns
// the path and the file size.
func writeJournal(b *testing.B, n int) (string, int64) { return writeSignedJournal(b, n, nil) }

// writeSignedJournal is writeJournal with checkpoints signed by c.
func writeSignedJournal(b *testing.B, n int, c *Checkpoints) (string, int64) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "journal.jsonl")
	st, err := openFileStore(path, false, time.Now)
	if err != nil {
		b.Fatal(err)
	}
	st.ckpt = c
	st.w = noSync{st.w} // fsync per record is what Send pays; building the fixture need not
	at := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	var recs []record
	for i := range n {
		id := fmt.Sprintf("m%06d", i)
		r := decisionRecord(id)
		r.Task, r.Prompt, r.At = a2a.TaskID(fmt.Sprintf("t%06d", i)), at.Add(time.Duration(i)*time.Second).Format(time.RFC3339Nano), at.Add(time.Duration(i)*time.Second)
		recs = append(recs, r,
			record{Type: recOutcome, ID: id, At: r.At, Result: ResultAccepted, State: a2a.TaskStateWorking, Via: "send", Attempt: 1},
			record{Type: recState, ID: id, At: r.At, Agent: r.Agent, Task: r.Task, From: a2a.TaskStateAuthRequired, To: a2a.TaskStateWorking, Source: "reply"})
	}
	if err := st.update(func([]line, bool) {}, func() ([]record, error) { return recs, nil }); err != nil {
		b.Fatal(err)
	}
	st.close()
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, fi.Size()
}

type noSync struct{ syncWriter }

func (noSync) Sync() error { return nil }

// BenchmarkOpen10k measures a start with 10,000 decisions in the journal:
// Open reads the whole file and folds every record.
func BenchmarkOpen10k(b *testing.B) {
	path, size := writeJournal(b, 10_000)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := Open(Options{JournalPath: path, ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		if len(s.entries) != 10_000 {
			b.Fatalf("%d entries", len(s.entries))
		}
	}
	b.ReportMetric(float64(size)/1e6, "file-MB")
}

// BenchmarkJournal10k measures one Journal() call (what the journal view
// reads each time the journal gains a record) with 10,000 decisions.
func BenchmarkJournal10k(b *testing.B) {
	path, _ := writeJournal(b, 10_000)
	s, err := Open(Options{JournalPath: path, ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if n := len(s.Journal()); n != 10_000 {
			b.Fatalf("%d entries", n)
		}
	}
}

// TestJournalEntriesAreCopies: what Journal and Entry return can be
// changed by the caller without changing the journal, and the journal's
// parts are not the parts of the message that was sent.
func TestJournalEntriesAreCopies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	s, err := Open(Options{JournalPath: path, Sender: newSDKSender()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := decisionRecord("m1")
	sent := r.Parts
	if err := s.write(r); err != nil {
		t.Fatal(err)
	}
	sent[0] = a2a.NewTextPart("changed after sending")
	e, _ := s.Entry("m1")
	if e.Parts[0].Text() != "approved" {
		t.Fatalf("the journal entry shares its parts slice with the message: %q", e.Parts[0].Text())
	}
	j := s.Journal()
	j[0].Parts[0], j[0].States, j[0].Refs = nil, append(j[0].States, StateChange{To: "x"}), append(j[0].Refs, "t9")
	again := s.Journal()[0]
	if again.Parts[0] == nil || again.Parts[0].Text() != "approved" || len(again.States) != 0 || len(again.Refs) != 0 {
		t.Fatalf("changing a returned entry changed the journal: %+v", again)
	}
}

// BenchmarkRefreshIdle10k measures one Refresh (what the dashboard calls
// on its tick) when nothing was appended, with 10,000 decisions in the
// journal: it reads no bytes, whatever the journal's size.
func BenchmarkRefreshIdle10k(b *testing.B) {
	path, _ := writeJournal(b, 10_000)
	s, err := Open(Options{JournalPath: path, ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Refresh(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObservations10k measures Observations (called after each
// fleet batch) with 10,000 decided tasks the journal has not seen end,
// none of them in the fleet: the worst an old journal costs.
func BenchmarkObservations10k(b *testing.B) {
	path, _ := writeJournal(b, 10_000)
	s, err := Open(Options{JournalPath: path, ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	f := model.NewFleet(model.Options{})
	b.ReportAllocs()
	for b.Loop() {
		if obs := s.Observations(f); len(obs) != 0 {
			b.Fatal(obs)
		}
	}
}
