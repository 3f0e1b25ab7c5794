//go:build soak

package soak

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/hubclient"
	"a2atop/model"
)

var (
	duration = flag.Duration("soak.duration", 2*time.Minute, "how long the agents churn, warm-up included")
	rate     = flag.Float64("soak.rate", 24, "tasks started per second over the churning agents (two in three ask a question)")
	leak     = flag.Int("soak.leak", 0, "bytes the soak itself keeps for each decision sent: a planted leak, to check that the slope catches one")
	heapDir  = flag.String("soak.heapprofile", "", "a directory to write each soak's heap profile into at its end (go tool pprof -top)")
)

// keep is terminal_per_agent in the soak: small, so retention is full
// (the fleet at its steady size) well within the warm-up.
const keep = 50

// memory is the journal's memory in the soak (journal_memory): small, so
// that the journal holds its newest entries, and no more, well within
// the warm-up.
const memory = 500

// perDecision is what the heap may keep for each decision once the
// journal's memory is full: nothing but the bounded logs still filling
// (the queue's touched tasks, the fleet's changes). Before the journal's
// memory was bounded every decision kept about 1.3 KB there, and the
// agents' stores (now pruned: see prunedStore) 5 KB more.
const perDecision = 512

// midSlack is what the heap may grow by between the last two counts
// besides perDecision a decision: the bounded logs still filling (the
// fleet's changes, up to 2.6 MB; the capture rings) and what is pooled.
const midSlack = 2 << 20

// TestSoak drives the dashboard's watchers, model and approvals journal
// against six agents: steady (JSON-RPC), httpjson (REST), restarts (down
// every 15 s for a second or two, every other time back on an empty
// store), drops (SSE streams cut after one to three events), trickles
// (SSE sent 16 bytes every 5 ms) and floods (3,000 statuses on one task
// every 20 s). A driver starts soak.rate tasks a second on the first
// five (done, hold and, two in three, ask); the inbox answers every
// question through the journal, whose memory is small (memory). After a
// warm-up of a quarter of the run (at least 30 s), halfway through the
// rest and at the end, everything is let come to rest and measured: the
// heap's growth over the last half must not follow the decisions made in
// it (a slope: perDecision each, and midSlack), the end must hold the
// heap, goroutines and file descriptors of the warm-up within a bound,
// the journal must be intact, and, per agent, the fleet must hold
// exactly the tasks it holds (open ones all, finished ones the newest
// kept).
func TestSoak(t *testing.T) {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	agents := soakAgents(t)
	fleet := model.NewFleet(model.Options{MaxTerminalPerAgent: keep})
	for _, a := range agents {
		fleet.AddAgent(a.name, a.url())
	}
	mgr := a2aclient.New(watcherOptions(agents), a2aclient.Options{Buffer: 512})
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	svc, err := approvals.Open(approvals.Options{JournalPath: journal, Sender: mgr, Approver: "soak@example.com", SendTimeout: 5 * time.Second, Memory: memory})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	watchDone := make(chan struct{})
	go func() { mgr.Run(ctx); close(watchDone) }()
	d := &dashboard{fleet: fleet, svc: svc, events: mgr.Events(), do: make(chan func()), answered: map[string]bool{}}
	loopDone := make(chan struct{})
	go func() { d.loop(ctx); close(loopDone) }()
	ch := &chaos{agents: agents, t: t}
	soakRun(t, ch, d, ch.run, midSlack, 1)
	t.Logf("churn: %d tasks started (%d failed to start), %d restarts (%d on an empty store), %d floods; %d events; %d decisions sent (%s)",
		ch.started.Load(), ch.failed.Load(), ch.restarts.Load(), ch.wiped.Load(), ch.floods.Load(), d.eventsN.Load(), d.sent.Load(), d.results())

	cancel()
	<-loopDone
	<-watchDone
	checkJournal(t, svc.Close, journal, d)
}

// soakAgents are the six agents of a soak: steady (JSON-RPC), httpjson
// (REST), restarts, drops, trickles and floods (see TestSoak).
func soakAgents(t *testing.T) []*soakAgent {
	return []*soakAgent{
		newSoakAgent(t, "steady", "jsonrpc", nil),
		newSoakAgent(t, "httpjson", "rest", nil),
		newSoakAgent(t, "restarts", "jsonrpc", nil),
		newSoakAgent(t, "drops", "jsonrpc", dropStreams),
		newSoakAgent(t, "trickles", "jsonrpc", trickle),
		newSoakAgent(t, "floods", "jsonrpc", nil),
	}
}

// watcherOptions are the watchers' options on the soak's agents.
func watcherOptions(agents []*soakAgent) []a2aclient.AgentOptions {
	var opts []a2aclient.AgentOptions
	for _, a := range agents {
		opts = append(opts, a2aclient.AgentOptions{Name: a.name, URL: a.url(), Subscribe: true, SweepInterval: 500 * time.Millisecond,
			FullResync: 5 * time.Second, MaxStreams: 8, CallTimeout: 3 * time.Second, TerminalPerAgent: keep})
	}
	return opts
}

// soakRun runs the soak's measured course with run churning for the
// time it is given: a warm-up of a quarter of the run (at least 30 s),
// then two halves, each followed by a point of rest (ch.rest), and
// checks the slope over the last half, the end against the warm-up and
// the fleet against the agents. slack is what the heap may grow by over
// the last half besides perDecision a decision (see midSlack); fleets is
// how many fleets the process holds (8 MiB each since the warm-up). With
// -soak.heapprofile it writes the heap's profile at each point of rest.
func soakRun(t *testing.T, ch *chaos, d *dashboard, run func(time.Duration), slack uint64, fleets int) {
	if *heapDir != "" {
		runtime.MemProfileRate = 64 << 10 // finer than the default 512 KiB: the profiles are compared
	}
	start := time.Now()
	warm := max(*duration/4, 30*time.Second)

	run(warm)
	rest0 := ch.rest(d)
	ch.afterRest("warm")
	writeHeapProfile(t, "warm")
	if ch.describe != nil {
		t.Logf("warm: %s", ch.describe())
	}
	before := rest0.use
	decided0 := d.sent.Load()
	t.Logf("after warm-up (%s): %s; %d tasks in the fleet, %d decisions sent", warm, before, rest0.tasks, d.sent.Load())
	// The rest of the run in two halves, counted after each: the last
	// half's growth is the slope, which must not follow the decisions.
	half := (*duration - warm) / 2
	run(half)
	restMid := ch.rest(d)
	ch.afterRest("mid")
	writeHeapProfile(t, "mid")
	if ch.describe != nil {
		t.Logf("mid: %s", ch.describe())
	}
	mid, decidedMid := restMid.use, d.sent.Load()
	t.Logf("after the first half (%s): %s; %d tasks in the fleet, %d decisions sent", time.Since(start).Round(time.Second), mid, restMid.tasks, decidedMid)
	run(*duration - warm - half)
	rest1 := ch.rest(d)
	ch.afterRest("end")
	after := rest1.use
	t.Logf("at the end (%s): %s; %d tasks in the fleet, %d decisions sent", time.Since(start).Round(time.Second), after, rest1.tasks, d.sent.Load())
	writeHeapProfile(t, "end")
	if ch.describe != nil {
		t.Logf("end: %s", ch.describe())
	}

	// The slope: between the last two counts the heap may grow by
	// perDecision a decision and midSlack, whatever the decisions made.
	last := d.sent.Load() - decidedMid
	slope := (float64(after.heap) - float64(mid.heap)) / float64(max(last, 1))
	t.Logf("slope over the last half: %+.1f MiB for %d decisions: %.0f B per decision", (float64(after.heap)-float64(mid.heap))/(1<<20), last, slope)
	if bound := mid.heap + slack + uint64(last)*perDecision; after.heap > bound {
		t.Errorf("the heap grows with the decisions: %.1f MiB at the end, %.1f MiB after the first half, %d decisions between (%.0f B each): past %.1f MiB",
			float64(after.heap)/(1<<20), float64(mid.heap)/(1<<20), last, slope, float64(bound)/(1<<20))
	}
	// Since the warm-up the heap may grow by the capture rings filling
	// (1 MiB per agent) and by the bounded logs; nothing else. Idle
	// connections are closed before each count.
	decided := d.sent.Load() - decided0
	if bound := before.heap + uint64(len(ch.agents))<<20 + uint64(fleets)*8<<20 + uint64(decided)*perDecision; after.heap > bound {
		t.Errorf("heap %.1f MiB at the end, %.1f MiB after warm-up: past %.1f MiB (%d decisions since)",
			float64(after.heap)/(1<<20), float64(before.heap)/(1<<20), float64(bound)/(1<<20), decided)
	}
	if after.goroutines > before.goroutines+10 {
		var b strings.Builder
		pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Errorf("%d goroutines at the end, %d after warm-up:\n%s", after.goroutines, before.goroutines, b.String())
	}
	if after.fds > before.fds+5 {
		t.Errorf("%d file descriptors open at the end, %d after warm-up", after.fds, before.fds)
	}
	for _, m := range append(restMid.mismatches, rest1.mismatches...) {
		t.Error(m)
	}
}

// dashboard is the dashboard's loop without a terminal: watcher events
// applied to the fleet in batches at most every 30 ms, and the inbox
// answered: every question gets one reply, through the journal.
type dashboard struct {
	fleet    *model.Fleet
	svc      *approvals.Service
	events   <-chan model.Event
	do       chan func()
	answered map[string]bool // prompt keys decided
	sending  atomic.Int64
	sent     atomic.Int64
	eventsN  atomic.Int64
	resMu    sync.Mutex
	res      map[string]int // result[:problem] -> count
	refusals []string       // the first refusals' words
	// refused counts the decisions refused: some before they were
	// journaled (by the hub's checks, the journal's), some after (by
	// the agent).
	refused atomic.Int64
	// hub, when the dashboard is attached to one, takes a claim on each
	// task while its answer is sent, and releases it after.
	hub *hubclient.Client
}

// planted holds what -soak.leak keeps.
var planted struct {
	mu   sync.Mutex
	kept [][]byte
}

// plant keeps -soak.leak bytes for one decision.
func plant() {
	if *leak <= 0 {
		return
	}
	b := make([]byte, *leak)
	for i := range b {
		b[i] = byte(i)
	}
	planted.mu.Lock()
	planted.kept = append(planted.kept, b)
	planted.mu.Unlock()
}

func (d *dashboard) loop(ctx context.Context) {
	tick := time.NewTicker(30 * time.Millisecond)
	defer tick.Stop()
	inbox := time.NewTicker(100 * time.Millisecond)
	defer inbox.Stop()
	var batch []model.Event
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-d.do:
			f()
		case <-inbox.C:
			d.answer(ctx)
		case <-tick.C:
			batch = batch[:0]
			for more := true; more; {
				select {
				case ev := <-d.events:
					batch = append(batch, ev)
				default:
					more = false
				}
			}
			d.eventsN.Add(int64(len(batch)))
			if len(batch) > 0 {
				d.fleet.Apply(batch)
			}
		}
	}
}

// answer replies "main" to every question not yet decided, eight at a
// time. Keys of prompts no longer in the queue are let go: the queue
// holds a decided prompt until its task moves on.
func (d *dashboard) answer(ctx context.Context) {
	queued := map[string]bool{}
	for _, it := range d.svc.Queue(d.fleet, model.SortAge) {
		key := it.Task.Key.Agent + "/" + string(it.Task.Key.ID) + "/" + it.Prompt
		queued[key] = true
		if !it.Actionable || it.Task.State != a2a.TaskStateInputRequired || it.Prior != nil || d.answered[key] || d.sending.Load() >= 8 {
			continue
		}
		dec, err := d.svc.Prepare(it, approvals.Input{Kind: approvals.KindReply, Text: "main"})
		if err != nil {
			continue
		}
		d.answered[key] = true
		d.sending.Add(1)
		d.sent.Add(1)
		go func() {
			defer d.sending.Add(-1)
			if d.hub != nil {
				if err := d.hub.Claim(ctx, dec.Agent, dec.TaskID, "answering"); err == nil {
					defer d.hub.Release(context.WithoutCancel(ctx), dec.Agent, dec.TaskID)
				}
			}
			out := d.svc.Send(ctx, dec)
			plant()
			d.note(out)
		}()
	}
	for k := range d.answered {
		if !queued[k] {
			delete(d.answered, k)
		}
	}
}

// note counts an outcome.
func (d *dashboard) note(out approvals.Outcome) {
	d.resMu.Lock()
	defer d.resMu.Unlock()
	if d.res == nil {
		d.res = map[string]int{}
	}
	k := string(out.Result)
	if out.Problem != "" {
		k += ":" + string(out.Problem)
	}
	d.res[k]++
	if out.Result == approvals.ResultRefused {
		d.refused.Add(1)
		if len(d.refusals) < 5 {
			d.refusals = append(d.refusals, out.Words())
		}
	}
}

func (d *dashboard) results() string {
	d.resMu.Lock()
	defer d.resMu.Unlock()
	return fmt.Sprint(d.res, " ", d.refusals)
}

// onLoop runs f on the loop's goroutine, which owns the fleet.
func (d *dashboard) onLoop(f func()) {
	done := make(chan struct{})
	d.do <- func() { f(); close(done) }
	<-done
}

// chaos is the driver: tasks started, restarts, floods.
type chaos struct {
	agents                  []*soakAgent
	t                       *testing.T
	started, failed         atomic.Int64
	restarts, wiped, floods atomic.Int64
	// describe, when set, says what else the process holds at a point
	// of rest (the hub's replay window), for the log.
	describe func() string
	// rested, when set, checks more at each point of rest (warm, mid,
	// end), after the count.
	rested func(stage string)
}

// run churns for d: tasks at soak.rate a second on the agents but
// floods, a restart every 15 s, a flood every 20 s.
func (c *chaos) run(d time.Duration) {
	if d <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); c.churn(ctx) }()
	go func() {
		defer wg.Done()
		c.every(ctx, 15*time.Second, func() {
			a := c.agent("restarts")
			a.stop()
			time.Sleep(time.Second + time.Duration(c.restarts.Load()%2)*time.Second)
			if c.restarts.Add(1)%2 == 0 {
				a.fresh()
				c.wiped.Add(1)
			}
			a.start(c.t)
		})
	}()
	go func() {
		defer wg.Done()
		c.every(ctx, 20*time.Second, func() {
			if c.send(c.agent("floods"), "flood") {
				c.floods.Add(1)
			}
		})
	}()
	wg.Wait()
}

func (c *chaos) every(ctx context.Context, d time.Duration, f func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f()
		}
	}
}

func (c *chaos) churn(ctx context.Context) {
	t := time.NewTicker(time.Duration(float64(time.Second) / *rate))
	defer t.Stop()
	kinds := []string{"done", "ask", "ask", "ask", "ask", "hold"}
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		a := c.agents[i%5]
		go c.send(a, kinds[(i/5)%len(kinds)])
	}
}

// send starts one task on a with a bare SDK client, as any client would.
func (c *chaos) send(a *soakAgent, text string) bool {
	a.mu.Lock()
	card := a.card
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cl, err := sdk.NewFromCard(ctx, card)
	if err == nil {
		_, err = cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)),
			Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
		cl.Destroy()
	}
	if err != nil {
		c.failed.Add(1)
		return false
	}
	c.started.Add(1)
	return true
}

func (c *chaos) afterRest(stage string) {
	if c.rested != nil {
		c.rested(stage)
	}
}

func (c *chaos) agent(name string) *soakAgent {
	for _, a := range c.agents {
		if a.name == name {
			return a
		}
	}
	return nil
}

// restState is the fleet compared with the agents once all is at rest.
type restState struct {
	tasks      int
	mismatches []string
	use        usage // heap, goroutines and descriptors, counted at rest
}

// rest waits for nothing to be running and the inbox to be answered,
// then for two full resyncs, and compares every agent's tasks with the
// fleet's.
func (c *chaos) rest(d *dashboard) restState {
	start := time.Now()
	for {
		busy := ""
		if n := d.sending.Load(); n > 0 {
			busy = fmt.Sprintf(" %d answers being sent", n)
		}
		for _, a := range c.agents {
			if n := a.running(); n > 0 {
				busy += fmt.Sprintf(" %s: %d running", a.name, n)
			}
		}
		if busy == "" {
			break
		}
		if time.Since(start) > 2*time.Minute {
			c.t.Logf("still busy after 2 minutes:%s", busy)
			break
		}
		if el := time.Since(start); el%(10*time.Second) < 200*time.Millisecond && el > time.Second {
			c.t.Logf("busy after %s:%s", el.Round(time.Second), busy)
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Logf("at rest after %s", time.Since(start).Round(time.Millisecond))
	time.Sleep(12 * time.Second) // two full resyncs, and the answers' last events
	// Keep-alive connections the watchers pool are not a leak: for two
	// seconds every agent closes each connection once it is idle or has
	// answered, and the count is taken then, before they may be pooled
	// again: of what is in use. (Counted after keep-alives came back, it
	// held whatever the watchers' next sweeps had pooled meanwhile, up to
	// eleven connections of three goroutines each.)
	var st restState
	for _, a := range c.agents {
		a.keepAlives(false)
	}
	time.Sleep(2 * time.Second)
	st.use = measure()
	for _, a := range c.agents {
		a.keepAlives(true)
	}
	holds := map[string]map[a2a.TaskID]*a2a.Task{}
	for _, a := range c.agents {
		holds[a.name] = a.holds(c.t)
	}
	d.onLoop(func() {
		st.tasks = d.fleet.Len()
		st.mismatches = compare(d.fleet, holds)
	})
	return st
}

// compare checks that the fleet holds, per agent, what the agent holds:
// every task it shows (but those marked gone) in the agent's state, every
// open task of the agent, and its newest keep finished ones.
func compare(f *model.Fleet, holds map[string]map[a2a.TaskID]*a2a.Task) []string {
	var bad []string
	shown := map[model.TaskKey]*model.Task{}
	for c := model.ClassUnknown; c <= model.ClassTerminal; c++ {
		for _, t := range f.Page(c, model.Query{}, 0, f.Count(c, model.Query{})) {
			shown[t.Key] = t
		}
	}
	for k, t := range shown {
		at, ok := holds[k.Agent][k.ID]
		switch {
		case t.Gone && ok:
			bad = append(bad, fmt.Sprintf("%s: %s is marked gone; the agent holds it (%s)", k.Agent, k.ID, at.Status.State))
		case !t.Gone && !ok:
			bad = append(bad, fmt.Sprintf("%s: %s is shown %s; the agent does not hold it", k.Agent, k.ID, t.State))
		case !t.Gone && model.NormalizeState(at.Status.State) != t.State:
			bad = append(bad, fmt.Sprintf("%s: %s is shown %s; the agent holds it %s", k.Agent, k.ID, t.State, at.Status.State))
		}
	}
	for agent, tasks := range holds {
		var terminal []time.Time
		for _, at := range tasks {
			if model.ClassOf(at.Status.State) == model.ClassTerminal && at.Status.Timestamp != nil {
				terminal = append(terminal, *at.Status.Timestamp)
			}
		}
		cut := newestCut(terminal, keep)
		for id, at := range tasks {
			t := shown[model.TaskKey{Agent: agent, ID: id}]
			open := model.ClassOf(at.Status.State) != model.ClassTerminal
			newest := !open && at.Status.Timestamp != nil && at.Status.Timestamp.After(cut)
			if (open || newest) && (t == nil || t.Gone) {
				bad = append(bad, fmt.Sprintf("%s: holds %s (%s), the fleet does not show it", agent, id, at.Status.State))
			}
		}
	}
	return bad
}

// newestCut is the n-th newest of ts (zero when there are fewer).
func newestCut(ts []time.Time, n int) time.Time {
	if len(ts) < n {
		return time.Time{}
	}
	for i := 1; i < len(ts); i++ { // insertion sort, newest first; a few hundred at most
		for j := i; j > 0 && ts[j].After(ts[j-1]); j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
	return ts[n-1]
}

// usage is what the process holds at a point of rest.
type usage struct {
	heap       uint64
	goroutines int
	fds        int
	rss        uint64 // resident set, bytes (0 where /proc does not say)
}

func (u usage) String() string {
	return fmt.Sprintf("heap %.1f MiB, %d goroutines, %d file descriptors, RSS %.1f MiB", float64(u.heap)/(1<<20), u.goroutines, u.fds, float64(u.rss)/(1<<20))
}

// rss reads the process's resident set from /proc/self/status.
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			var kb uint64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb << 10
		}
	}
	return 0
}

// writeHeapProfile writes the heap's profile into -soak.heapprofile,
// after a GC, named for the test and the point of rest (warm, mid, end):
// go tool pprof -top -base DIR/TestSoak-mid.heap DIR/TestSoak-end.heap
// shows what the last half kept.
func writeHeapProfile(t *testing.T, stage string) {
	if *heapDir == "" {
		return
	}
	runtime.GC()
	path := filepath.Join(*heapDir, t.Name()+"-"+stage+".heap")
	f, err := os.Create(path)
	if err != nil {
		t.Errorf("the heap profile: %v", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		t.Errorf("the heap profile: %v", err)
	}
	t.Logf("heap profile: %s", path)
}

func measure() usage {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fds, _ := os.ReadDir("/proc/self/fd")
	return usage{heap: ms.HeapAlloc, goroutines: runtime.NumGoroutine(), fds: len(fds), rss: rss()}
}

// checkJournal closes the journal and reads it again: no damaged line,
// every line JSON, a decision recorded for every one sent (but those
// refused before the journal) and an outcome for each.
func checkJournal(t *testing.T, closeJournal func() error, path string, d *dashboard) {
	t.Helper()
	if err := closeJournal(); err != nil {
		t.Errorf("closing the journal: %v", err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines++
		if !json.Valid(sc.Bytes()) {
			t.Errorf("journal line %d is not JSON: %.80q", lines, sc.Text())
		}
	}
	again, err := approvals.Open(approvals.Options{JournalPath: path, ReadOnly: true})
	if err != nil {
		t.Fatalf("the journal does not open again: %v", err)
	}
	defer again.Close()
	decisions, pending := 0, 0
	for _, e := range again.Journal() {
		if e.Observed() {
			continue
		}
		decisions++
		if e.Result == approvals.ResultPending {
			pending++
		}
	}
	t.Logf("journal: %d lines, %d decisions, %d damaged, %d without an outcome", lines, decisions, again.Damaged(), pending)
	// Every decision sent is journaled but those refused before it (a
	// refusal may come before the journal or after: by the agent).
	sent, refused := d.sent.Load(), d.refused.Load()
	if again.Damaged() != 0 || int64(decisions) > sent || int64(decisions) < sent-refused || pending != 0 {
		t.Errorf("journal: %d damaged lines, %d decisions for %d sent (%d refused), %d without an outcome",
			again.Damaged(), decisions, sent, refused, pending)
	}
}
