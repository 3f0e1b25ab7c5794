package ui

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"a2atop/model"
	"a2atop/ui/internal/uitest"
	"a2atop/ui/theme"
)

// testNow is the fixed clock of every test.
var testNow = time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// hostileText is a status message that tries to write the clipboard and
// clear the screen.
const hostileText = "evil \x1b]52;c;ZWNobyBwd25lZA==\x07 then \x1b[2J cleared \u202eesrever\u202c done"

// Task ids of the fixture.
const (
	idPassed   a2a.TaskID = "9f3c2e1a-0000-4000-8000-000000000001"
	idRunning  a2a.TaskID = "5b1d7c20-0000-4000-8000-000000000002"
	idFailed   a2a.TaskID = "deadbee0-0000-4000-8000-000000000003"
	idQuestion a2a.TaskID = "c0de4e71-0000-4000-8000-000000000004"
	idDeploy   a2a.TaskID = "23cf3710-0000-4000-8000-000000000005"
	idRejected a2a.TaskID = "7e7ec7ed-0000-4000-8000-000000000006"
	idPlanner  a2a.TaskID = "91a4e2b0-0000-4000-8000-000000000007"
	idEmail    a2a.TaskID = "e3a11000-0000-4000-8000-000000000008"
	idQueued   a2a.TaskID = "0a0b0c0d-0000-4000-8000-000000000009"
	idPaused   a2a.TaskID = "9a05ed00-0000-4000-8000-00000000000a"
	idHostile  a2a.TaskID = "bad0bad0-0000-4000-8000-00000000000b"
)

var fixtureAgents = []struct{ name, url, binding, version string }{
	{"test-runner", "http://127.0.0.1:7001", "JSONRPC", "1.0"},
	{"code-reviewer", "http://127.0.0.1:7002", "HTTP+JSON", "1.0"},
	{"deployer", "http://127.0.0.1:7003", "JSONRPC", "1.0"},
	{"planner", "http://127.0.0.1:7004", "JSONRPC", "1.0"},
	{"legacy-intake", "http://127.0.0.1:7005", "JSONRPC", "0.3"},
}

// taskEvent is a snapshot event for the fixture.
func taskEvent(agent string, id a2a.TaskID, state a2a.TaskState, ago time.Duration, text string, refs ...a2a.TaskID) model.Event {
	return uitest.TaskEvent(testNow, agent, id, state, ago, text, refs...)
}

// fixtureEvents is a fleet in every interesting state.
func fixtureEvents() []model.Event {
	var evs []model.Event
	for i, a := range fixtureAgents {
		evs = append(evs, model.Event{Kind: model.EventAgent, Agent: a.name, At: testNow, Info: &model.AgentInfo{
			CardName: "Demo " + a.name, Description: "The " + a.name + " of the demo kit.", URL: a.url,
			InterfaceURL: a.url + "/", ProtocolVersion: a.version, Binding: a.binding, Streaming: i != 4, Push: i == 2,
		}})
	}
	up := func(h model.Health) *model.HealthUpdate {
		return &model.HealthUpdate{State: h, Listing: true, LastSuccess: testNow.Add(-2 * time.Second), Streams: 1}
	}
	evs = append(evs,
		model.Event{Kind: model.EventHealth, Agent: "test-runner", At: testNow, Health: up(model.HealthStreaming)},
		model.Event{Kind: model.EventHealth, Agent: "code-reviewer", At: testNow, Health: up(model.HealthSweeping)},
		model.Event{Kind: model.EventHealth, Agent: "deployer", At: testNow, Health: up(model.HealthStreaming)},
		model.Event{Kind: model.EventHealth, Agent: "planner", At: testNow, Health: up(model.HealthStreaming)},
	)
	passed := taskEvent("test-runner", idPassed, a2a.TaskStateCompleted, 5*time.Minute, "suite finished at 9f3c2e1")
	passed.Task.Artifacts = []*a2a.Artifact{
		{ID: "summary", Name: "summary.json", Parts: a2a.ContentParts{a2a.NewDataPart(map[string]any{"passed": 11.0, "failed": 1.0})}},
		{ID: "report", Name: "report.html", Description: "the full report",
			Parts: a2a.ContentParts{{Content: a2a.URL("https://ci.example/report/9f3c2e1.html"), Filename: "report.html", MediaType: "text/html"}}},
	}
	evs = append(evs,
		passed,
		taskEvent("test-runner", idRunning, a2a.TaskStateWorking, 30*time.Second, "running full suite (312/1200)"),
		taskEvent("test-runner", idFailed, a2a.TaskStateFailed, 2*time.Hour, "commit deadbee does not exist"),
		taskEvent("code-reviewer", idQuestion, a2a.TaskStateInputRequired, 3*time.Minute, "Which branch should I compare against?"),
		taskEvent("deployer", idDeploy, a2a.TaskStateAuthRequired, 4*time.Minute, "approve deploy of 9f3c2e1 to staging?"),
		taskEvent("deployer", idRejected, a2a.TaskStateRejected, 10*time.Minute,
			"Production deploys are outside this agent's policy. Use the release train."),
		taskEvent("planner", idPlanner, a2a.TaskStateAuthRequired, 4*time.Minute, "waiting for the staging deploy", idDeploy),
		taskEvent("legacy-intake", idEmail, "input-required", 20*time.Minute, "What email address should we use?"),
		taskEvent("test-runner", idQueued, a2a.TaskStateSubmitted, 2*time.Second, "queued"),
		taskEvent("code-reviewer", idPaused, "TASK_STATE_PAUSED", 90*time.Second, "paused by operator"),
		taskEvent("code-reviewer", idHostile, a2a.TaskStateWorking, time.Minute, hostileText),
		model.Event{Kind: model.EventHealth, Agent: "legacy-intake", At: testNow, Health: &model.HealthUpdate{
			State: model.HealthUnreachable, Err: "dial tcp 127.0.0.1:7005: connection refused — is the agent running?",
			LastSuccess: testNow.Add(-3 * time.Minute), NextRetry: testNow.Add(8 * time.Second),
			ListingNote: "no task listing (A2A 0.3)"}},
	)
	return evs
}

// fixtureFleet is a fleet with the fixture applied.
func fixtureFleet() *model.Fleet {
	f := model.NewFleet(model.Options{})
	for _, a := range fixtureAgents {
		f.AddAgent(a.name, a.url)
	}
	f.Apply(fixtureEvents())
	return f
}

// fakeBackend answers like an agent would, from memory, and records calls.
type fakeBackend struct {
	mu        sync.Mutex
	tasks     map[model.TaskKey]*a2a.Task
	gets      []model.TaskKey
	cancels   []model.TaskKey
	cancelErr error
	captures  map[string][]model.Exchange
}

func newFakeBackend(f *model.Fleet) *fakeBackend {
	b := &fakeBackend{tasks: map[model.TaskKey]*a2a.Task{}, captures: map[string][]model.Exchange{}}
	for _, a := range f.Agents() {
		for _, c := range []model.Class{model.ClassActive, model.ClassInterrupted, model.ClassTerminal, model.ClassUnknown} {
			for _, t := range f.Page(c, model.Query{}, 0, 1000) {
				if t.Key.Agent == a.Name {
					cp := *t.Snapshot
					cp.History = []*a2a.Message{
						{ID: "m-user", Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart("please run the suite")}},
						{ID: "m-agent", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart("on it")}},
					}
					b.tasks[t.Key] = &cp
				}
			}
		}
	}
	b.captures["test-runner"] = []model.Exchange{{
		At: testNow.Add(-3 * time.Second), Method: "POST", URL: "http://127.0.0.1:7001/", RPC: "ListTasks", Status: 200,
		Request:  `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`,
		Response: "{\"jsonrpc\":\"2.0\",\"id\":1,\n\"result\":{\"tasks\":[]}}", Duration: 12 * time.Millisecond,
	}}
	return b
}

func (b *fakeBackend) Get(_ context.Context, agent string, id a2a.TaskID, _ int, _ bool) (*a2a.Task, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := model.TaskKey{Agent: agent, ID: id}
	b.gets = append(b.gets, k)
	if t, ok := b.tasks[k]; ok {
		cp := *t
		return &cp, nil
	}
	return nil, errors.New("task not found: " + a2a.ErrTaskNotFound.Error())
}

func (b *fakeBackend) Cancel(_ context.Context, agent string, id a2a.TaskID) (*a2a.Task, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := model.TaskKey{Agent: agent, ID: id}
	b.cancels = append(b.cancels, k)
	t, ok := b.tasks[k]
	if !ok {
		return nil, errors.New("task not found")
	}
	cp := *t
	if b.cancelErr != nil {
		return &cp, b.cancelErr
	}
	ts := testNow
	cp.Status = a2a.TaskStatus{State: a2a.TaskStateCanceled, Timestamp: &ts}
	b.tasks[k] = &cp
	return &cp, nil
}

func (b *fakeBackend) Capture(agent string) []model.Exchange {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.captures[agent]
}

// clock is a settable clock: a test moves it to let a confirmation arm.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: testNow} }

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// newTestModel is the dashboard on the fixture, with a fixed clock
// unless o.Now is set.
func newTestModel(t testing.TB, o Options) (*Model, *fakeBackend) {
	t.Helper()
	if o.Fleet == nil {
		o.Fleet = fixtureFleet()
	}
	b := newFakeBackend(o.Fleet)
	if o.Backend == nil {
		o.Backend = b
	}
	if o.Now == nil {
		o.Now = func() time.Time { return testNow }
	}
	if o.Output == nil {
		o.Output = io.Discard
	}
	if o.Theme == nil {
		o.Theme = theme.New(theme.Options{Mode: theme.ModeDark})
	}
	return New(o), b
}
