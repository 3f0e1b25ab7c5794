package hub_test

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/approvals/jetstore"
	"a2atop/hub"
	"a2atop/hubclient"
	"a2atop/model"
)

var fanoutFigures = flag.Bool("fanout.figures", false, "measure the feed's fan-out to 50 dashboards (TestFeedFanoutFigures)")

// The fan-out figure's sizes: dashboards, and events timed.
const (
	fanoutReaders = 50
	fanoutEvents  = 100
)

// TestFeedFanoutFigures measures, for the note and BENCHMARKS.md, how
// long one event takes to reach 50 dashboards: the time from an agent's
// status change (a deploy that waits asks again: a new AUTH_REQUIRED
// prompt, pushed on the hub's SubscribeToTask stream) to each dashboard
// receiving it from hubclient's Events, as a dashboard applies them.
// Two setups: one hub on its journal file with the 50 dashboards, and
// three hubs of a team on a real three-node JetStream cluster (the
// watching hub publishes the watcher's event to the events' stream, the
// other two apply it), the 50 dashboards spread over the three. Each
// dashboard is the real hubclient (Me, OpenService, Run) over HTTP/SSE
// on loopback. 100 events, one at a time; p50/p99/max over every
// (event, dashboard). It asserts no time; every dashboard must receive
// every event. It runs only with -fanout.figures:
//
//	go test ./hub -run TestFeedFanoutFigures -fanout.figures -v -timeout 10m
func TestFeedFanoutFigures(t *testing.T) {
	if !*fanoutFigures {
		t.Skip("figures: add -fanout.figures")
	}
	manyFeeds := func(o *hub.Options) { o.MaxFeedsPerOperator = fanoutReaders }

	t.Run("one hub", func(t *testing.T) {
		agents := startCountedAgents(t, 3)
		fx := newFixtureAgents(t, named(agents), 100*time.Millisecond, withFrank, manyFeeds)
		waitFleets(t, []*fixture{fx}, agents)
		logFanout(t, "1 hub (file journal)", agents, []*fixture{fx})
	})
	t.Run("three hubs", func(t *testing.T) {
		agents := startCountedAgents(t, 3)
		c := startNATSCluster(t)
		var fxs []*fixture
		for i := range 3 {
			fxs = append(fxs, teamHub(t, c, agents, fmt.Sprintf("hub%d", i+1), func(_ *jetstore.Store, o *hub.Options) { manyFeeds(o) }))
		}
		waitSpread(t, fxs, agents)
		waitFleets(t, fxs, agents)
		logFanout(t, "3 hubs (JetStream, 3 nodes, 3 replicas)", agents, fxs)
	})
}

// logFanout attaches the readers round the hubs, times the events and
// logs the figures.
func logFanout(t *testing.T, setup string, agents []*countedAgent, fxs []*fixture) {
	t.Helper()
	ops := []struct{ name, token string }{{"alice", tokens["alice"]}, {"bob", tokens["bob"]}, {"carol", tokens["carol"]}, {"frank", frankToken}}
	var readers []*fanoutReader
	for i := range fanoutReaders {
		op := ops[i%len(ops)]
		r := startFanoutReader(t, fxs[i%len(fxs)], op.token)
		r.hub = i % len(fxs)
		readers = append(readers, r)
	}
	for _, r := range readers {
		select {
		case <-r.cl.Synced():
		case <-time.After(60 * time.Second):
			t.Fatal("a dashboard's feed never delivered its snapshot")
		}
	}
	var tasks []a2a.TaskID
	for _, a := range agents {
		tasks = append(tasks, a.ids...)
	}
	owner := map[a2a.TaskID]*countedAgent{}
	for _, a := range agents {
		for _, id := range a.ids {
			owner[id] = a
		}
	}
	asked := map[a2a.TaskID]int{} // prompts each deploy has asked: the first is 9f3c2e1
	for _, id := range tasks {
		asked[id] = 1
	}
	// took is every delivery; watching and other split them by whether
	// the dashboard's hub watches the event's agent; first is, for each
	// event, its first dashboard's: how long it took to leave the hubs.
	// hop is, for each delivery on another hub, its time after the
	// event's first delivery on the watching hub: the events' stream and
	// the other hub's apply and feed.
	var took, watching, other, first, hop []time.Duration
	for e := range fanoutEvents {
		id := tasks[e%len(tasks)]
		asked[id]++
		key := fanoutKey(id, fmt.Sprintf("approve deploy of 9f3c2e%d to staging?", asked[id]))
		watchedBy := map[int]bool{}
		for i, fx := range fxs {
			watchedBy[i] = slices.Contains(fx.h.Watching(), owner[id].name)
		}
		start := time.Now()
		owner[id].ag.Reask(id)
		var got []time.Duration
		for _, r := range readers {
			at, ok := r.wait(key, 30*time.Second)
			if !ok {
				t.Fatalf("event %d (%s) never reached a dashboard", e+1, key)
			}
			d := at.Sub(start)
			got = append(got, d)
			if watchedBy[r.hub] {
				watching = append(watching, d)
			} else {
				other = append(other, d)
			}
		}
		took = append(took, got...)
		first = append(first, slices.Min(got))
		var onWatching []time.Duration
		for i, r := range readers {
			if watchedBy[r.hub] {
				onWatching = append(onWatching, got[i])
			}
		}
		if len(onWatching) > 0 && len(onWatching) < len(got) {
			for i, r := range readers {
				if !watchedBy[r.hub] {
					hop = append(hop, got[i]-slices.Min(onWatching))
				}
			}
		}
	}
	t.Logf("feed fan-out, %s, %d dashboards (hubclient over HTTP/SSE), %d events, agent's status change to each dashboard: %s (%d deliveries)",
		setup, fanoutReaders, fanoutEvents, quantiles(took), len(took))
	if len(fxs) > 1 {
		t.Logf("  dashboards on the hub that watches the agent: %s (%d); on the other hubs: %s (%d)", quantiles(watching), len(watching), quantiles(other), len(other))
		t.Logf("  on the other hubs, after the event's first dashboard on the watching hub: %s", quantiles(hop))
	}
	t.Logf("  each event's first dashboard: %s", quantiles(first))
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		t.Logf("  load average at the end (1, 5, 15 min; this machine's, every process): %s", strings.Join(strings.Fields(string(b))[:3], " "))
	}
}

// quantiles are p50, p99 and max of ds.
func quantiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	ds = slices.Sorted(slices.Values(ds))
	q := func(p int) time.Duration { return ds[min(len(ds)-1, len(ds)*p/100)].Round(10 * time.Microsecond) }
	return fmt.Sprintf("p50 %s, p99 %s, max %s", q(50), q(99), ds[len(ds)-1].Round(10*time.Microsecond))
}

// fanoutReader is a dashboard that notes when it first receives each
// prompt of each task.
type fanoutReader struct {
	cl  *hubclient.Client
	hub int // the index of its hub

	mu   sync.Mutex
	seen map[string]time.Time
	more chan struct{} // closed and replaced at each new key
}

func startFanoutReader(t *testing.T, fx *fixture, token string) *fanoutReader {
	t.Helper()
	cl, err := hubclient.New(hubclient.Options{URL: fx.srv.URL, Token: token, MinBackoff: 50 * time.Millisecond, MaxBackoff: 500 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Me(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.OpenService(approvals.Options{}); err != nil {
		t.Fatal(err)
	}
	r := &fanoutReader{cl: cl, seen: map[string]time.Time{}, more: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); cl.Run(ctx) }()
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-cl.Events():
				r.note(ev, time.Now())
			}
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return r
}

// note keeps when a task's prompt was first received.
func (r *fanoutReader) note(ev model.Event, at time.Time) {
	var id a2a.TaskID
	var m *a2a.Message
	switch {
	case ev.Kind == model.EventStatus && ev.Status != nil:
		id, m = ev.Status.TaskID, ev.Status.Status.Message
	case ev.Kind == model.EventTask && ev.Task != nil:
		id, m = ev.Task.ID, ev.Task.Status.Message
	}
	if m == nil {
		return
	}
	var text []string
	for _, p := range m.Parts {
		text = append(text, p.Text())
	}
	key := fanoutKey(id, strings.Join(text, ""))
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.seen[key]; !ok {
		r.seen[key] = at
		close(r.more)
		r.more = make(chan struct{})
	}
}

// wait is when the reader first received key, waiting up to d for it.
func (r *fanoutReader) wait(key string, d time.Duration) (time.Time, bool) {
	deadline := time.After(d)
	for {
		r.mu.Lock()
		at, ok := r.seen[key]
		more := r.more
		r.mu.Unlock()
		if ok {
			return at, true
		}
		select {
		case <-more:
		case <-deadline:
			return time.Time{}, false
		}
	}
}

func fanoutKey(id a2a.TaskID, text string) string { return string(id) + "|" + text }
