package a2aclient

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

const ingestEvents = 2000

// BenchmarkStreamIngest: events per second our watcher turns into model
// events from one loopback SubscribeToTask stream (a real SDK server),
// next to the bare SDK client reading the same kind of stream from the
// same server in the same run. The stream starts when the reader holds
// the first event; the clock stops when the final event is yielded (bare
// SDK) or handed to the event channel (watcher: model.Event.At). The live rate is
// bound by the SDK server's own per-event work, so the benchmark also
// replays the exact bytes of one live stream to both clients (replay-*),
// which measures the clients' cost alone. Rates are medians over runs,
// which load spikes from other processes move less than means.
func BenchmarkStreamIngest(b *testing.B) {
	a := sdktest.Start(b, sdktest.JSONRPC, true, nil)
	o := fast("a", a.URL())
	o.SweepInterval = time.Hour
	m := New([]AgentOptions{o}, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	bare := a.Other(b)

	var sdkRates, ourRates []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Alternate who goes first (ABBA): the machine is shared and noisy.
		for k := 0; k < 2; k++ {
			if (i+k)%2 == 0 {
				d, n := ingestBare(b, a, bare)
				sdkRates = append(sdkRates, float64(n)/d.Seconds())
			} else {
				d, n := ingestWatcher(b, a, m)
				ourRates = append(ourRates, float64(n)/d.Seconds())
			}
		}
	}
	b.StopTimer()
	sdkRate, ourRate := median(sdkRates), median(ourRates)
	b.ReportMetric(sdkRate, "sdk-events/s")
	b.ReportMetric(ourRate, "watcher-events/s")
	b.ReportMetric(ourRate/sdkRate, "ratio")
	rs, ro := replayIngest(b, a)
	b.ReportMetric(rs, "replay-sdk-events/s")
	b.ReportMetric(ro, "replay-watcher-events/s")
	b.ReportMetric(ro/rs, "replay-ratio")
}

func ingestBare(b *testing.B, a *sdktest.Agent, cl *sdk.Client) (time.Duration, int) {
	b.Helper()
	id := a.Send(b, fmt.Sprintf("chatty:%d", ingestEvents))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var start time.Time
	n := 0
	for ev, err := range cl.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}) {
		if err != nil {
			b.Fatalf("bare SDK stream: %v", err)
		}
		switch e := ev.(type) {
		case *a2a.Task:
			if start.IsZero() {
				start = time.Now()
				a.Exec.Release()
			}
		case *a2a.TaskStatusUpdateEvent:
			n++
			if e.Status.State == a2a.TaskStateCompleted {
				return time.Since(start), n
			}
		}
	}
	b.Fatalf("bare SDK stream ended after %d events without completion", n)
	return 0, 0
}

func ingestWatcher(b *testing.B, a *sdktest.Agent, m *Manager) (time.Duration, int) {
	b.Helper()
	id := a.Send(b, fmt.Sprintf("chatty:%d", ingestEvents))
	m.Watch("a", id)
	var start time.Time
	n := 0
	deadline := time.Now().Add(30 * time.Second)
	var batch []model.Event
	for time.Now().Before(deadline) {
		batch = uiBatch(m.Events(), batch)
		for _, ev := range batch {
			switch {
			case ev.Kind == model.EventTask && ev.Source == model.SourceStream && ev.Task.ID == id && start.IsZero():
				start = time.Now()
				a.Exec.Release()
			case ev.Kind == model.EventStatus && ev.Status.TaskID == id:
				n++
				if ev.Status.Status.State == a2a.TaskStateCompleted {
					return ev.At.Sub(start), n // when the watcher handed it over
				}
			}
		}
	}
	b.Fatalf("watcher stream: %d events, no completion", n)
	return 0, 0
}

// BenchmarkIncrementalSweep: bytes on the wire (HTTP bodies and headers,
// both ways) for an incremental sweep of an agent holding 10,000 tasks of
// which 10 changed since the previous sweep (one sweep interval earlier),
// next to a full listing of the same agent. The sweep's 5 s overlap lists
// the previous interval's changes again (deduplicated client-side).
func BenchmarkIncrementalSweep(b *testing.B) {
	a := sdktest.Start(b, sdktest.JSONRPC, false, nil)
	ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	var ids []a2a.TaskID
	old := time.Now().Add(-24 * time.Hour)
	for i := 0; i < 10000; i++ {
		ts := old.Add(time.Duration(i) * time.Second)
		msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(fmt.Sprintf("step %d of the nightly suite", i)))
		task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: a2a.NewContextID(),
			Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &ts, Message: msg}}
		if _, err := a.Store.Create(ctx, task); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, task.ID)
	}
	o := fast("a", a.URL())
	o.Subscribe = false
	m := New([]AgentOptions{o}, Options{Buffer: 1 << 16})
	w := m.watchers["a"]
	go func() {
		for range m.Events() {
		}
	}()
	if err := w.connect(ctx); err != nil {
		b.Fatal(err)
	}
	before := w.c.wire.Load()
	if err := w.sweep(ctx, true); err != nil {
		b.Fatal(err)
	}
	full := w.c.wire.Load() - before
	var inc int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		// One sweep interval passes per iteration: the 10 changes carry
		// timestamps DefaultSweepInterval after the previous ones.
		at := time.Now().Add(time.Duration(i+1) * DefaultSweepInterval)
		for j := 0; j < 10; j++ {
			touch(b, a.Store, ctx, ids[(i*10+j)%len(ids)], at.Add(time.Duration(j)*time.Millisecond))
		}
		b.StartTimer()
		before := w.c.wire.Load()
		if err := w.sweep(ctx, false); err != nil {
			b.Fatal(err)
		}
		inc += w.c.wire.Load() - before
	}
	b.StopTimer()
	perSweep := float64(inc) / float64(b.N)
	b.ReportMetric(float64(full), "full-bytes")
	b.ReportMetric(perSweep, "incremental-bytes")
	b.ReportMetric(100*perSweep/float64(full), "incremental-%")
}

// touch gives a stored task a new status (working, timestamp at).
func touch(b *testing.B, store *taskstore.InMemory, ctx context.Context, id a2a.TaskID, at time.Time) {
	st, err := store.Get(ctx, id)
	if err != nil {
		b.Fatal(err)
	}
	next := *st.Task
	next.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &at}
	if _, err := store.Update(ctx, &taskstore.UpdateRequest{Task: &next, PrevTask: st.Task, PrevVersion: st.Version}); err != nil {
		b.Fatal(err)
	}
}

// median of xs (xs is reordered).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}
