package ui

import (
	"context"
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"net"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/hubclient"
	"a2atop/model"
	"a2atop/ui/inbox"
	"a2atop/ui/internal/uitest"
)

// The team tests run a real hub (package hub, served by net/http on
// loopback) over the fixture's agent names, and attach dashboards to it
// with the real client (hubclient, the r3labs SSE client underneath).
// The screens show the fixture fleet: what the tests look at is what
// the hub adds, the operator, the feed's state, the roles and the claims.

// teamTokens are the hub's operators: alice may do everything, bob may
// only answer (and only watch the deployer), carol may do everything,
// dave may only watch.
var teamTokens = map[string]string{
	"dave":  "tok-dave-7a6b5c4d3e2f1a0b",
	"alice": "tok-alice-5e4d3c2b1a09f8e7",
	"bob":   "tok-bob-0f1e2d3c4b5a6978",
	"carol": "tok-carol-89abcdef01234567",
}

var teamRoles = map[string]map[string][]hub.Role{
	"alice": {hub.AllAgents: {hub.RoleWatch, hub.RoleAnswer, hub.RoleApprove, hub.RoleCancel}},
	"bob":   {hub.AllAgents: {hub.RoleWatch, hub.RoleAnswer}, "deployer": {hub.RoleWatch}},
	"carol": {hub.AllAgents: {hub.RoleWatch, hub.RoleAnswer, hub.RoleApprove, hub.RoleCancel}},
	"dave":  {hub.AllAgents: {hub.RoleWatch}},
}

// teamHub is a real hub over loopback HTTP whose clock is the test's:
// its claims last two minutes of that clock.
type teamHub struct {
	t       *testing.T
	h       *hub.Hub
	clk     *clock
	addr    string
	journal string
	shared  approvals.SharedLog // the team's record the hub keeps its journal in; nil: the file journal
	end     func()              // stops the hub's Run and closes it

	mu  sync.Mutex
	srv *httptest.Server
}

func newTeamHub(t *testing.T, clk *clock) *teamHub {
	t.Helper()
	return newTeamHubOn(t, clk, nil)
}

// newTeamHubOn is newTeamHub keeping its journal in the team's record
// shared (nil: a journal file).
func newTeamHubOn(t *testing.T, clk *clock, shared approvals.SharedLog) *teamHub {
	t.Helper()
	th := &teamHub{t: t, clk: clk, journal: filepath.Join(t.TempDir(), "journal.jsonl"), shared: shared}
	th.open()
	th.srv = httptest.NewServer(th.h.Handler())
	th.addr = th.srv.Listener.Addr().String()
	t.Cleanup(func() {
		th.stop()
		th.end()
	})
	return th
}

// open opens a hub over the fixture's agent names and runs it; after
// stop, end and open, restart serves it: a hub restarted, which has
// forgotten every claim.
func (th *teamHub) open() {
	th.t.Helper()
	mgr := a2aclient.New(nil, a2aclient.Options{})
	var agents []hub.Agent
	for _, a := range fixtureAgents {
		agents = append(agents, hub.Agent{Name: a.name, URL: a.url})
	}
	var ops []hub.Operator
	for name, tok := range teamTokens {
		ops = append(ops, hub.Operator{Name: name, TokenHash: hub.HashToken(tok), Roles: teamRoles[name]})
	}
	h, err := hub.Open(hub.Options{Watchers: fixtureWatchers{mgr, make(chan model.Event, 64)}, Agents: agents, Operators: ops, Now: th.clk.Now,
		Journal:   approvals.Options{JournalPath: th.journal, Shared: th.shared, Sender: mgr, Now: th.clk.Now},
		Heartbeat: time.Second, StallTimeout: 5 * time.Second})
	if err != nil {
		th.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { _ = h.Run(ctx); close(ran) }()
	th.h = h
	want := fixtureFleet().Len()
	eventually(th.t, "the hub holds the fixture fleet", func() bool { // as its watchers report it
		n := 0
		_ = h.Inspect(ctx, func(f *model.Fleet) { n = f.Len() })
		return n == want
	})
	th.end = sync.OnceFunc(func() {
		cancel()
		<-ran
		_ = h.Close()
	})
}

// fixtureWatchers are the hub's watchers of the fixture fleet: the hub
// holds the tasks the screens show (a claim is only on a task the hub's
// fleet holds), and its sends go through the Manager.
type fixtureWatchers struct {
	*a2aclient.Manager
	evs chan model.Event
}

// Run reports the fixture fleet, then waits for ctx.
func (w fixtureWatchers) Run(ctx context.Context) {
	for _, ev := range fixtureEvents() {
		select {
		case w.evs <- ev:
		case <-ctx.Done():
			return
		}
	}
	<-ctx.Done()
}

// Events are what Run reports.
func (w fixtureWatchers) Events() <-chan model.Event { return w.evs }

// url is the hub's base URL.
func (th *teamHub) url() string { return "http://" + th.addr }

// stop closes the hub's listener and every connection: to its
// dashboards the hub is gone.
func (th *teamHub) stop() {
	th.mu.Lock()
	defer th.mu.Unlock()
	if th.srv != nil {
		th.srv.CloseClientConnections()
		th.srv.Close()
		th.srv = nil
	}
}

// restart serves the hub again on the same address.
func (th *teamHub) restart() {
	th.t.Helper()
	th.mu.Lock()
	defer th.mu.Unlock()
	ln, err := net.Listen("tcp", th.addr)
	if err != nil {
		th.t.Fatal(err)
	}
	th.srv = httptest.NewUnstartedServer(th.h.Handler())
	th.srv.Listener.Close()
	th.srv.Listener = ln
	th.srv.Start()
}

// operator is a client of the hub as the operator name, asked who it is
// and running its feed until the test ends.
func (th *teamHub) operator(name string) *hubclient.Client {
	th.t.Helper()
	cl, err := hubclient.New(hubclient.Options{URL: th.url(), Token: teamTokens[name], MinBackoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	if err != nil {
		th.t.Fatal(err)
	}
	if _, err := cl.Me(context.Background()); err != nil {
		th.t.Fatal(err)
	}
	return cl
}

// run runs cl's feed until the test ends, and waits for its snapshot.
// The client's health events (every agent unreachable while the hub is,
// then as the hub says) reach out when it is not nil; the rest is the
// hub's fleet, which the dashboards of these tests do not show.
func (th *teamHub) run(cl *hubclient.Client, out chan<- model.Event) {
	th.t.Helper()
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
				if out != nil && ev.Kind == model.EventHealth && ev.Health.State == model.HealthUnreachable {
					select {
					case out <- ev:
					case <-ctx.Done():
						return
					}
				}
			}
		}
	}()
	th.t.Cleanup(func() { cancel(); wg.Wait() })
	select {
	case <-cl.Synced():
	case <-time.After(10 * time.Second):
		th.t.Fatal("the hub's snapshot never came")
	}
}

// dashboard is the dashboard of operator name attached to the hub, as
// a2atop --hub builds it, on the fixture fleet: the inbox and the
// journal over the hub's journal, the hub as its Team.
func (th *teamHub) dashboard(name string) (*Model, *hubclient.Client) {
	th.t.Helper()
	return th.dashboardWith(name, Options{})
}

// dashboardWith is dashboard with o's other options (ReadOnly, as
// a2atop --hub sets it for an operator the hub lets only watch).
func (th *teamHub) dashboardWith(name string, o Options) (*Model, *hubclient.Client) {
	th.t.Helper()
	cl := th.operator(name)
	svc, err := cl.OpenService(approvals.Options{Now: th.clk.Now})
	if err != nil {
		th.t.Fatal(err)
	}
	th.t.Cleanup(func() { svc.Close() })
	evs := make(chan model.Event, 64)
	th.run(cl, evs)
	views := inbox.Options{Sort: model.SortAge}
	o.Team, o.Approvals, o.Events, o.Now = cl, svc, evs, th.clk.Now
	o.Inbox, o.Journal = inbox.InboxFactory(svc, views), inbox.JournalFactory(svc, views)
	m, _ := newTestModel(th.t, o)
	return m, cl
}

// eventually waits until ok, or fails with what.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// claimed waits until cl has heard of want on the task ("" for none).
func claimed(t *testing.T, cl *hubclient.Client, k model.TaskKey, want string) {
	t.Helper()
	eventually(t, "the claims on "+string(k.ID)+" are "+want, func() bool { return cl.ClaimWords(k.Agent, k.ID) == want })
}

// selectRow moves the inbox's cursor to the row of task id.
func selectRow(t *testing.T, m *Model, id a2a.TaskID) {
	t.Helper()
	for range 20 {
		press(m, "k")
	}
	for range 20 {
		if l := selectedLine(m.View()); strings.Contains(l, model.ShortID(id)+" auth-required") || strings.Contains(l, model.ShortID(id)+" input-required") {
			return
		}
		press(m, "j")
	}
	t.Fatalf("no row of %s in\n%s", id, m.View())
}

// selectedLine is the line of the frame with the row cursor.
func selectedLine(frame string) string {
	for _, l := range strings.Split(frame, "\n") {
		if strings.HasPrefix(l, "▸ ") {
			return l
		}
	}
	return ""
}

// TestTheHeaderNamesTheHubAndTheOperator: an attached dashboard says in
// its header which hub it shows and as whom; a local one says nothing of
// a hub.
func TestTheHeaderNamesTheHubAndTheOperator(t *testing.T) {
	th := newTeamHub(t, newClock())
	m, _ := th.dashboard("bob")
	head := strings.SplitN(sized(m, 160, 40).View(), "\n", 2)[0]
	if !strings.Contains(head, "hub "+th.addr+" · operator bob") {
		t.Errorf("header %q does not name the hub and the operator", head)
	}
	local, _ := newTestModel(t, Options{})
	if head := strings.SplitN(sized(local, 160, 40).View(), "\n", 2)[0]; strings.Contains(head, "hub") {
		t.Errorf("a local dashboard's header speaks of a hub: %q", head)
	}
}

// TestKeysFollowTheOperatorsRoles: bob may answer, but neither approve
// nor cancel, and only watch the deployer. His inbox offers r on the
// code-reviewer's question and nothing on the deployer's authorization,
// his help lists no approve, deny or cancel, and a key pressed anyway
// says why before anything opens; alice gets them all.
func TestKeysFollowTheOperatorsRoles(t *testing.T) {
	th := newTeamHub(t, newClock())
	bob, _ := th.dashboard("bob")
	sized(bob, 160, 40)
	press(bob, "2")
	selectRow(t, bob, idQuestion)
	if f := footerOf(bob); !strings.Contains(f, "r reply") {
		t.Errorf("bob's footer on a question offers no reply: %q", f)
	}
	selectRow(t, bob, idDeploy)
	if f := footerOf(bob); strings.Contains(f, "approve") || strings.Contains(f, "deny") || strings.Contains(f, "r reply") {
		t.Errorf("bob's footer on the deployer's authorization offers what he may not do: %q", f)
	}
	if v := bob.View(); strings.Contains(v, "a: approve") {
		t.Errorf("bob's inbox hints approve:\n%s", v)
	}
	for _, k := range []string{"a", "d", "r"} {
		press(bob, k)
		if inboxMode(bob) {
			t.Fatalf("%s opened a dialog for bob on the deployer", k)
		}
		if f := footerOf(bob); !strings.Contains(f, "operator bob may not approve on agent deployer") {
			t.Errorf("%s on the deployer: footer %q, want the refusal in words", k, f)
		}
	}
	press(bob, "?")
	help := bob.View()
	help = help[:strings.LastIndexByte(help, '\n')] // the footer still says why a was refused
	if !strings.Contains(help, "reply") {
		t.Errorf("bob's help lists no reply:\n%s", help)
	}
	for _, no := range []string{"approve", "deny"} {
		if strings.Contains(help, no) {
			t.Errorf("bob's help lists %s:\n%s", no, help)
		}
	}
	press(bob, "esc", "1")
	if f := footerOf(bob); strings.Contains(f, "cancel") {
		t.Errorf("bob's tasks footer offers cancel: %q", f)
	}
	press(bob, "c")
	if confirming(bob) || !strings.Contains(footerOf(bob), "operator bob may not cancel") {
		t.Errorf("c for bob: confirming %v, footer %q", confirming(bob), footerOf(bob))
	}
	press(bob, "?")
	if help := bob.View(); strings.Contains(help[:strings.LastIndexByte(help, '\n')], "cancel") || !strings.Contains(help, "reply") {
		t.Errorf("bob's help of the tasks view lists cancel, or no reply:\n%s", help)
	}
	press(bob, "esc")

	alice, _ := th.dashboard("alice")
	sized(alice, 160, 40)
	press(alice, "2")
	selectRow(t, alice, idDeploy)
	if f := footerOf(alice); !strings.Contains(f, "a approve") || !strings.Contains(f, "d deny") {
		t.Errorf("alice's footer on the deployer: %q", f)
	}
}

// inboxMode reports whether the inbox has a dialog open.
func inboxMode(m *Model) bool {
	c, ok := m.screens[viewInbox].(interface{ Capturing() bool })
	return ok && c.Capturing()
}

// TestAnOpenDialogClaimsItsTask: alice's confirmation on the deployer's
// authorization takes a claim the others see ("alice is approving"),
// renewed while it stays open past the hub's two minutes (of the
// shared clock), and released when it closes; her reply editor claims
// "answering". Carol's claim shows on alice's row, under the question
// and in her confirmation, and her confirmation still sends: a claim
// informs, it does not block.
func TestAnOpenDialogClaimsItsTask(t *testing.T) {
	clk := newClock()
	th := newTeamHub(t, clk)
	alice, _ := th.dashboard("alice")
	sized(alice, 160, 40)
	carol := th.operator("carol")
	th.run(carol, nil)
	deploy, question := model.TaskKey{Agent: "deployer", ID: idDeploy}, model.TaskKey{Agent: "code-reviewer", ID: idQuestion}

	press(alice, "2")
	selectRow(t, alice, idDeploy)
	press(alice, "a")
	claimed(t, carol, deploy, "alice is approving")
	for range 3 { // 3 minutes: past the hub's idle expiry, renewed each minute
		clk.add(time.Minute)
		tickNow(alice)
	}
	time.Sleep(1500 * time.Millisecond) // the hub ends idle claims once a second: let it look
	if w := carol.ClaimWords(deploy.Agent, deploy.ID); w != "alice is approving" {
		t.Errorf("after 3 minutes open the claim is %q: not renewed", w)
	}
	press(alice, "n")
	claimed(t, carol, deploy, "")

	selectRow(t, alice, idQuestion)
	press(alice, "r")
	claimed(t, carol, question, "alice is answering")
	press(alice, "esc")
	claimed(t, carol, question, "")

	if err := carol.Claim(context.Background(), deploy.Agent, deploy.ID, "approving"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "alice hears of carol's claim", func() bool { return alice.ctx.Team.ClaimWords(deploy.Agent, deploy.ID) != "" })
	tickNow(alice)
	selectRow(t, alice, idDeploy)
	v := alice.View()
	if !strings.Contains(selectedLine(v), "[carol is approving]") {
		t.Errorf("alice's row of the deployer does not say carol is approving:\n%s", v)
	}
	if !strings.Contains(v, "carol is approving — a claim informs, it does not block") {
		t.Errorf("alice's question of the deployer does not say carol is approving:\n%s", v)
	}
	press(alice, "a")
	if v := alice.View(); !strings.Contains(v, "carol is approving (a claim informs; y still sends)") {
		t.Errorf("alice's confirmation does not say carol is approving:\n%s", v)
	}
	press(alice, "n", "enter")
	if v := alice.View(); alice.view != viewDetail || !strings.Contains(v, "carol is approving (a claim informs, it does not block)") {
		t.Errorf("the deployer's detail does not say carol is approving:\n%s", v)
	}
	if err := carol.Release(context.Background(), deploy.Agent, deploy.ID); err != nil {
		t.Fatal(err)
	}
	claimed(t, alice.ctx.Team.(*hubclient.Client), deploy, "")
	tickNow(alice)
	if v := alice.View(); strings.Contains(v, "carol is approving") {
		t.Errorf("the detail still says carol is approving after she released it:\n%s", v)
	}
}

// TestAnUnreachableHubIsSaidAndWritesAreRefused: the hub goes away; the
// dashboard says so at the top (since when, why), keeps the last picture
// with its agents stale, refuses a reply and a cancel in words, and says
// when the hub is back; the banner goes.
func TestAnUnreachableHubIsSaidAndWritesAreRefused(t *testing.T) {
	th := newTeamHub(t, newClock())
	m, cl := th.dashboard("alice")
	sized(m, 160, 40)
	th.stop()
	eventually(t, "the client sees the hub go", func() bool { up, why := cl.Connected(); return !up && why != "" })
	// The client says the hub went before it sends the events that mark
	// its agents unreachable: wait for both.
	stale := func() bool {
		a, t := m.ctx.Fleet.Agent("deployer"), m.ctx.Fleet.Task(model.TaskKey{Agent: "deployer", ID: idDeploy})
		return a != nil && a.Health.State == model.HealthUnreachable && t != nil && t.Stale
	}
	eventually(t, "the dashboard draws the banner and marks the agents", func() bool {
		applyOnce(m)
		tickNow(m)
		return strings.Contains(m.View(), "hub "+th.url()+" unreachable since") && stale()
	})
	lines := strings.Split(m.View(), "\n")
	if !strings.Contains(lines[1], "the last picture, stale; nothing is sent until it is back") {
		t.Errorf("line 2 is not the banner: %q", lines[1])
	}
	if !strings.Contains(lines[0], "○ hub") {
		t.Errorf("the header does not mark the hub down: %q", lines[0])
	}
	if a := m.ctx.Fleet.Agent("deployer"); a.Health.State != model.HealthUnreachable || !m.ctx.Fleet.Task(model.TaskKey{Agent: "deployer", ID: idDeploy}).Stale {
		t.Errorf("the deployer is %s, its task not stale", a.Health.State)
	}
	press(m, "2")
	selectRow(t, m, idQuestion)
	press(m, "r")
	if inboxMode(m) || !strings.Contains(footerOf(m), "not sent: the hub at "+th.url()+" is unreachable") {
		t.Errorf("r with the hub down: dialog %v, footer %q", inboxMode(m), footerOf(m))
	}
	press(m, "1", "c")
	if confirming(m) || !strings.Contains(footerOf(m), "is unreachable") {
		t.Errorf("c with the hub down: confirming %v, footer %q", confirming(m), footerOf(m))
	}

	th.restart()
	eventually(t, "the client is back", func() bool { up, _ := cl.Connected(); return up })
	tickNow(m)
	v := m.View()
	if strings.Contains(v, "unreachable since") {
		t.Errorf("the banner stayed after the hub came back:\n%s", v)
	}
	if f := footerOf(m); !strings.Contains(f, "the hub at "+th.url()+" is back after") {
		t.Errorf("nothing says the hub is back: %q", f)
	}
}

// applyOnce applies the batch of events waiting, if any, and not what
// comes after it: a client that cannot reach its hub says so on every
// attempt, so settling would never end.
func applyOnce(m *Model) {
	for _, msg := range uitest.Run(m.waitEvents(0)) {
		m.Update(msg)
	}
}

// TestGoldenAttached: the attached dashboard at every size: the header
// naming the hub and the operator (bob's tasks), the others' claims on
// the inbox's rows and under the question (alice's inbox while bob
// answers the code-reviewer and carol approves the deploy), and the
// banner of an unreachable hub over the last picture (alice's tasks).
// The hub's port, which the system picks, is drawn as 17717.
func TestGoldenAttached(t *testing.T) {
	for _, sc := range []struct {
		name, operator string
		keys           []string
		wait           string
		setup          func(t *testing.T, th *teamHub)
		down           bool
	}{
		{name: "header", operator: "bob", wait: "Terminal 3"},
		{name: "claims", operator: "alice", keys: []string{"2", "k", "k", "k", "j", "j"}, wait: "carol is approving —", setup: func(t *testing.T, th *teamHub) {
			for _, c := range []struct {
				who, agent, what string
				id               a2a.TaskID
			}{{"bob", "code-reviewer", "answering", idQuestion}, {"carol", "deployer", "approving", idDeploy}} {
				cl := th.operator(c.who)
				th.run(cl, nil) // a claim needs the feed up
				if err := cl.Claim(context.Background(), c.agent, c.id, c.what); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{name: "banner", operator: "alice", wait: "unreachable since", down: true},
	} {
		for _, sz := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				th := newTeamHub(t, newClock())
				if sc.setup != nil {
					sc.setup(t, th)
				}
				m, cl := th.dashboard(sc.operator)
				if sc.setup != nil {
					eventually(t, "the claims reach the dashboard", func() bool {
						return cl.ClaimWords("deployer", idDeploy) != "" && cl.ClaimWords("code-reviewer", idQuestion) != ""
					})
				}
				if sc.down {
					th.stop()
					eventually(t, "the client sees the hub go", func() bool {
						up, why := cl.Connected()
						return !up && strings.Contains(why, "connection refused")
					})
				}
				tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(sz[0], sz[1]))
				for _, k := range sc.keys {
					tm.Send(uitest.Key(k))
				}
				out := uitest.Frame(t, tm, sc.wait, sz[0], sz[1], true)
				_, port, _ := net.SplitHostPort(th.addr)
				if len(port) != 5 {
					t.Skipf("the hub's port %s is not 5 digits: the frame cannot be drawn as the golden's", port)
				}
				golden.RequireEqual(t, []byte(strings.ReplaceAll(out, th.addr, "127.0.0.1:17717")))
			})
		}
	}
}

// TestAClaimIsTakenAgainWhenTheHubIsBack: a hub restarted has forgotten
// the claims; the dashboard whose editor is still open claims its task
// again as soon as the feed is back, not a minute later.
func TestAClaimIsTakenAgainWhenTheHubIsBack(t *testing.T) {
	th := newTeamHub(t, newClock())
	alice, cl := th.dashboard("alice")
	sized(alice, 160, 40)
	carol := th.operator("carol")
	th.run(carol, nil)
	question := model.TaskKey{Agent: "code-reviewer", ID: idQuestion}
	press(alice, "2")
	selectRow(t, alice, idQuestion)
	press(alice, "r")
	claimed(t, carol, question, "alice is answering")

	th.stop()
	eventually(t, "alice's client sees the hub go", func() bool { up, why := cl.Connected(); return !up && why != "" })
	tickNow(alice) // the clock ticks every second while the hub is away
	th.end()
	th.open()
	th.restart()
	eventually(t, "alice's client is back", func() bool { up, _ := cl.Connected(); return up })
	claimed(t, carol, question, "") // the new hub's snapshot holds no claim
	tickNow(alice)
	claimed(t, carol, question, "alice is answering")
}

// TestActionsOnManyFollowTheOperatorsRoles: bob may answer but neither
// approve nor cancel. With every task marked, his tasks footer offers
// no approve, deny or cancel; pressed anyway, an approval for all of
// them in the inbox and a cancel of all of them name his roles and
// open nothing.
func TestActionsOnManyFollowTheOperatorsRoles(t *testing.T) {
	th := newTeamHub(t, newClock())
	bob, _ := th.dashboard("bob")
	sized(bob, 160, 40)
	press(bob, "tab", "*")
	if f := footerOf(bob); !strings.Contains(f, "marked") || strings.Contains(f, "approve") || strings.Contains(f, "deny") ||
		strings.Contains(f, "cancel") || !strings.Contains(f, "r reply") {
		t.Errorf("bob's footer with every waiting task marked: %q", f)
	}
	press(bob, "c")
	if confirming(bob) || !strings.Contains(footerOf(bob), "can be canceled") {
		t.Errorf("c on bob's marked tasks: confirming %v, footer %q", confirming(bob), footerOf(bob))
	}
	press(bob, "a")
	if inboxMode(bob) || !strings.Contains(footerOf(bob), "none of the 4 marked tasks takes this approve") {
		t.Errorf("a on bob's marked tasks: a dialog %v, footer %q", inboxMode(bob), footerOf(bob))
	}
	// The deployer's authorizations alone: the refusal names his roles.
	press(bob, "1", "esc", "/", "d", "e", "p", "l", "o", "y", "enter", "*", "a")
	if inboxMode(bob) || !strings.Contains(footerOf(bob), "operator bob may not approve on agent deployer") {
		t.Errorf("a on bob's marked deploys: a dialog %v, footer %q", inboxMode(bob), footerOf(bob))
	}
}

// TestAWatchOnlyOperatorsCommandsNameTheHubsRoles: dave, whom the hub
// lets only watch, types the : commands that write. Each says the hub's
// roles are why, never a --read-only he did not pass (it did).
func TestAWatchOnlyOperatorsCommandsNameTheHubsRoles(t *testing.T) {
	th := newTeamHub(t, newClock())
	dave, _ := th.dashboardWith("dave", Options{ReadOnly: true})
	sized(dave, 120, 40)
	want := "operator dave may only watch on the hub at " + th.url()
	for _, line := range []string{"reply c0de4e71", "cancel 5b1d7c20", "follow-up 9f3c2e1a", "new deployer", "new"} {
		runLine(dave, line)
		if got := dave.status.text; !strings.Contains(got, want) || strings.Contains(got, "--read-only") {
			t.Errorf(":%s says %q, want %q", line, got, want)
		}
	}
}

// TestAHubOutageIsSaidOnceNotAsEveryAgentDown: when only the hub is
// unreachable, the header says so once ("hub unreachable"), not that
// every agent is down, and each row keeps its task's last status,
// marked stale, rather than "stale: agent unreachable" in its place.
func TestAHubOutageIsSaidOnceNotAsEveryAgentDown(t *testing.T) {
	th := newTeamHub(t, newClock())
	m, cl := th.dashboard("alice")
	sized(m, 120, 40)
	th.stop()
	eventually(t, "the client sees the hub go", func() bool { up, why := cl.Connected(); return !up && why != "" })
	eventually(t, "the dashboard marks the deploy stale", func() bool {
		applyOnce(m)
		tickNow(m)
		tk := m.ctx.Fleet.Task(model.TaskKey{Agent: "deployer", ID: idDeploy})
		return tk != nil && tk.Stale && strings.Contains(m.View(), "unreachable since")
	})
	v := ansi.Strip(m.View())
	header := strings.Split(v, "\n")[0]
	if !strings.Contains(header, "hub unreachable") || strings.Contains(header, "down") {
		t.Errorf("the header of a hub outage: %q, want \"hub unreachable\" and no agents down", header)
	}
	if strings.Contains(v, "agent unreachable") {
		t.Errorf("the rows blame the agents for the hub's outage:\n%s", v)
	}
	tk := m.ctx.Fleet.Task(model.TaskKey{Agent: "deployer", ID: idDeploy})
	row := ""
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, model.ShortID(idDeploy)) {
			row = l
		}
	}
	if !strings.Contains(row, "stale") || !strings.Contains(row, tk.Text[:min(len(tk.Text), 20)]) {
		t.Errorf("the deploy's row %q does not keep its last status %q marked stale", row, tk.Text)
	}
}
