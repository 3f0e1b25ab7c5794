package hub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/approvals/jetstore"
	"a2atop/hub"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

// countedAgent is a demo agent and what it receives, counted at the
// agent: every JSON-RPC method, and the SubscribeToTask streams open now.
type countedAgent struct {
	name string
	ag   *agenttest.Agent
	ids  []a2a.TaskID // its deploys, waiting for a decision

	mu      sync.Mutex
	calls   map[string]int
	streams int
}

func (ca *countedAgent) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var rpc struct{ Method string }
		_ = json.Unmarshal(body, &rpc)
		ca.mu.Lock()
		ca.calls[rpc.Method]++
		stream := rpc.Method == "SubscribeToTask"
		if stream {
			ca.streams++
		}
		ca.mu.Unlock()
		if stream {
			defer func() { ca.mu.Lock(); ca.streams--; ca.mu.Unlock() }()
		}
		next.ServeHTTP(w, r)
	})
}

// count is how many requests of method the agent has received.
func (ca *countedAgent) count(method string) int {
	ca.mu.Lock()
	defer ca.mu.Unlock()
	return ca.calls[method]
}

// open is how many SubscribeToTask streams are open on the agent now.
func (ca *countedAgent) open() int {
	ca.mu.Lock()
	defer ca.mu.Unlock()
	return ca.streams
}

// startCountedAgents starts n demo agents, each with two deploys that
// wait for a decision.
func startCountedAgents(t *testing.T, n int) []*countedAgent {
	t.Helper()
	var out []*countedAgent
	for i := range n {
		ca := &countedAgent{name: fmt.Sprintf("agent-%d", i+1), calls: map[string]int{}}
		ca.ag = agenttest.StartAgentWith(t, ca.wrap)
		ca.ids = []a2a.TaskID{ca.ag.Start("deploy"), ca.ag.Start("deploy")}
		out = append(out, ca)
	}
	return out
}

func named(agents []*countedAgent) []namedAgent {
	var out []namedAgent
	for _, a := range agents {
		out = append(out, namedAgent{a.name, a.ag})
	}
	return out
}

// leaseTTL is the watch leases' TTL in these tests.
const leaseTTL = 3 * time.Second

// teamHub is one hub of a team on the cluster over the agents: the
// journal, the claims, the watch leases and the events shared.
func teamHub(t *testing.T, c *natsCluster, agents []*countedAgent, name string, mod ...func(*jetstore.Store, *hub.Options)) *fixture {
	t.Helper()
	st, j := c.shared(t, name)
	return teamHubOn(t, st, j, agents, name, leaseTTL, mod...)
}

// teamHubOn is teamHub on a store already open, its leases lasting ttl.
func teamHubOn(t *testing.T, st *jetstore.Store, j *jetstore.Journal, agents []*countedAgent, name string, ttl time.Duration,
	mod ...func(*jetstore.Store, *hub.Options)) *fixture {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ls, err := st.Leases(ctx, ttl)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := st.Events(ctx, 10*time.Minute, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := st.Claims(ctx, hub.DefaultClaimTTL)
	if err != nil {
		t.Fatal(err)
	}
	return newFixtureAgents(t, named(agents), 100*time.Millisecond, withFrank, func(o *hub.Options) {
		o.Journal.Shared = j
		o.Claims = cl
		o.Team = &hub.Team{Leases: ls, Events: evs, ID: name}
		for _, m := range mod {
			m(st, o)
		}
	})
}

// watchers are, for each agent, the hubs that watch it now.
func watchers(fxs []*fixture) map[string][]int {
	out := map[string][]int{}
	for i, fx := range fxs {
		if fx == nil {
			continue
		}
		for _, a := range fx.h.Watching() {
			out[a] = append(out[a], i)
		}
	}
	return out
}

// waitSpread waits until every agent is watched by exactly one of the
// hubs, each hub holding no more than its share, and says how long it
// took.
func waitSpread(t *testing.T, fxs []*fixture, agents []*countedAgent) time.Duration {
	t.Helper()
	live := 0
	for _, fx := range fxs {
		if fx != nil {
			live++
		}
	}
	share := (len(agents) + live - 1) / live
	start := time.Now()
	deadline := start.Add(90 * time.Second)
	for {
		w := watchers(fxs)
		ok := len(w) == len(agents)
		for _, hs := range w {
			ok = ok && len(hs) == 1
		}
		for _, fx := range fxs {
			ok = ok && (fx == nil || len(fx.h.Watching()) <= share)
		}
		if ok {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agents were never spread over the hubs, one watcher each: %v", w)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitFleets waits until every hub's fleet holds every agent's deploys
// waiting, and the agent up.
func waitFleets(t *testing.T, fxs []*fixture, agents []*countedAgent) {
	t.Helper()
	for i, fx := range fxs {
		if fx == nil {
			continue
		}
		var missing string
		complete := func(f *model.Fleet) bool {
			for _, a := range agents {
				ag := f.Agent(a.name)
				if ag == nil || !ag.Health.State.Up() {
					missing = a.name + " up"
					return false
				}
				for _, id := range a.ids {
					tk := f.Task(model.TaskKey{Agent: a.name, ID: id})
					if tk == nil || tk.State != a2a.TaskStateAuthRequired {
						missing = a.name + " " + string(id)
						return false
					}
				}
			}
			return true
		}
		waitCond(t, fmt.Sprintf("every agent's deploys on hub %d", i+1), func() bool {
			ok := false
			if err := fx.h.Inspect(context.Background(), func(f *model.Fleet) { ok = complete(f) }); err != nil {
				t.Fatal(err)
			}
			return ok
		}, func() string {
			return fmt.Sprintf("missing %s; watching %v; the hub's log:\n%s", missing, fx.h.Watching(), tail(fx.log.String(), 40))
		})
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	ls := strings.Split(s, "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}

// agentLoad is what the agents received in a while: ListTasks per agent and
// second, and the streams open at its end (all agents together).
type agentLoad struct {
	listPerSec float64
	streams    int
}

func measure(agents []*countedAgent, d time.Duration) agentLoad {
	before := map[string]int{}
	for _, a := range agents {
		before[a.name] = a.count("ListTasks")
	}
	start := time.Now()
	time.Sleep(d)
	took := time.Since(start).Seconds()
	var l agentLoad
	for _, a := range agents {
		l.listPerSec += float64(a.count("ListTasks")-before[a.name]) / took / float64(len(agents))
		l.streams += a.open()
	}
	return l
}

// Each agent is watched once: with three hubs on one JetStream cluster
// the agents receive about the ListTasks and SubscribeToTask streams
// they receive from one hub alone (counted at the agents), not three
// times them, and every hub's fleet holds every agent's tasks.
func TestTeamWatchesEachAgentOnce(t *testing.T) {
	agents := startCountedAgents(t, 6)
	alone := newFixtureAgents(t, named(agents), 100*time.Millisecond)
	waitFleets(t, []*fixture{alone}, agents)
	one := measure(agents, 3*time.Second)
	alone.stop()
	for _, a := range agents { // the hub alone's streams end with it
		waitCond(t, "the hub alone's streams end", func() bool { return a.open() == 0 })
	}

	c := startNATSCluster(t)
	fxs := []*fixture{teamHub(t, c, agents, "hub1"), teamHub(t, c, agents, "hub2"), teamHub(t, c, agents, "hub3")}
	waitSpread(t, fxs, agents)
	waitFleets(t, fxs, agents)
	three := measure(agents, 3*time.Second)
	t.Logf("ListTasks per agent and second: %.1f with one hub, %.1f with three; streams open: %d with one, %d with three",
		one.listPerSec, three.listPerSec, one.streams, three.streams)
	if three.listPerSec > 1.6*one.listPerSec {
		t.Errorf("three hubs sent each agent %.1f ListTasks a second, one hub %.1f: the agents are watched more than once", three.listPerSec, one.listPerSec)
	}
	if three.streams != one.streams {
		t.Errorf("%d SubscribeToTask streams open with three hubs, %d with one: the agents are watched more than once", three.streams, one.streams)
	}
	for name, hs := range watchers(fxs) {
		if len(hs) != 1 {
			t.Errorf("%s is watched by hubs %v", name, hs)
		}
	}
	for i, fx := range fxs {
		// The hub logs the leases it takes; /metrics counts them, and
		// what it asked each agent.
		if !strings.Contains(fx.log.String(), `msg="watch lease taken" agent=`) {
			t.Errorf("hub %d did not log the leases it took", i+1)
		}
		status, scrape := fx.get("/metrics", tokens["carol"])
		held := fmt.Sprintf("a2atop_hub_leases_held %d\n", len(fx.h.Watching()))
		mine := fx.h.Watching()[0]
		lists := fmt.Sprintf(`a2atop_hub_agent_calls_total{agent=%q,op="ListTasks"}`, mine)
		watched := fmt.Sprintf(`a2atop_hub_agent_watched{agent=%q} 1`, mine)
		if status != http.StatusOK || !strings.Contains(scrape, held) || !strings.Contains(scrape, lists) || !strings.Contains(scrape, watched) {
			t.Errorf("hub %d's /metrics (%d) lacks %q, %q or %q:\n%s", i+1, status, held, lists, watched, scrape)
		}
	}

	// A task the agents start now reaches every hub, from whichever
	// watches its agent.
	var late []model.TaskKey
	for _, a := range agents {
		late = append(late, model.TaskKey{Agent: a.name, ID: a.ag.Start("deploy")})
	}
	for _, fx := range fxs {
		fx.waitHub("the new deploys on every hub", func(f *model.Fleet) bool {
			for _, k := range late {
				if tk := f.Task(k); tk == nil || tk.State != a2a.TaskStateAuthRequired {
					return false
				}
			}
			return true
		})
	}
}

// waitCond waits until cond holds, for a minute at most; why says
// what is wrong when it never does.
func waitCond(t *testing.T, what string, cond func() bool, why ...func() string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			msg := ""
			for _, w := range why {
				msg += ": " + w()
			}
			t.Fatalf("%s: never happened%s", what, msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// most is the live hub that watches the most agents.
func most(fxs []*fixture) int {
	best := -1
	for i, fx := range fxs {
		if fx != nil && (best < 0 || len(fx.h.Watching()) > len(fxs[best].h.Watching())) {
			best = i
		}
	}
	return best
}

// Takeover: the hub holding the most leases stops (its Run cancelled,
// Close); its agents are watched by the other hubs, every remaining
// hub's fleet complete, and the decisions taken then reach each agent
// once.
func TestTeamTakesOverAStoppedHub(t *testing.T) {
	agents := startCountedAgents(t, 6)
	c := startNATSCluster(t)
	fxs := []*fixture{teamHub(t, c, agents, "hub1"), teamHub(t, c, agents, "hub2"), teamHub(t, c, agents, "hub3")}
	waitSpread(t, fxs, agents)
	waitFleets(t, fxs, agents)
	k := most(fxs)
	orphans := fxs[k].h.Watching()
	fxs[k].stop()
	fxs[k] = nil
	took := waitSpread(t, fxs, agents)
	t.Logf("the agents of %d hub(s) stopped (%v) were watched again within %s", 1, orphans, took.Round(time.Millisecond))
	waitFleets(t, fxs, agents)

	// A deploy each agent starts now reaches both hubs; the operators on
	// the two hubs race on it; each agent receives one decision.
	var live []*fixture
	for _, fx := range fxs {
		if fx != nil {
			live = append(live, fx)
		}
	}
	dashes := []*dash{live[0].attach("alice"), live[1].attach("dave")}
	for _, a := range agents {
		id := a.ag.Start("deploy")
		for _, d := range dashes {
			d.waitFor("the deploy reaches the inbox", func(f *model.Fleet) bool {
				tk := f.Task(model.TaskKey{Agent: a.name, ID: id})
				return tk != nil && tk.State == a2a.TaskStateAuthRequired
			})
		}
		var wg sync.WaitGroup
		outs := make([]approvals.Outcome, len(dashes))
		for i, d := range dashes {
			var dec *approvals.Decision
			d.read(func(f *model.Fleet) {
				it, ok := d.svc.ItemOf(f, model.TaskKey{Agent: a.name, ID: id})
				if !ok {
					t.Fatalf("%s: the deploy is not in %s's inbox", a.name, d.me.Operator)
				}
				var err error
				if dec, err = d.svc.Prepare(it, approvals.Input{Kind: approvals.KindApprove}); err != nil {
					t.Fatal(err)
				}
			})
			wg.Add(1)
			go func() { defer wg.Done(); outs[i] = d.svc.Send(context.Background(), dec) }()
		}
		wg.Wait()
		if got := a.ag.OnTask(id); got != 1 {
			t.Fatalf("%s received %d decisions on one prompt, want 1 (outcomes %+v)", a.name, got, outs)
		}
		for _, fx := range live {
			fx.waitHub("the approved deploy completes on every hub", func(f *model.Fleet) bool {
				tk := f.Task(model.TaskKey{Agent: a.name, ID: id})
				return tk != nil && tk.State == a2a.TaskStateCompleted
			})
		}
	}
	for name, hs := range watchers(fxs) {
		if len(hs) != 1 {
			t.Errorf("%s is watched by hubs %v", name, hs)
		}
	}
	if !slices.ContainsFunc(live, func(fx *fixture) bool { return len(fx.h.Watching()) > 0 }) {
		t.Error("no hub watches anything")
	}
}

// tcpProxy forwards loopback connections to a NATS server until cut:
// then it closes them and every new one at once, until restored.
type tcpProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	conns []net.Conn
}

func startProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln, target: target}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.setCut(true) })
	return p
}

func (p *tcpProxy) url() string { return "nats://" + p.ln.Addr().String() }

func (p *tcpProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(s, c); s.Close(); c.Close() }()
		go func() { _, _ = io.Copy(c, s); s.Close(); c.Close() }()
	}
}

// setCut cuts (true) or restores the proxy.
func (p *tcpProxy) setCut(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = on
	if on {
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
	}
}

// A hub that loses the team's record (its NATS servers out of reach)
// stops watching its agents when their leases would lapse, before the
// other hubs take them over (no agent has two watchers for longer than
// a renewal), and takes leases again when the record is back.
func TestTeamHubThatLosesTheStoreStopsWatching(t *testing.T) {
	agents := startCountedAgents(t, 6)
	c := startNATSCluster(t)
	proxy := startProxy(t, c.opts[0].ClientListen)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := jetstore.Open(ctx, jetstore.Config{URLs: []string{proxy.url()}, Token: natsToken, Replicas: 3, Name: "hub3"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	j, err := st.Journal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fxs := []*fixture{teamHub(t, c, agents, "hub1"), teamHub(t, c, agents, "hub2"), teamHubOn(t, st, j, agents, "hub3", leaseTTL)}
	waitSpread(t, fxs, agents)
	waitFleets(t, fxs, agents)
	held := fxs[2].h.Watching()
	if len(held) == 0 {
		t.Fatal("hub3 watches nothing before the cut")
	}

	proxy.setCut(true)
	cutAt := time.Now()
	// Until the others hold every agent: the longest any agent had two
	// watchers, and when hub3 stopped watching.
	var overlap, stopped time.Duration
	twice := map[string]time.Time{}
	others := []*fixture{fxs[0], fxs[1], nil}
	deadline := time.Now().Add(90 * time.Second)
	for {
		now := time.Now()
		for a, hs := range watchers(fxs) {
			if len(hs) > 1 {
				if _, ok := twice[a]; !ok {
					twice[a] = now
				}
				overlap = max(overlap, now.Sub(twice[a]))
			} else {
				delete(twice, a)
			}
		}
		if stopped == 0 && len(fxs[2].h.Watching()) == 0 {
			stopped = now.Sub(cutAt)
		}
		if len(watchers(others)) == len(agents) && stopped > 0 {
			break
		}
		if now.After(deadline) {
			t.Fatalf("after the cut: hub3 watches %v, the others %v", fxs[2].h.Watching(), watchers(others))
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("cut from the record, hub3 stopped watching %v after %s; the longest an agent had two watchers: %s",
		held, stopped.Round(time.Millisecond), overlap.Round(time.Millisecond))
	if overlap >= leaseTTL/3 {
		t.Errorf("an agent had two watchers for %s after hub3 lost the record (a renewal is %s)", overlap, leaseTTL/3)
	}
	if !strings.Contains(fxs[2].log.String(), "watch lease lapsed") {
		t.Errorf("hub3 did not log its leases lapsing:\n%s", tail(fxs[2].log.String(), 30))
	}

	proxy.setCut(false)
	waitSpread(t, fxs, agents)
	waitCond(t, "hub3 watches again", func() bool { return len(fxs[2].h.Watching()) > 0 })
	late := map[string]a2a.TaskID{}
	for _, a := range agents {
		late[a.name] = a.ag.Start("deploy")
	}
	waitFleets(t, fxs, agents)
	for _, fx := range fxs {
		fx.waitHub("the deploys started after the record came back, on every hub", func(f *model.Fleet) bool {
			for name, id := range late {
				if tk := f.Task(model.TaskKey{Agent: name, ID: id}); tk == nil || tk.State != a2a.TaskStateAuthRequired {
					return false
				}
			}
			return true
		})
	}
}

// A task larger than the events' stream takes in one message (a log of
// BigChunks × BigChunkBytes, past NATS's 1 MiB) reaches every hub still:
// as the task the watching hub's fleet holds, or without its history and
// artifacts, as MaxEventBytes has the feed do.
func TestTeamSharesATaskTooLargeForTheStream(t *testing.T) {
	skipUnderRace(t, "a size split")
	agents := startCountedAgents(t, 2)
	c := startNATSCluster(t)
	fxs := []*fixture{teamHub(t, c, agents, "hub1"), teamHub(t, c, agents, "hub2")}
	waitSpread(t, fxs, agents)
	waitFleets(t, fxs, agents)
	var big []model.TaskKey
	for _, a := range agents {
		big = append(big, model.TaskKey{Agent: a.name, ID: a.ag.Begin("big")})
	}
	for i, fx := range fxs {
		fx.waitHub(fmt.Sprintf("the big tasks completed on hub %d", i+1), func(f *model.Fleet) bool {
			for _, k := range big {
				if tk := f.Task(k); tk == nil || tk.State != a2a.TaskStateCompleted {
					return false
				}
			}
			return true
		})
		if l := fx.log.String(); strings.Contains(l, "not published") || strings.Contains(l, "too large for the events' stream") {
			t.Errorf("hub %d could not publish the big tasks:\n%s", i+1, tail(l, 30))
		}
	}
}
