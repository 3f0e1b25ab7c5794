package hub_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/hubclient"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

// The operators of the fixture's hub and their tokens.
var (
	tokens = map[string]string{
		"alice": "tok-alice-3b1f0c9e8d7a6b5c",
		"bob":   "tok-bob-9f8e7d6c5b4a3921",
		"carol": "tok-carol-0a1b2c3d4e5f6a7b",
		"dave":  "tok-dave-77e6d5c4b3a29180",
		"erin":  "tok-erin-1a2b3c4d5e6f7081",
	}
	roles = map[string]map[string][]hub.Role{
		"alice": {hub.AllAgents: {hub.RoleWatch, hub.RoleAnswer, hub.RoleApprove, hub.RoleCancel}},
		"bob":   {hub.AllAgents: {hub.RoleWatch, hub.RoleAnswer}},
		"carol": {hub.AllAgents: {hub.RoleWatch}},
		"dave":  {hub.AllAgents: {hub.RoleAnswer, hub.RoleApprove}},
		"erin":  {"other": {hub.RoleWatch}}, // watches another agent, not the fixture's
	}
)

// syncBuffer is a log sink the test reads while the code writes.
type syncBuffer = agenttest.Buffer

// fixture is a real hub over loopback HTTP on a real agent: the hub's
// watchers (a2aclient.Manager), its journal in a temporary directory,
// its API served by net/http.
type fixture struct {
	t       *testing.T
	ag      *agenttest.Agent
	mgr     *a2aclient.Manager
	h       *hub.Hub
	srv     *httptest.Server
	journal string
	log     *syncBuffer
	stop    func()
	halt    func() // ends Run and waits for it; the server still serves
}

func newFixture(t *testing.T, mod ...func(*hub.Options)) *fixture {
	t.Helper()
	return newFixtureOn(t, agenttest.StartAgent(t), 100*time.Millisecond, mod...)
}

// newFixtureOn is newFixture on an agent already started, swept every
// sweep.
func newFixtureOn(t *testing.T, ag *agenttest.Agent, sweep time.Duration, mod ...func(*hub.Options)) *fixture {
	t.Helper()
	return newFixtureAgents(t, []namedAgent{{"agent", ag}}, sweep, mod...)
}

// namedAgent is an agent the hub names name.
type namedAgent struct {
	name string
	ag   *agenttest.Agent
}

// newFixtureAgents is newFixtureOn on several agents (fx.ag is the
// first).
func newFixtureAgents(t *testing.T, agents []namedAgent, sweep time.Duration, mod ...func(*hub.Options)) *fixture {
	t.Helper()
	fx := &fixture{t: t, ag: agents[0].ag, journal: filepath.Join(t.TempDir(), "journal.jsonl"), log: &syncBuffer{}}
	var aos []a2aclient.AgentOptions
	var has []hub.Agent
	for _, a := range agents {
		aos = append(aos, a2aclient.AgentOptions{Name: a.name, URL: a.ag.URL, SweepInterval: sweep, Subscribe: true, MaxStreams: 64})
		has = append(has, hub.Agent{Name: a.name, URL: a.ag.URL})
	}
	mgr := a2aclient.New(aos, a2aclient.Options{})
	fx.mgr = mgr
	var ops []hub.Operator
	for name, tok := range tokens {
		ops = append(ops, hub.Operator{Name: name, TokenHash: hub.HashToken(tok), Roles: roles[name]})
	}
	logger := slog.New(slog.NewTextHandler(fx.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o := hub.Options{Watchers: mgr, Agents: has, Operators: ops, Logger: logger,
		Journal:   approvals.Options{JournalPath: fx.journal, Sender: mgr, SendTimeout: 5 * time.Second, Logger: logger},
		Heartbeat: time.Second, StallTimeout: 5 * time.Second}
	for _, m := range mod {
		m(&o)
	}
	h, err := hub.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	fx.h = h
	fx.srv = httptest.NewServer(h.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { _ = h.Run(ctx); close(ran) }()
	fx.halt = func() { cancel(); <-ran }
	fx.stop = sync.OnceFunc(func() {
		fx.halt()
		fx.srv.CloseClientConnections()
		fx.srv.Close()
		_ = h.Close()
	})
	t.Cleanup(fx.stop)
	return fx
}

// dash is an attached dashboard without a screen: the client, its
// approvals Service, and the fleet it builds from the feed with
// Fleet.Apply, as the dashboard's Update does.
type dash struct {
	t   *testing.T
	cl  *hubclient.Client
	svc *approvals.Service
	me  hub.Me
	log *syncBuffer // where the hub and the dashboards log, when the fixture's

	mu    sync.Mutex
	fleet *model.Fleet
	n     int // events applied
}

// attach connects an operator's dashboard to the fixture's hub.
func (fx *fixture) attach(name string, mod ...func(*hubclient.Options)) *dash {
	fx.t.Helper()
	o := hubclient.Options{URL: fx.srv.URL, Token: tokens[name], MinBackoff: 50 * time.Millisecond, MaxBackoff: 500 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(fx.log, nil)).With("dashboard", name)}
	for _, m := range mod {
		m(&o)
	}
	d := attachTo(fx.t, o)
	d.log = fx.log
	return d
}

func attachTo(t *testing.T, o hubclient.Options) *dash {
	t.Helper()
	cl, err := hubclient.New(o)
	if err != nil {
		t.Fatal(err)
	}
	me, err := cl.Me(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	svc, err := cl.OpenService(approvals.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := &dash{t: t, cl: cl, svc: svc, me: me, fleet: model.NewFleet(model.Options{})}
	for _, a := range me.Agents {
		d.fleet.AddAgent(a.Name, a.URL)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); cl.Run(ctx) }()
	go func() { defer wg.Done(); d.apply(ctx) }()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return d
}

// apply drains the client's events in batches into the fleet.
func (d *dash) apply(ctx context.Context) {
	for {
		var batch []model.Event
		select {
		case <-ctx.Done():
			return
		case ev := <-d.cl.Events():
			batch = append(batch, ev)
		}
		for more := true; more; {
			select {
			case ev := <-d.cl.Events():
				batch = append(batch, ev)
			default:
				more = false
			}
		}
		d.mu.Lock()
		d.fleet.Apply(batch)
		d.n += len(batch)
		d.mu.Unlock()
	}
}

// logs are the hub's and the dashboards' logs, less the requests.
func (d *dash) logs() string {
	if d.log == nil {
		return ""
	}
	var keep []string
	for _, l := range strings.Split(d.log.String(), "\n") {
		if !strings.Contains(l, "msg=request") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep[max(0, len(keep)-60):], "\n")
}

// read runs f on the dashboard's fleet.
func (d *dash) read(f func(*model.Fleet)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f(d.fleet)
}

// waitFor waits until cond holds on the dashboard's fleet.
func (d *dash) waitFor(what string, cond func(*model.Fleet) bool) {
	d.t.Helper()
	deadline := time.Now().Add(60 * time.Second) // 50 dashboards on 2 shared cores
	for time.Now().Before(deadline) {
		ok := false
		d.read(func(f *model.Fleet) { ok = cond(f) })
		if ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	d.t.Fatalf("%s: never happened on %s's dashboard; the logs:\n%s", what, d.me.Operator, d.logs())
}

// waiting reports whether the dashboard's inbox holds the task.
func (d *dash) waiting(id a2a.TaskID) bool {
	in := false
	d.read(func(f *model.Fleet) { in = d.inInbox(f, id) })
	return in
}

// inInbox reports whether the inbox built from f holds the task.
func (d *dash) inInbox(f *model.Fleet, id a2a.TaskID) bool {
	for _, it := range d.svc.Queue(f, model.SortAge) {
		if it.Task.Key.ID == id {
			return true
		}
	}
	return false
}

// prepare prepares a decision on the task as the dashboard's inbox does
// (on the goroutine that owns the fleet).
func (d *dash) prepare(id a2a.TaskID, in approvals.Input) *approvals.Decision {
	d.t.Helper()
	var dec *approvals.Decision
	var err error
	d.read(func(f *model.Fleet) {
		it, ok := d.svc.ItemOf(f, model.TaskKey{Agent: "agent", ID: id})
		if !ok {
			err = errNoTask
			return
		}
		dec, err = d.svc.Prepare(it, in)
	})
	if err != nil {
		d.t.Fatalf("%s prepares on %s: %v", d.me.Operator, id, err)
	}
	return dec
}

var errNoTask = &noTask{}

type noTask struct{}

func (*noTask) Error() string { return "the dashboard's fleet does not hold the task" }

// sig is what must be the same in two fleets that saw the same events:
// per task its state, status time, text, class and whether it is gone;
// per agent its health.
func sig(f *model.Fleet) map[string]string {
	out := map[string]string{}
	for _, a := range f.Agents() {
		out["agent "+a.Name] = a.Health.State.String() + " " + a.Info.CardName
	}
	for _, c := range []model.Class{model.ClassUnknown, model.ClassActive, model.ClassInterrupted, model.ClassTerminal} {
		for _, t := range f.Page(c, model.Query{}, 0, f.Len()) {
			out["task "+t.Key.Agent+" "+string(t.Key.ID)] = fmt.Sprintf("%s %s %q %d gone=%v stale=%v",
				t.State, t.Updated.UTC().Format(time.RFC3339Nano), t.Text, t.Class, t.Gone, t.Stale)
		}
	}
	return out
}

// hubSig is the signature of the hub's own fleet.
func (fx *fixture) hubSig() map[string]string {
	var s map[string]string
	if err := fx.h.Inspect(context.Background(), func(f *model.Fleet) { s = sig(f) }); err != nil {
		fx.t.Fatal(err)
	}
	return s
}

// waitSame waits until the dashboard's fleet equals the hub's.
func (fx *fixture) waitSame(d *dash) {
	fx.t.Helper()
	var diff string
	for range 2000 {
		var mine map[string]string
		d.read(func(f *model.Fleet) { mine = sig(f) })
		theirs := fx.hubSig()
		if diff = sigDiff(theirs, mine); diff == "" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	fx.t.Fatalf("%s's fleet never equalled the hub's: %s", d.me.Operator, diff)
}

func sigDiff(want, got map[string]string) string {
	for k, v := range want {
		if got[k] != v {
			return fmt.Sprintf("%s: hub %q, dashboard %q", k, v, got[k])
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			return fmt.Sprintf("%s: only on the dashboard (%q)", k, v)
		}
	}
	return ""
}

// waitHub waits until cond holds on the hub's fleet.
func (fx *fixture) waitHub(what string, cond func(*model.Fleet) bool) {
	fx.t.Helper()
	for range 2000 {
		ok := false
		if err := fx.h.Inspect(context.Background(), func(f *model.Fleet) { ok = cond(f) }); err != nil {
			fx.t.Fatal(err)
		}
		if ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	fx.t.Fatalf("%s: never happened on the hub", what)
}

// inboxesHold waits until every dashboard's inbox holds every task.
func inboxesHold(what string, dashes []*dash, ids ...a2a.TaskID) {
	for _, d := range dashes {
		d.t.Helper()
		for _, id := range ids {
			d.waitFor(what, func(f *model.Fleet) bool { return d.inInbox(f, id) })
		}
	}
}

// atOnce runs send(i) for every i below n, each on its own goroutine,
// all released at the same moment, and waits for them; during (nil:
// nothing) runs once they are released.
func atOnce(n int, send func(i int), during func()) {
	var start, sent sync.WaitGroup
	start.Add(1)
	for i := range n {
		sent.Add(1)
		go func() {
			defer sent.Done()
			start.Wait()
			send(i)
		}()
	}
	start.Done()
	if during != nil {
		during()
	}
	sent.Wait()
}

// sendAtOnce sends decs[i] from dashes[i], all at the same moment, and
// returns their outcomes in the same order.
func sendAtOnce(dashes []*dash, decs []*approvals.Decision) []approvals.Outcome {
	outs := make([]approvals.Outcome, len(decs))
	atOnce(len(decs), func(i int) { outs[i] = dashes[i].svc.Send(context.Background(), decs[i]) }, nil)
	return outs
}

// withFourEyes puts the fourEyes policy on the fixture's agent and the
// operators named in group release.
func withFourEyes(o *hub.Options, release ...string) {
	o.Journal.Policies = map[string]approvals.Policy{"agent": fourEyes}
	for i := range o.Operators {
		if slices.Contains(release, o.Operators[i].Name) {
			o.Operators[i].Groups = []string{"release"}
		}
	}
}

// claims reports whether the dashboard shows who's claim on the task,
// what it is doing ("answering", "approving").
func (d *dash) claims(id a2a.TaskID, who, what string) bool {
	for _, c := range d.cl.ClaimsOn("agent", id) {
		if c.Operator == who && c.What == what {
			return true
		}
	}
	return false
}

// waitUntil waits until cond holds: a thousand tries, 10 ms apart.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 1000 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: never happened", what)
}
