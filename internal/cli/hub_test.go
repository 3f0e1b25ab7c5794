package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/demo"
	"a2atop/hubclient"
	"a2atop/internal/config"
	"a2atop/model"
	"a2atop/ui"
)

// hubOperator is one operator of a test hub's config.
type hubOperator struct {
	name, roles, token string
}

// The operators of the test hubs: alice may do everything, bob may only
// answer.
var testOperators = []hubOperator{
	{"alice", `"watch", "answer", "approve", "cancel"`, "tok-alice-7d1f0e9c8b7a6d5e"},
	{"bob", `"watch", "answer"`, "tok-bob-4c3b2a1908f7e6d5"},
}

func tokenOf(name string) string {
	for _, op := range testOperators {
		if op.name == name {
			return op.token
		}
	}
	return ""
}

// writeHubConfig writes a hub's config: the agents (swept every sweep),
// the journal and log under dir, and testOperators with token files.
func writeHubConfig(t *testing.T, dir string, agents []demo.Agent, sweep time.Duration) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "journal_path = %q\nlog_path = %q\nsweep_interval = %q\n", filepath.Join(dir, "hub-journal.jsonl"),
		filepath.Join(dir, "hub.log"), sweep.String())
	for _, a := range agents {
		fmt.Fprintf(&b, "[[agent]]\nname = %q\nurl = %q\n", a.Name, a.URL)
	}
	for _, op := range testOperators {
		tf := filepath.Join(dir, op.name+".token")
		if err := os.WriteFile(tf, []byte(op.token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "[[operator]]\nname = %q\ntoken_file = %q\nroles = { \"*\" = [%s] }\n", op.name, tf, op.roles)
	}
	path := filepath.Join(dir, "hub.toml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

var hubLine = regexp.MustCompile(`hub on (https?://\S+) for`)

// startHub runs `a2atop serve` in this process and returns its URL.
func startHub(t *testing.T, cfg string, args ...string) string {
	t.Helper()
	return startHubOut(t, cfg, &syncBuffer{}, args...)
}

// startHubOut is startHub with its stdout kept. It returns once serve
// has said where it listens: the hub, and with --ssh-listen SSH too.
func startHubOut(t *testing.T, cfg string, out *syncBuffer, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--config", cfg, "--listen", "127.0.0.1:0"}, args...), Streams{Out: out, Err: &errOut})
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("serve = %d, stderr %q", code, errOut.String())
		}
	})
	ssh := slices.Contains(args, "--ssh-listen")
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := hubLine.FindStringSubmatch(out.String()); m != nil && (!ssh || sshLine.MatchString(out.String())) {
			return m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("serve ended with %d: %s", code, errOut.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("serve never said where it listens: %q %q", out.String(), errOut.String())
	return ""
}

var asciiOnce sync.Once

// attachUI runs an operator's dashboard attached to the hub at url, as
// `a2atop --hub URL` builds it, in a teatest program: its real Update
// loop, keys sent to it, frames read from it.
func attachUI(t *testing.T, url, operator string) *teatest.TestModel {
	t.Helper()
	return attachUIWith(t, url, operator, config.Default())
}

// attachUIWith is attachUI with the dashboard's own config (its keys,
// theme and views).
func attachUIWith(t *testing.T, url, operator string, cfg *config.Config) *teatest.TestModel {
	t.Helper()
	asciiOnce.Do(func() {
		lipgloss.SetColorProfile(termenv.Ascii)
		lipgloss.SetHasDarkBackground(true)
	})
	o := newOptions("", Streams{Out: io.Discard, Err: io.Discard})
	o.hub = url
	s := o.open(cfg)
	t.Cleanup(s.Close)
	ctx, cancel := context.WithCancel(context.Background())
	cl, me, code := s.attachWith(ctx, tokenOf(operator))
	if cl == nil {
		t.Fatalf("attach %s: %d", operator, code)
	}
	m, svc, err := s.hubDashboard(cl, me)
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{})
	go func() { cl.Run(ctx); close(ran) }()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 40))
	t.Cleanup(func() {
		_ = tm.Quit()
		cancel()
		<-ran
		svc.Close()
	})
	return tm
}

func key(s string) tea.KeyMsg {
	switch s {
	case "ctrl+s":
		return tea.KeyMsg{Type: tea.KeyCtrlS}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// waitScreen waits until the dashboard draws want.
func waitScreen(t *testing.T, tm *teatest.TestModel, who, want string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(want)) },
		teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}

// TestHubDashboardsShareTheInbox drives two dashboards attached to one
// hub through their Update loops: both show the question; bob answers
// it and it leaves alice's inbox; bob's approval of a deploy is refused
// in words before any confirmation opens (he may only answer; the hub
// refuses it too, see package hub) and the agent is not asked; alice's
// goes through and leaves bob's inbox.
func TestHubDashboardsShareTheInbox(t *testing.T) {
	dir := isolate(t)
	t.Setenv("NO_COLOR", "1")
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	url := startHub(t, writeHubConfig(t, dir, agents, 200*time.Millisecond))
	alice, bob := attachUI(t, url, "alice"), attachUI(t, url, "bob")
	question := waitingTask(t, agents, demo.CodeReviewer, "review the change at 9f3c2e1", a2a.TaskStateInputRequired)
	for _, tm := range []*teatest.TestModel{alice, bob} {
		tm.Send(key("2"))
		waitScreen(t, tm, "", "Inbox · 1 waiting")
	}
	bob.Send(key("r"))
	bob.Type("main")
	bob.Send(key("ctrl+s"))
	waitScreen(t, bob, "bob", "y: send")
	bob.Send(key("y"))
	waitScreen(t, bob, "bob", "reply → code-reviewer · "+model.ShortID(question)+": the agent took the message")
	waitScreen(t, alice, "alice", "Inbox · 0 waiting")

	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	for _, tm := range []*teatest.TestModel{alice, bob} {
		waitScreen(t, tm, "", "Inbox · 1 waiting")
	}
	bob.Send(key("a"))
	waitScreen(t, bob, "bob", "operator bob may not approve on agent deployer (the hub's roles): nothing is sent")
	if st := taskState(t, agents, demo.Deployer, deploy); st != a2a.TaskStateAuthRequired {
		t.Fatalf("after bob's refused approval the deploy is %s", st)
	}
	alice.Send(key("a"))
	waitScreen(t, alice, "alice", "y: send")
	alice.Send(key("y"))
	waitScreen(t, alice, "alice", "approve → deployer · "+model.ShortID(deploy)+": the agent took the message")
	waitScreen(t, bob, "bob", "Inbox · 0 waiting")
}

// taskState reads a task's state from the agent itself.
func taskState(t *testing.T, agents []demo.Agent, agent string, id a2a.TaskID) a2a.TaskState {
	t.Helper()
	m := newTestManager(agents)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	task, err := m.Get(ctx, agent, id, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	return task.Status.State
}

// newTestManager reaches the demo agents directly, not through the hub.
func newTestManager(agents []demo.Agent) *a2aclient.Manager {
	var opts []a2aclient.AgentOptions
	for _, a := range agents {
		opts = append(opts, a2aclient.AgentOptions{Name: a.Name, URL: a.URL})
	}
	return a2aclient.New(opts, a2aclient.Options{})
}

// headless is an attached dashboard without a screen, for the tests that
// compare fleets: the client, its Service, the fleet from its feed.
type headless struct {
	cl  *hubclient.Client
	svc *approvals.Service
	hf  *hubFleet
}

func attachHeadless(t *testing.T, url, operator string) *headless {
	t.Helper()
	cl, err := hubclient.New(hubclient.Options{URL: url, Token: tokenOf(operator), MinBackoff: 50 * time.Millisecond, MaxBackoff: 300 * time.Millisecond})
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
	ctx, cancel := context.WithCancel(context.Background())
	h := &headless{cl: cl, svc: svc, hf: newHubFleet(config.Default(), me)}
	go h.hf.follow(ctx, cl)
	ran := make(chan struct{})
	go func() { cl.Run(ctx); close(ran) }()
	t.Cleanup(func() { cancel(); <-ran; svc.Close() })
	return h
}

// sig is what two fleets that saw the same events agree on.
func (h *headless) sig() string {
	h.hf.mu.Lock()
	defer h.hf.mu.Unlock()
	f := h.hf.fleet
	var lines []string
	for _, a := range f.Agents() {
		lines = append(lines, fmt.Sprintf("agent %s %s", a.Name, a.Health.State))
	}
	for _, c := range []model.Class{model.ClassUnknown, model.ClassActive, model.ClassInterrupted, model.ClassTerminal} {
		for _, t := range f.Page(c, model.Query{}, 0, f.Len()) {
			lines = append(lines, fmt.Sprintf("task %s %s %s %s %q", t.Key.Agent, t.Key.ID, t.State, t.Updated.UTC().Format(time.RFC3339Nano), t.Text))
		}
	}
	return strings.Join(lines, "\n")
}

func (h *headless) task(k model.TaskKey) (a2a.TaskState, bool) {
	h.hf.mu.Lock()
	defer h.hf.mu.Unlock()
	t := h.hf.fleet.Task(k)
	if t == nil {
		return "", false
	}
	return t.State, true
}

func (h *headless) health(agent string) model.Health {
	h.hf.mu.Lock()
	defer h.hf.mu.Unlock()
	return h.hf.fleet.Agent(agent).Health.State
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: never happened", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHubDashboardTakesTheConfigsLook: a dashboard attached to a hub
// takes its own config's [[view]]s and [keys] as a local one does (its
// agents are the hub's), and refuses a clash naming the line; n and f,
// which the hub does not send, are not offered.
func TestHubDashboardTakesTheConfigsLook(t *testing.T) {
	dir := isolate(t)
	t.Setenv("NO_COLOR", "1")
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	url := startHub(t, writeHubConfig(t, dir, agents, 200*time.Millisecond))
	cfg := loadConfig(t, `
[[view]]
name = "deploys"
filter = "agent:deployer"

[keys.global]
help = "~"
views_1 = "V"

[keys.tasks]
sort_by_hint = "ctrl+h"
`)
	tm := attachUIWith(t, url, "alice", cfg)
	waitScreen(t, tm, "alice", "1 tasks")
	tm.Send(key("V"))
	waitScreen(t, tm, "alice", "[V deploys]")
	tm.Send(key("~"))
	waitScreen(t, tm, "alice", "Keys — tasks")
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	help := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*ui.Model).View()
	if !strings.Contains(help, "Keys — tasks") {
		t.Fatalf("the last frame is not the help:\n%s", help)
	}
	if strings.Contains(help, "new message") || strings.Contains(help, "follow-up") {
		t.Error("the attached dashboard offers n or f, which the hub does not send")
	}

	clash := loadConfig(t, "\n[keys.tasks]\ncancel = \"2\"\n")
	o := newOptions("", Streams{Out: io.Discard, Err: io.Discard})
	o.hub = url
	s := o.open(clash)
	t.Cleanup(s.Close)
	cl, me, code := s.attachWith(context.Background(), tokenOf("alice"))
	if cl == nil {
		t.Fatalf("attach: %d", code)
	}
	if _, _, err := s.hubDashboard(cl, me); err == nil || !strings.Contains(err.Error(), `:3: keys.tasks.cancel: "2" is also global.inbox`) {
		t.Fatalf("a clash in the attached dashboard's [keys]: %v", err)
	}
}

// A fleet built from a hub's feed keeps as many terminal tasks per agent
// as the hub does, whatever the dashboard's own config says (it would
// drop what the hub shows), and holds content as the dashboard's config
// says (that is its own memory).
func TestAttachedFleetKeepsWhatTheHubKeeps(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	path := writeHubConfig(t, dir, agents, 200*time.Millisecond)
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append([]byte("terminal_per_agent = 7\n"), body...), 0o600); err != nil {
		t.Fatal(err)
	}
	url := startHub(t, path)
	cl, err := hubclient.New(hubclient.Options{URL: url, Token: tokenOf("alice")})
	if err != nil {
		t.Fatal(err)
	}
	me, err := cl.Me(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	local := config.Default()
	local.TerminalPerAgent, local.MaxAgentBytes = 2, 12345
	if o := hubFleetOptions(local, me); o.MaxTerminalPerAgent != 7 || o.MaxAgentBytes != 12345 {
		t.Errorf("the attached fleet keeps %d terminal tasks per agent and %d bytes; want the hub's 7 and the config's 12345",
			o.MaxTerminalPerAgent, o.MaxAgentBytes)
	}
}
