package approvals

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// BenchmarkQueue is the inbox's queue with 10,000 tasks waiting across
// 100 agents, one in ten of them in a chain of two, after a batch in
// which one waiting task goes on or comes back: built from scratch
// (Service.Queue, what the inbox did on every change) and followed
// (QueueCache.Queue).
func BenchmarkQueue(b *testing.B) {
	const n = 10_000
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	f := model.NewFleet(model.Options{})
	evs := make([]model.Event, n)
	for i := range n {
		at := t0.Add(time.Duration(i) * time.Millisecond)
		var refs []a2a.TaskID
		if i%10 == 1 {
			refs = []a2a.TaskID{a2a.TaskID(fmt.Sprint("t", i-1))}
		}
		evs[i] = model.Event{Kind: model.EventTask, Agent: fmt.Sprintf("agent-%02d", i%100), At: at,
			Task: snapshot(a2a.TaskID(fmt.Sprint("t", i)), a2a.TaskStateInputRequired, at, "which branch?", refs...)}
	}
	f.Apply(evs)
	svc, err := Open(Options{JournalPath: filepath.Join(b.TempDir(), "j.jsonl"), Approver: "ops@test"})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	qc := svc.NewQueueCache()
	qc.Queue(f, model.SortAge)
	i := 0
	for _, tc := range []struct {
		name  string
		queue func() []Item
	}{{"scratch", func() []Item { return svc.Queue(f, model.SortAge) }}, {"followed", func() []Item { return qc.Queue(f, model.SortAge) }}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				st := a2a.TaskStateWorking
				if i%2 == 1 {
					st = a2a.TaskStateInputRequired
				}
				at := t0.Add(time.Hour + time.Duration(i)*time.Millisecond)
				f.Apply([]model.Event{{Kind: model.EventTask, Agent: "agent-05", At: at, Task: snapshot("t5", st, at, "which branch?")}})
				if q := tc.queue(); len(q) < n-1 {
					b.Fatalf("%d items", len(q))
				}
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/queue")
		})
	}
}
