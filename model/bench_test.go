package model

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

const (
	benchTasks  = 100_000
	benchAgents = 100
	benchBatch  = 256 // events per Apply: one UI drain
)

var benchWords = []string{"running suite", "deploying build", "reviewing diff", "waiting for input", "indexing repo"}

// benchSnapshot is a task as a watcher hands it over: uuid ids, a status
// with a timestamp and a one-part status message, no history.
func benchSnapshot(i int, state a2a.TaskState, at time.Time) *a2a.Task {
	stamp := at
	return &a2a.Task{
		ID:        a2a.TaskID(fmt.Sprintf("%08x-f421-4e4e-aa2d-8b6da17d%04x", i, i%0xffff)),
		ContextID: fmt.Sprintf("%08x-0000-4e4e-aa2d-8b6da17d9281", i),
		Status: a2a.TaskStatus{State: state, Timestamp: &stamp, Message: &a2a.Message{
			ID: fmt.Sprintf("%08x-msg0-4e4e-aa2d-8b6da17d9281", i), Role: a2a.MessageRoleAgent,
			Parts: a2a.ContentParts{a2a.NewTextPart(benchWords[i%len(benchWords)])}}},
	}
}

func benchAgent(i int) string { return fmt.Sprintf("agent-%02d", i%benchAgents) }

// benchFleet holds benchTasks tasks across benchAgents agents: 60% active,
// 5% interrupted, 35% terminal.
func benchFleet(tb testing.TB) (*Fleet, []TaskKey) {
	tb.Helper()
	f := NewFleet(Options{})
	keys := make([]TaskKey, 0, benchTasks)
	batch := make([]Event, 0, 1024)
	for i := range benchTasks {
		state := a2a.TaskStateWorking
		switch {
		case i%20 == 0:
			state = a2a.TaskStateInputRequired
		case i%20 >= 13:
			state = a2a.TaskStateCompleted
		}
		s := benchSnapshot(i, state, t0.Add(time.Duration(i)*time.Millisecond))
		agent := benchAgent(i)
		keys = append(keys, TaskKey{agent, s.ID})
		batch = append(batch, Event{Kind: EventTask, Agent: agent, Source: SourceSweep, At: t0, Task: s})
		if len(batch) == cap(batch) {
			f.Apply(batch)
			batch = batch[:0]
		}
	}
	f.Apply(batch)
	if f.Len() != benchTasks {
		tb.Fatalf("fleet holds %d tasks", f.Len())
	}
	return f, keys
}

// benchStatuses returns n status updates for random non-terminal tasks
// (ids in fresh memory, as a decoder leaves them),
// each newer than anything applied before (clock is advanced). About one
// in ten moves a task between working and input-required.
func benchStatuses(f *Fleet, keys []TaskKey, r *rand.Rand, clock *time.Time, n int) []Event {
	evs := make([]Event, 0, n)
	for len(evs) < n {
		k := keys[r.IntN(len(keys))]
		tk := f.Task(k)
		if tk == nil || tk.Class == ClassTerminal {
			continue
		}
		*clock = clock.Add(time.Millisecond)
		stamp := *clock
		state := a2a.TaskStateWorking
		if r.IntN(10) == 0 && tk.State == a2a.TaskStateWorking {
			state = a2a.TaskStateInputRequired
		}
		evs = append(evs, Event{Kind: EventStatus, Agent: k.Agent, Source: SourceStream, At: stamp,
			Status: &a2a.TaskStatusUpdateEvent{TaskID: a2a.TaskID(strings.Clone(string(k.ID))), ContextID: tk.Snapshot.ContextID,
				Status: a2a.TaskStatus{State: state, Timestamp: &stamp, Message: &a2a.Message{ID: "m",
					Parts: a2a.ContentParts{a2a.NewTextPart(benchWords[r.IntN(len(benchWords))])}}}}})
	}
	return evs
}

// BenchmarkApplyStatus measures status updates applied per second to a
// fleet of 100,000 tasks across 100 agents, in UI-sized batches. One op
// is one event; events are built outside the timer.
func BenchmarkApplyStatus(b *testing.B) {
	f, keys := benchFleet(b)
	r := rand.New(rand.NewPCG(1, 1))
	clock := t0.Add(time.Hour)
	f.Count(ClassActive, Query{}) // live pane indexes, as in the running UI
	b.ReportAllocs()
	b.ResetTimer()
	var elapsed, cpu time.Duration
	for done := 0; done < b.N; {
		b.StopTimer()
		n := min(16*benchBatch, b.N-done)
		evs := benchStatuses(f, keys, r, &clock, n)
		b.StartTimer()
		start, cpu0 := time.Now(), cpuTime()
		for i := 0; i < len(evs); i += benchBatch {
			f.Apply(evs[i:min(i+benchBatch, len(evs))])
		}
		elapsed += time.Since(start)
		cpu += cpuTime() - cpu0
		done += n
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	if cpu > 0 {
		// On a shared machine wall time includes other processes' turns;
		// CPU time is what one core spent on the events.
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "events/cpu-s")
	}
}

// BenchmarkPanePage measures one frame: the three panes' counts and one
// sorted, filtered page of 50 rows at 100,000 tasks. Between frames the
// sub-benchmarks apply 0, 100 or 1,000 status updates (outside the
// timer), so the figure includes re-indexing what changed in every live
// view (the unfiltered views built first go idle and are dropped).
func BenchmarkPanePage(b *testing.B) {
	for _, between := range []int{0, 100, 1000} {
		b.Run(fmt.Sprintf("events=%d", between), func(b *testing.B) {
			f, keys := benchFleet(b)
			r := rand.New(rand.NewPCG(2, 2))
			clock := t0.Add(time.Hour)
			q := Query{Filter: ParseFilter("state:working deploy"), Sort: SortUpdated}
			for c := ClassActive; c <= ClassTerminal; c++ { // the three panes, unfiltered and filtered
				f.Count(c, Query{})
			}
			for range idleTicks { // a UI that has run for a few seconds with the filter on
				for c := ClassActive; c <= ClassTerminal; c++ {
					f.Count(c, q)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if between > 0 {
					b.StopTimer()
					f.Apply(benchStatuses(f, keys, r, &clock, between))
					b.StartTimer()
				}
				f.Count(ClassInterrupted, q) // the other panes' counts, as the header shows them
				f.Count(ClassTerminal, q)
				n := f.Count(ClassActive, q)
				rows := f.Page(ClassActive, q, n/2, 50)
				if len(rows) != 50 {
					b.Fatalf("page has %d rows of %d", len(rows), n)
				}
			}
		})
	}
}

// BenchmarkRetainedBytes measures the heap held per task: 100,000 tasks
// with a status message and no history, their snapshots, and the three
// panes' indexes.
func BenchmarkRetainedBytes(b *testing.B) {
	var perTask float64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f, keys := benchFleet(b)
		keys = nil
		for c := ClassActive; c <= ClassTerminal; c++ {
			f.Count(c, Query{})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perTask = float64(after.HeapAlloc-before.HeapAlloc) / benchTasks
		runtime.KeepAlive(f)
		runtime.KeepAlive(keys)
	}
	b.ReportMetric(perTask, "bytes/task")
}
