package inbox

import (
	"a2atop/ui/internal/uitest"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/theme"
)

func TestMain(m *testing.M) {
	// The screens read the same in every zone: set once, before any test
	// starts a goroutine (a test that set it raced the servers of others).
	time.Local = time.UTC
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// t0 is the fixed clock's start.
var t0 = time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)

// clock is a settable clock for the fixed-time tests.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// fakeSender records what the UI sent through the service. The approvals
// package tests the same path against real SDK servers; here the UI's
// messages and commands are under test: Update is driven directly with
// messages, and only the I/O behind the service is faked.
type fakeSender struct {
	mu    sync.Mutex
	tasks map[a2a.TaskID]*a2a.Task
	sent  []*a2a.Message
	fail  error // when set, Reply records the message and returns it
}

func (f *fakeSender) Reply(_ context.Context, _ string, msg *a2a.Message) (*a2a.Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, msg)
	if f.fail != nil {
		return nil, f.fail
	}
	if msg.TaskID == "" { // a new task (a follow-up)
		n := &a2a.Task{ID: a2a.TaskID(fmt.Sprintf("new-%d", len(f.sent))), ContextID: msg.ContextID, Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
		f.tasks[n.ID] = n
		return n, nil
	}
	t := f.tasks[msg.TaskID]
	if t == nil {
		return nil, fmt.Errorf("no task %s", msg.TaskID)
	}
	c := *t
	c.Status = a2a.TaskStatus{State: a2a.TaskStateWorking}
	c.History = append(append([]*a2a.Message(nil), t.History...), msg)
	f.tasks[msg.TaskID] = &c
	return &c, nil
}

func (f *fakeSender) Get(_ context.Context, _ string, id a2a.TaskID, _ int, _ bool) (*a2a.Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t := f.tasks[id]; t != nil {
		c := *t
		return &c, nil
	}
	return nil, fmt.Errorf("%w: %s", a2a.ErrTaskNotFound, id)
}

// Task ids of the fixture.
const (
	idPlan   a2a.TaskID = "5b1e0c7a-plan-4000-8000-000000000001"
	idDeploy a2a.TaskID = "23cf3710-depl-4000-8000-000000000002"
	idReview a2a.TaskID = "7d2a9e44-revw-4000-8000-000000000003"
	idOther  a2a.TaskID = "c0ffee00-depl-4000-8000-000000000004"
	idEnded  a2a.TaskID = "e2d2d000-revw-4000-8000-000000000005"
)

func snap(id a2a.TaskID, state a2a.TaskState, ago time.Duration, parts []*a2a.Part, refs ...a2a.TaskID) *a2a.Task {
	at := t0.Add(-ago)
	m := a2a.NewMessage(a2a.MessageRoleAgent, parts...)
	m.ID = "status-" + string(id[:8])
	m.ReferenceTasks = refs
	return &a2a.Task{ID: id, ContextID: "ctx-" + string(id[:8]), Status: a2a.TaskStatus{State: state, Message: m, Timestamp: &at}}
}

// fixture is a fleet with a planner -> deployer chain, a code-review
// question with a data part and a file, and a second deploy; a service
// journaling to a temp dir with deterministic messageIds.
type fixture struct {
	fleet *model.Fleet
	snd   *fakeSender
	svc   *approvals.Service
	clk   *clock
	ctx   common.Context
	out   *common.Outbox // what the views asked the root for
}

func newFixture(t *testing.T, readOnly bool) *fixture {
	t.Helper()
	tasks := map[string][]*a2a.Task{
		"planner":       {snap(idPlan, a2a.TaskStateAuthRequired, 6*time.Minute, []*a2a.Part{a2a.NewTextPart("waiting for the staging deploy to be approved")}, idDeploy)},
		"deployer":      {snap(idDeploy, a2a.TaskStateAuthRequired, 5*time.Minute, []*a2a.Part{a2a.NewTextPart("approve deploy of 9f3c2e1 to staging?")})},
		"code-reviewer": {snap(idReview, a2a.TaskStateInputRequired, 2*time.Minute, []*a2a.Part{a2a.NewTextPart("Which branch should I compare against?"), a2a.NewDataPart(map[string]any{"choices": []any{"main", "release/1.4"}}), {Content: a2a.URL("https://ci.example/diff.patch"), Filename: "diff.patch", MediaType: "text/x-diff"}})},
	}
	tasks["deployer"] = append(tasks["deployer"], snap(idOther, a2a.TaskStateAuthRequired, time.Minute, []*a2a.Part{a2a.NewTextPart("approve deploy of deadbee to staging?")}))
	f := model.NewFleet(model.Options{})
	snd := &fakeSender{tasks: map[a2a.TaskID]*a2a.Task{}}
	var batch []model.Event
	for _, agent := range []string{"planner", "deployer", "code-reviewer"} {
		f.AddAgent(agent, "http://127.0.0.1/"+agent)
		for _, tk := range tasks[agent] {
			batch = append(batch, model.Event{Kind: model.EventTask, Agent: agent, Source: model.SourceSweep, At: *tk.Status.Timestamp, Task: tk})
			c := *tk
			snd.tasks[tk.ID] = &c
		}
	}
	f.Apply(batch)
	clk := &clock{now: t0}
	n := 0
	svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"), Sender: snd,
		Approver: "ops@host", Now: clk.Now, QuietPeriod: 500 * time.Millisecond, ReadOnly: readOnly,
		NewID: func() string { n++; return fmt.Sprintf("msg-%04d", n) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	out := &common.Outbox{}
	ctx := common.Context{Fleet: f, Theme: theme.New(theme.Options{Mode: theme.ModeDark}), ReadOnly: readOnly, Now: clk.Now, Out: out}
	return &fixture{fleet: f, snd: snd, svc: svc, clk: clk, ctx: ctx, out: out}
}

// said is every notice the views sent the root since the last call, one
// a line (the root shows them in the footer).
func (fx *fixture) said() string {
	var out []string
	for _, msg := range fx.out.Take() {
		if s, ok := msg.(common.StatusMsg); ok {
			out = append(out, s.Text)
		}
	}
	return strings.Join(out, "\n")
}

// typeText sends each rune as a key.
func typeText(c common.Component, s string) common.Component {
	for _, r := range s {
		if r == ' ' {
			c, _ = c.Update(uitest.Key("space"))
			continue
		}
		c, _ = c.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	return c
}

func approvalsInput(kind, reason string) approvals.Input {
	return approvals.Input{Kind: approvals.Kind(kind), Reason: reason}
}
