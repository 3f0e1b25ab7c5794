package approvals

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// segment64MiB is about how many decisions (each with its outcome and a
// state change, as writeJournal writes them) fill a 64 MiB segment.
const segment64MiB = 95_000

// pendingRecords are n decisions without an outcome: open, restated by
// every rotation.
func pendingRecords(n int) []record {
	recs := make([]record, 0, n)
	for i := range n {
		r := decisionRecord(fmt.Sprintf("open%06d", i))
		r.Task, r.Prompt = a2a.TaskID(fmt.Sprintf("open-task%06d", i)), fmt.Sprintf("open-prompt%06d", i)
		recs = append(recs, r)
	}
	return recs
}

// BenchmarkRotate64MiB measures closing a 64 MiB segment that holds N
// open decisions: the carried records written and fsynced, the link, the
// rename, the directory fsyncs, the seal. first-ms is the rotation of
// the 64 MiB file itself; ns/op the rotations after it (the same work:
// nothing is copied, whatever the size of the segment closed).
func BenchmarkRotate64MiB(b *testing.B) {
	for _, open := range []int{0, 100, 1000, 10_000} {
		b.Run(fmt.Sprintf("open=%d", open), func(b *testing.B) {
			path, size := writeJournal(b, segment64MiB)
			appendRecords(b, path, pendingRecords(open)...)
			svc, err := Open(Options{JournalPath: path, Segment: SegmentPolicy{Size: 1}})
			if err != nil {
				b.Fatal(err)
			}
			defer svc.Close()
			fs := svc.st.(*fileStore)
			rotate := func() time.Duration {
				fs.mu.Lock()
				defer fs.mu.Unlock()
				unlock, err := fs.lock(true)
				if err != nil {
					b.Fatal(err)
				}
				defer unlock()
				if err := fs.readNew(true, func([]line, bool) {}); err != nil { // onto the segment the last rotation began
					b.Fatal(err)
				}
				start := time.Now()
				if err := fs.rotate(time.Now().UTC()); err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			first := rotate()
			b.ResetTimer()
			for b.Loop() {
				rotate()
			}
			b.StopTimer()
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(first.Microseconds())/1000, "first-ms")
			b.ReportMetric(float64(size)/(1<<20), "closed-MiB")
			b.ReportMetric(float64(fi.Size())/1024, "new-segment-KiB")
		})
	}
}

// BenchmarkCheckSegments measures what `a2atop journal check` and the
// export pay to read a journal of about 64 MiB (95,000 decisions): as one
// file, and rotated into segments of 16 MiB and 4 MiB. heap-MiB is the
// live heap once it is read (MemoryAll keeps every entry).
func BenchmarkCheckSegments(b *testing.B) {
	for _, seg := range []int64{0, 16 << 20, 4 << 20} {
		b.Run(fmt.Sprintf("segment=%dMiB", seg>>20), func(b *testing.B) {
			path, files := writeSegmented(b, seg)
			b.ReportAllocs()
			b.ResetTimer()
			var heap uint64
			for b.Loop() {
				s, err := Open(Options{JournalPath: path, ReadOnly: true, Memory: MemoryAll})
				if err != nil {
					b.Fatal(err)
				}
				if n := len(s.Journal()); n != segment64MiB {
					b.Fatalf("read %d entries, want %d", n, segment64MiB)
				}
				b.StopTimer()
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				heap = ms.HeapAlloc
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
			b.ReportMetric(float64(files), "files")
		})
	}
}

// writeSegmented writes segment64MiB decisions through a Service that
// rotates at seg bytes (0: never), a thousand decisions per append, and
// returns the journal's path and how many files it has.
func writeSegmented(b *testing.B, seg int64) (string, int) {
	b.Helper()
	path := b.TempDir() + "/journal.jsonl"
	svc, err := Open(Options{JournalPath: path, Segment: SegmentPolicy{Size: seg}})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	at := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	for i := 0; i < segment64MiB; i += 1000 {
		var recs []record
		for k := i; k < i+1000 && k < segment64MiB; k++ {
			id := fmt.Sprintf("m%06d", k)
			r := decisionRecord(id)
			r.Task, r.Prompt, r.At = a2a.TaskID(fmt.Sprintf("t%06d", k)), fmt.Sprintf("p%06d", k), at.Add(time.Duration(k)*time.Second)
			recs = append(recs, r,
				record{Type: recOutcome, ID: id, At: r.At, Agent: r.Agent, Task: r.Task, Result: ResultAccepted, State: a2a.TaskStateWorking, Via: "send", Attempt: 1},
				record{Type: recState, ID: id, At: r.At, Agent: r.Agent, Task: r.Task, From: a2a.TaskStateAuthRequired, To: a2a.TaskStateCompleted, Source: "reply"})
		}
		if err := svc.appendChecked(func() ([]record, error) { return recs, nil }); err != nil {
			b.Fatal(err)
		}
	}
	seqs, err := archives(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, len(seqs) + 1
}
