package hub_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/r3labs/sse/v2"
	"gopkg.in/cenkalti/backoff.v1"

	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/hubclient"
	"a2atop/model"
)

// The benchmarks feed the hub from a synthetic source instead of agents:
// they measure the hub and its clients, not the SDK's servers (whose
// per-event cost BENCHMARKS.md gives under a2aclient). No fleet-scale
// harness is shared in the tree yet, so this one builds its fleet here:
// agents × tasks in a mix of states a dashboard holds (40% working, 10%
// waiting for input, 50% completed: a thousand terminal tasks an agent,
// the fleet's default cap), each with a status message and two history
// messages.

// benchWatchers is a hub's Watchers with no agents: what is sent on ch is
// what the watchers would have reported.
type benchWatchers struct{ ch chan model.Event }

func (w benchWatchers) Run(ctx context.Context)         { <-ctx.Done() }
func (w benchWatchers) Events() <-chan model.Event      { return w.ch }
func (w benchWatchers) Capture(string) []model.Exchange { return nil }
func (w benchWatchers) Get(context.Context, string, a2a.TaskID, int, bool) (*a2a.Task, error) {
	return nil, errors.New("no agents in a benchmark")
}
func (w benchWatchers) Cancel(context.Context, string, a2a.TaskID) (*a2a.Task, error) {
	return nil, errors.New("no agents in a benchmark")
}

const benchToken = "tok-bench-0f1e2d3c4b5a6978"

// benchHub opens a hub on the synthetic source, serves it on loopback
// and returns it with its URL and the source.
func benchHub(tb testing.TB, agents int) (*hub.Hub, string, chan model.Event, func()) {
	tb.Helper()
	src := make(chan model.Event, 4096)
	var names []hub.Agent
	for i := range agents {
		names = append(names, hub.Agent{Name: fmt.Sprintf("agent-%02d", i), URL: fmt.Sprintf("http://127.0.0.1:%d", 20000+i)})
	}
	h, err := hub.Open(hub.Options{Watchers: benchWatchers{src}, Agents: names,
		Operators:           []hub.Operator{{Name: "bench", TokenHash: hub.HashToken(benchToken), Roles: map[string][]hub.Role{hub.AllAgents: {hub.RoleWatch}}}},
		Journal:             approvals.Options{JournalPath: filepath.Join(tb.TempDir(), "journal.jsonl")},
		MaxFeedsPerOperator: 1000}) // the benchmarks' dashboards are one operator's
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: h.Handler()}
	go func() { _ = srv.Serve(ln) }()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { _ = h.Run(ctx); close(ran) }()
	return h, "http://" + ln.Addr().String(), src, func() {
		cancel()
		<-ran
		_ = srv.Close()
		_ = h.Close()
	}
}

// fleetEvents are the snapshots of agents × tasks.
func fleetEvents(agents, tasks int) []model.Event {
	now := time.Now()
	out := make([]model.Event, 0, agents*tasks)
	for a := range agents {
		for i := range tasks {
			st := a2a.TaskStateWorking
			switch {
			case i%10 == 0:
				st = a2a.TaskStateInputRequired
			case i%2 == 1:
				st = a2a.TaskStateCompleted
			}
			ts := now.Add(-time.Duration(agents*tasks-len(out)) * time.Millisecond)
			id := a2a.TaskID(fmt.Sprintf("%08x-%04x-4000-8000-%012x", a, i, a*tasks+i))
			msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("running step "+strconv.Itoa(i)+" of the suite at 9f3c2e1"))
			task := &a2a.Task{ID: id, ContextID: "ctx-" + string(id),
				Status: a2a.TaskStatus{State: st, Timestamp: &ts, Message: msg},
				History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("run the unit tests at 9f3c2e1")),
					a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("started"))}}
			out = append(out, model.Event{Kind: model.EventTask, Agent: fmt.Sprintf("agent-%02d", a), Source: model.SourceSweep, At: now, Task: task})
		}
	}
	return out
}

// load sends the fleet's snapshots and waits until the hub holds them.
func load(tb testing.TB, h *hub.Hub, src chan model.Event, evs []model.Event) {
	tb.Helper()
	for _, ev := range evs {
		src <- ev
	}
	for {
		n := 0
		if err := h.Inspect(context.Background(), func(f *model.Fleet) { n = f.Len() }); err != nil {
			tb.Fatal(err)
		}
		if n == len(evs) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// countingTransport counts the bytes of every response body.
type countingTransport struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err == nil {
		resp.Body = countingBody{resp.Body, t.n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// BenchmarkFeedLatency: the hub ingests status events at 1,000 a second
// (50 agents × 20 tasks) for five seconds, and 50 subscribers note how
// long after the hub got each event it reached them. "dashboards" are
// the real hubclient, each applying its events to a fleet of its own;
// "raw" are r3labs clients that only read each event's time, which
// leaves the hub's own cost. Either way the 50 run in this process, on
// the same two cores as the hub. It reports the latency's p50 and p99,
// and the bytes each subscriber read per event.
func BenchmarkFeedLatency(b *testing.B) {
	b.Run("dashboards", func(b *testing.B) { feedLatency(b, dashboardSubscriber) })
	b.Run("raw", func(b *testing.B) { feedLatency(b, rawSubscriber) })
}

// subscriber reads the feed at url until ctx ends, appending each status
// event's latency to lat, counting the bytes it reads in n; it calls
// synced once it has the snapshot.
type subscriber func(ctx context.Context, b *testing.B, url string, n *atomic.Int64, lat *[]time.Duration, synced func())

func dashboardSubscriber(ctx context.Context, b *testing.B, url string, n *atomic.Int64, lat *[]time.Duration, synced func()) {
	cl, err := hubclient.New(hubclient.Options{URL: url, Token: benchToken,
		Transport: countingTransport{http.DefaultTransport.(*http.Transport).Clone(), n}})
	if err != nil {
		b.Error(err)
		return
	}
	me, err := cl.Me(ctx)
	if err != nil {
		b.Error(err)
		return
	}
	f := model.NewFleet(model.Options{})
	for _, a := range me.Agents {
		f.AddAgent(a.Name, a.URL)
	}
	go cl.Run(ctx)
	go func() { <-cl.Synced(); synced() }()
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-cl.Events():
			if ev.Kind == model.EventStatus {
				*lat = append(*lat, time.Since(ev.At))
			}
			f.Apply([]model.Event{ev})
		}
	}
}

func rawSubscriber(ctx context.Context, b *testing.B, url string, n *atomic.Int64, lat *[]time.Duration, synced func()) {
	c := sse.NewClient(url+"/v1/feed", sse.ClientMaxBufferSize(2*hub.MaxEventBytes))
	c.Connection = &http.Client{Transport: countingTransport{http.DefaultTransport.(*http.Transport).Clone(), n}}
	c.Headers["Authorization"] = "Bearer " + benchToken
	c.ReconnectStrategy = &backoff.StopBackOff{}
	_ = c.SubscribeWithContext(ctx, "", func(m *sse.Event) {
		switch string(m.Event) {
		case hub.EventSnapshotEnd:
			synced()
		case hub.EventEvents:
			now := time.Now()
			for rest := m.Data; ; {
				i := bytes.Index(rest, []byte(`"kind":"status"`))
				if i < 0 {
					break
				}
				rest = rest[i:]
				j := bytes.Index(rest, []byte(`"at":"`))
				k := bytes.IndexByte(rest[j+6:], '"')
				if at, err := time.Parse(time.RFC3339Nano, string(rest[j+6:j+6+k])); err == nil {
					*lat = append(*lat, now.Sub(at))
				}
				rest = rest[j+6+k:]
			}
		}
	})
}

func feedLatency(b *testing.B, sub subscriber) {
	const subscribers, agents, tasks, rate, seconds = 50, 50, 20, 1000, 5
	for range b.N {
		h, url, src, stop := benchHub(b, agents)
		load(b, h, src, fleetEvents(agents, tasks))
		var read atomic.Int64
		lat := make([][]time.Duration, subscribers)
		var wg, synced sync.WaitGroup
		ctx, cancel := context.WithCancel(context.Background())
		for i := range subscribers {
			lat[i] = make([]time.Duration, 0, rate*seconds)
			wg.Add(1)
			synced.Add(1)
			go func() { defer wg.Done(); sub(ctx, b, url, &read, &lat[i], sync.OnceFunc(synced.Done)) }()
		}
		synced.Wait()
		time.Sleep(200 * time.Millisecond)
		read.Store(0)
		b.ResetTimer()
		start := time.Now()
		tick := time.NewTicker(time.Second / rate)
		sent := 0
		for sent < rate*seconds {
			<-tick.C
			// As many as are due: a late tick is made up, so the rate holds.
			for due := int(time.Since(start) * rate / time.Second); sent < due && sent < rate*seconds; sent++ {
				a, i := sent%agents, (sent/agents)%tasks
				ts := time.Now()
				src <- model.Event{Kind: model.EventStatus, Agent: fmt.Sprintf("agent-%02d", a), Source: model.SourceStream, At: ts,
					Status: &a2a.TaskStatusUpdateEvent{TaskID: a2a.TaskID(fmt.Sprintf("%08x-%04x-4000-8000-%012x", a, i, a*tasks+i)),
						ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &ts,
							Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("step "+strconv.Itoa(sent)))}}}
			}
		}
		tick.Stop()
		elapsed := time.Since(start)
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) && slices.ContainsFunc(lat, func(l []time.Duration) bool { return len(l) < sent }) {
			time.Sleep(20 * time.Millisecond)
		}
		b.StopTimer()
		cancel()
		wg.Wait()
		var all []time.Duration
		for _, l := range lat {
			all = append(all, l...)
		}
		slices.Sort(all)
		if len(all) < subscribers*sent {
			b.Logf("only %d of %d events arrived", len(all), subscribers*sent)
		}
		b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(read.Load())/float64(subscribers)/float64(sent), "bytes/sub/event")
		b.ReportMetric(float64(sent)/elapsed.Seconds(), "events/s")
		stop()
	}
}

// envBenchChild makes TestBenchHubChild serve a benchmark fleet.
const envBenchChild = "A2ATOP_BENCH_HUB_CHILD"

// TestBenchHubChild is the hub process of BenchmarkHubRSS: a hub holding
// agents × tasks (the numbers in the environment), on loopback, until
// killed. It does nothing unless a parent started it.
func TestBenchHubChild(t *testing.T) {
	spec := os.Getenv(envBenchChild)
	if spec == "" {
		t.Skip("runs only as the hub process of BenchmarkHubRSS")
	}
	var agents, tasks int
	fmt.Sscanf(spec, "%d %d", &agents, &tasks)
	// SIGUSR1: collect and give the freed memory back to the system, so
	// that the parent can tell what the hub holds from what it churned.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	h, url, src, _ := benchHub(t, agents)
	load(t, h, src, fleetEvents(agents, tasks))
	fmt.Println("ready", url)
	for range sig {
		runtime.GC()
		debug.FreeOSMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Printf("heap %d\n", ms.HeapInuse)
	}
}

// rssOf is a process's resident set, in bytes.
func rssOf(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkHubRSS: a hub process holding 50 agents × 2,000 tasks
// (100,000); its resident set and Go heap (after a collection) alone,
// with one subscriber, then with 50 connected that have each taken the
// whole snapshot (raw r3labs clients that count the bytes and keep
// nothing, so that this process's memory is not the hub's); what each
// subscriber past the first costs the heap; how long the 49 snapshots
// after the first took together, and one snapshot's size.
func BenchmarkHubRSS(b *testing.B) {
	const agents, tasks, subscribers = 50, 2000, 50
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("reads the resident set from /proc")
	}
	for range b.N {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBenchHubChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), envBenchChild+"="+fmt.Sprintf("%d %d", agents, tasks))
		out, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		url := ""
		for url == "" && sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				url = u
			}
		}
		if url == "" {
			b.Fatal("the hub process never got ready")
		}
		// collect asks the hub to collect and returns its heap in use and
		// its resident set afterwards.
		collect := func() (int64, int64) {
			_ = cmd.Process.Signal(syscall.SIGUSR1)
			var heap int64
			for sc.Scan() {
				if _, err := fmt.Sscanf(sc.Text(), "heap %d", &heap); err == nil {
					break
				}
			}
			return heap, rssOf(cmd.Process.Pid)
		}
		heap0, rss0 := collect()
		var read atomic.Int64
		var done sync.WaitGroup
		ctx, cancel := context.WithCancel(context.Background())
		connect := func(n int) time.Duration {
			var synced sync.WaitGroup
			start := time.Now()
			for range n {
				synced.Add(1)
				done.Add(1)
				go func() {
					defer done.Done()
					countFeed(ctx, url, &read, sync.OnceFunc(synced.Done))
				}()
			}
			synced.Wait()
			return time.Since(start)
		}
		connect(1) // the first snapshot also encodes every task once, for all the next ones
		heap1, rss1 := collect()
		read.Store(0)
		took := connect(subscribers - 1)
		time.Sleep(time.Second)
		rss := rssOf(cmd.Process.Pid)
		heap, rssGC := collect()
		cancel()
		done.Wait()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		b.ReportMetric(float64(heap1)/(1<<20), "heap-MB-1sub")
		b.ReportMetric(float64(rss1)/(1<<20), "rss-MB-1sub")
		b.ReportMetric(float64(heap-heap1)/(subscribers-1)/(1<<10), "heap-KB-per-more-sub")
		b.ReportMetric(float64(rss0)/(1<<20), "rss-MB-0subs")
		b.ReportMetric(float64(heap0)/(1<<20), "heap-MB-0subs")
		b.ReportMetric(float64(rss)/(1<<20), "rss-MB-50subs")
		b.ReportMetric(float64(rssGC)/(1<<20), "rss-MB-50subs-after-GC")
		b.ReportMetric(float64(heap)/(1<<20), "heap-MB-50subs")
		b.ReportMetric(float64(read.Load())/(subscribers-1)/(1<<20), "snapshot-MB")
		b.ReportMetric(took.Seconds(), "s-49-snapshots")
	}
}

// countFeed reads the feed, counting the bytes of the events' data, until
// ctx ends; synced is called at the end of its first snapshot.
func countFeed(ctx context.Context, url string, n *atomic.Int64, synced func()) {
	c := sse.NewClient(url+"/v1/feed", sse.ClientMaxBufferSize(2*hub.MaxEventBytes))
	c.Headers["Authorization"] = "Bearer " + benchToken
	c.ReconnectStrategy = &backoff.StopBackOff{}
	_ = c.SubscribeWithContext(ctx, "", func(m *sse.Event) {
		n.Add(int64(len(m.Data)))
		if string(m.Event) == hub.EventSnapshotEnd {
			synced()
		}
	})
}
