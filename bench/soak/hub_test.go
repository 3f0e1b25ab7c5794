//go:build soak

package soak

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/hubclient"
	"a2atop/model"
)

var window = flag.Int("soak.window", 0, "the hub's replay window in events (hub.Options.Window); 0 = the hub's default, as a2atop serve runs; a short soak needs one that fills within its warm-up")

// hubSlack is TestSoakHub's midSlack: two fleets' change logs still
// filling (the hub's and alice's, up to 2.6 MB each), and three journal
// memories that each run up to a quarter over journal_memory before
// they let go (the hub's Service, alice's, the feed's journal lines), on
// whichever side of it each count falls.
const hubSlack = 5 << 20

// The soak hub's operators: alice answers every question; bob and carol
// attach and leave.
var soakTokens = map[string]string{
	"alice": "soak-alice-7c1e2d3f4a5b6c7d",
	"bob":   "soak-bob-1f2e3d4c5b6a7980",
	"carol": "soak-carol-0a9b8c7d6e5f4a3b",
}

// TestSoakHub is TestSoak for a team: a2atop serve's hub (hub.Open on
// the real watchers, its API on loopback HTTP, as serve wires it) on the
// same six agents and the same churn. alice's dashboard (the real
// hubclient, attached for the whole run) answers every question through
// the hub, claiming each task while its answer is sent and releasing it
// after; bob's and carol's dashboards (the real hubclient each, with its
// own approvals Service and fleet) attach every 700 ms and leave after 1
// to 4 s, each taking a claim on a waiting task and releasing it, or
// (one in three) leaving with it held until it expires. Everything runs
// in this process: the heap measured is the hub's, alice's and the
// agents'; the visitors are gone at each point of rest. The bounds are
// TestSoak's: the heap's slope over the last half against the decisions
// made in it, goroutines and descriptors against the warm-up, alice's
// fleet against the agents, the hub's journal intact.
func TestSoakHub(t *testing.T) {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	agents := soakAgents(t)
	mgr := a2aclient.New(watcherOptions(agents), a2aclient.Options{Buffer: 512})
	var hubAgents []hub.Agent
	for _, a := range agents {
		hubAgents = append(hubAgents, hub.Agent{Name: a.name, URL: a.url()})
	}
	var ops []hub.Operator
	for name, tok := range soakTokens {
		ops = append(ops, hub.Operator{Name: name, TokenHash: hub.HashToken(tok),
			Roles: map[string][]hub.Role{hub.AllAgents: {hub.RoleWatch, hub.RoleAnswer}}})
	}
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	h, err := hub.Open(hub.Options{Watchers: mgr, Agents: hubAgents, Fleet: model.Options{MaxTerminalPerAgent: keep}, Operators: ops,
		Journal:  approvals.Options{JournalPath: journal, Sender: mgr, SendTimeout: 5 * time.Second, Memory: memory},
		ClaimTTL: 5 * time.Second, Window: *window})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	url := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	hubDone := make(chan struct{})
	go func() { _ = h.Run(ctx); close(hubDone) }()

	cl, svc, fleet := attachSoak(t, ctx, url, "alice", nil)
	clDone := make(chan struct{})
	go func() { cl.Run(ctx); close(clDone) }()
	select {
	case <-cl.Synced():
	case <-time.After(time.Minute):
		t.Fatal("alice's dashboard never got the hub's snapshot")
	}
	d := &dashboard{fleet: fleet, svc: svc, events: cl.Events(), do: make(chan func()), answered: map[string]bool{}, hub: cl}
	loopDone := make(chan struct{})
	go func() { d.loop(ctx); close(loopDone) }()
	ch := &chaos{agents: agents, t: t, describe: func() string {
		st := h.Stats()
		return fmt.Sprintf("the hub's replay window: %d events, %.1f MiB; feed position %d", st.Window, float64(st.WindowBytes)/(1<<20), st.Position)
	}}
	lg := &letGo{}
	ch.rested = func(stage string) { lg.rested(t, ctx, h, agents, stage) }
	tm := &visitors{t: t, url: url}
	soakRun(t, ch, d, func(dur time.Duration) {
		vctx, vcancel := context.WithTimeout(ctx, dur)
		defer vcancel()
		done := make(chan struct{})
		go func() { tm.churn(vctx); close(done) }()
		ch.run(dur)
		<-done
	}, hubSlack, 2) // the hub's fleet and alice's
	t.Logf("churn: %d tasks started (%d failed to start), %d restarts (%d on an empty store), %d floods; alice: %d events, %d decisions sent (%s)",
		ch.started.Load(), ch.failed.Load(), ch.restarts.Load(), ch.wiped.Load(), ch.floods.Load(), d.eventsN.Load(), d.sent.Load(), d.results())
	t.Logf("visitors: %d dashboards attached (%d could not), %d events, %d claims taken (%d refused), %d released, %d left to expire",
		tm.visits.Load(), tm.failed.Load(), tm.events.Load(), tm.claims.Load(), tm.refused.Load(), tm.released.Load(), tm.expired.Load())
	if tm.visits.Load() == 0 || tm.claims.Load() == 0 {
		t.Error("no dashboard attached and claimed: the soak did not run the team's part")
	}

	cancel()
	<-loopDone
	<-clDone
	<-hubDone
	_ = srv.Close()
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("serving the hub: %v", err)
	}
	checkJournal(t, h.Close, journal, d)
}

// attachSoak attaches an operator's dashboard to the hub at url, as
// a2atop --hub does: the client, Me, its approvals Service, its fleet.
func attachSoak(t *testing.T, ctx context.Context, url, name string, tr http.RoundTripper) (*hubclient.Client, *approvals.Service, *model.Fleet) {
	cl, err := hubclient.New(hubclient.Options{URL: url, Token: soakTokens[name], Transport: tr, MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	me, err := cl.Me(ctx)
	if err != nil {
		return nil, nil, nil
	}
	svc, err := cl.OpenService(approvals.Options{Memory: memory})
	if err != nil {
		t.Fatal(err)
	}
	fleet := model.NewFleet(model.Options{MaxTerminalPerAgent: keep})
	for _, a := range me.Agents {
		fleet.AddAgent(a.Name, a.URL)
	}
	return cl, svc, fleet
}

// visitors are bob's and carol's dashboards, attaching and leaving.
type visitors struct {
	t                                  *testing.T
	url                                string
	n                                  atomic.Int64
	visits, failed, events             atomic.Int64
	claims, refused, released, expired atomic.Int64
}

// churn starts a visit every 700 ms until ctx ends, and waits for every
// visitor to have left.
func (v *visitors) churn(ctx context.Context) {
	var wg sync.WaitGroup
	tick := time.NewTicker(700 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case <-tick.C:
		}
		i := v.n.Add(1)
		name := []string{"bob", "carol"}[i%2]
		wg.Add(1)
		go func() { defer wg.Done(); v.visit(ctx, name, i) }()
	}
}

// visit is one dashboard's stay: attached, its snapshot and the feed
// applied to its fleet, a claim on a waiting task (released, or one in
// three left held as the dashboard leaves), gone after 1 to 4 s.
func (v *visitors) visit(ctx context.Context, name string, i int64) {
	vctx, cancel := context.WithTimeout(ctx, time.Second+rand.N(3*time.Second))
	defer cancel()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	cl, svc, fleet := attachSoak(v.t, vctx, v.url, name, tr)
	if cl == nil {
		v.failed.Add(1)
		return
	}
	defer svc.Close()
	v.visits.Add(1)
	runDone := make(chan struct{})
	go func() { cl.Run(vctx); close(runDone) }()
	defer func() { <-runDone }()
	claimed := false
	tick := time.NewTicker(30 * time.Millisecond)
	defer tick.Stop()
	var batch []model.Event
	for {
		select {
		case <-vctx.Done():
			return
		case ev := <-cl.Events():
			batch = append(batch, ev)
			continue
		case <-tick.C:
		}
		v.events.Add(int64(len(batch)))
		fleet.Apply(batch)
		batch = batch[:0]
		if claimed {
			continue
		}
		if up, _ := cl.Connected(); !up {
			continue
		}
		for _, it := range svc.Queue(fleet, model.SortAge) {
			if !it.Actionable {
				continue
			}
			claimed = true
			if err := cl.Claim(vctx, it.Task.Key.Agent, it.Task.Key.ID, "answering"); err != nil {
				v.refused.Add(1) // the task moved on meanwhile: it no longer waits
				break
			}
			v.claims.Add(1)
			if i%3 == 0 {
				v.expired.Add(1) // left held: the hub lets it go after ClaimTTL
				break
			}
			if cl.Release(vctx, it.Task.Key.Agent, it.Task.Key.ID) == nil {
				v.released.Add(1)
			}
			break
		}
	}
}

// letGo follows the tasks the hub's fleet holds at one point of rest to
// the next: each the fleet no longer holds by then (evicted, or heard of
// again under its key) must be unreachable, its snapshot too. This
// checks retention whatever the rate: a short soak's slope hides what
// each evicted task leaves behind under its slack, an hour's shows it.
type letGo struct {
	held []heldTask
}

type heldTask struct {
	key  model.TaskKey
	task weak.Pointer[model.Task]
	snap weak.Pointer[a2a.Task]
}

func (l *letGo) rested(t *testing.T, ctx context.Context, h *hub.Hub, agents []*soakAgent, stage string) {
	holds := map[string]map[a2a.TaskID]*a2a.Task{}
	for _, a := range agents {
		holds[a.name] = a.holds(t)
	}
	runtime.GC()
	var let, kept, snaps int
	var next []heldTask
	err := h.Inspect(ctx, func(f *model.Fleet) {
		for _, ht := range l.held {
			old := ht.task.Value()
			if old != nil && f.Task(ht.key) == old {
				continue // still held
			}
			let++
			if old != nil {
				kept++
			}
			if ht.snap.Value() != nil {
				snaps++
			}
		}
		for agent, tasks := range holds {
			for id := range tasks {
				if tk := f.Task(model.TaskKey{Agent: agent, ID: id}); tk != nil {
					next = append(next, heldTask{key: tk.Key, task: weak.Make(tk), snap: weak.Make(tk.Snapshot)})
				}
			}
		}
	})
	if err != nil {
		t.Errorf("inspecting the hub's fleet: %v", err)
		return
	}
	if len(l.held) > 0 {
		t.Logf("%s: of the %d tasks the hub's fleet held at the last point of rest, %d let go since: %d of them still in memory, %d snapshots", stage, len(l.held), let, kept, snaps)
		// A few may be held for a moment by what is still in flight (an
		// event on its way, a decision's snapshot being sent): a fleet
		// that keeps what it evicts keeps every one of them.
		if allowed := max(2, let/50); kept > allowed || snaps > allowed {
			t.Errorf("%s: %d of the %d tasks the hub's fleet let go since the last point of rest are still in memory (%d snapshots): something keeps what the fleet evicted", stage, kept, let, snaps)
		}
	}
	l.held = next
}
