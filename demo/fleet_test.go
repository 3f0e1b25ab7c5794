package demo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
)

// fast are timings for tests: the same scripts, in milliseconds.
var fast = Timings{
	Step:           20 * time.Millisecond,
	LogEvery:       40 * time.Millisecond,
	LogChunks:      250, // 10 s: far longer than the cancel test needs
	OutOfBand:      300 * time.Millisecond,
	ApprovalExpiry: 30 * time.Second,
	CancelAfter:    150 * time.Millisecond,
	Poll:           20 * time.Millisecond,
}

// startFleet runs a fleet for one test, without the planner client unless
// o says otherwise.
func startFleet(t *testing.T, o Options) *Fleet {
	t.Helper()
	if o.Timings == (Timings{}) {
		o.Timings = fast
	}
	f, err := Start(context.Background(), o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return f
}

func agentURL(t *testing.T, f *Fleet, name string) string {
	t.Helper()
	for _, a := range f.Agents() {
		if a.Name == name {
			return a.URL
		}
	}
	t.Fatalf("no agent %q in %v", name, f.Agents())
	return ""
}

// sdkClient is the SDK's own client for one agent, built from its card.
func sdkClient(t *testing.T, f *Fleet, name string) *a2aclient.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := dial(ctx, agentURL(t, f, name))
	if err != nil {
		t.Fatalf("dial %s: %v", name, err)
	}
	return c
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// send starts a task; immediate asks the server to return at once.
func send(t *testing.T, c *a2aclient.Client, text string, immediate bool) *a2a.Task {
	t.Helper()
	res, err := c.SendMessage(testCtx(t), &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)),
		Config:  &a2a.SendMessageConfig{ReturnImmediately: immediate},
	})
	if err != nil {
		t.Fatalf("SendMessage %q: %v", text, err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("SendMessage %q: got %T, want a task", text, res)
	}
	return task
}

// reply sends parts on an existing task.
func reply(ctx context.Context, c *a2aclient.Client, task *a2a.Task, immediate bool, parts ...*a2a.Part) (*a2a.Message, a2a.SendMessageResult, error) {
	msg := a2a.NewMessageForTask(a2a.MessageRoleUser, task, parts...)
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg, Config: &a2a.SendMessageConfig{ReturnImmediately: immediate}})
	return msg, res, err
}

// waitState polls GetTask until the task is in one of states.
func waitState(t *testing.T, c *a2aclient.Client, id a2a.TaskID, states ...a2a.TaskState) *a2a.Task {
	t.Helper()
	ctx := testCtx(t)
	var last *a2a.Task
	for {
		task, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		if err == nil {
			last = task
			for _, s := range states {
				if task.Status.State == s {
					return task
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("task %s never reached %v; last %+v (err %v)", id, states, last, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func statusText(task *a2a.Task) string { return textOf(task.Status.Message) }

func TestAgentsListsFiveAgentsOnLoopback(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	want := []string{TestRunner, CodeReviewer, Deployer, Planner, LegacyIntake}
	got := f.Agents()
	if len(got) != len(want) {
		t.Fatalf("Agents() = %v, want %v", got, want)
	}
	for i, a := range got {
		if a.Name != want[i] || !strings.HasPrefix(a.URL, "http://127.0.0.1:") {
			t.Errorf("agent %d = %+v, want %s on http://127.0.0.1:PORT", i, a, want[i])
		}
		res, err := http.Get(a.URL + "/.well-known/agent-card.json")
		if err != nil {
			t.Fatalf("card of %s: %v", a.Name, err)
		}
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("card of %s: HTTP %d", a.Name, res.StatusCode)
		}
	}
}

func TestListTasksWorksForAnonymousCaller(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	c := sdkClient(t, f, TestRunner) // no credentials at all
	task := send(t, c, "run the unit tests at a41c7d0", true)
	res, err := c.ListTasks(testCtx(t), &a2a.ListTasksRequest{})
	if err != nil {
		t.Fatalf("ListTasks as an anonymous caller: %v", err)
	}
	if len(res.Tasks) != 1 || res.Tasks[0].ID != task.ID {
		t.Fatalf("ListTasks = %d tasks, want the one task %s", len(res.Tasks), task.ID)
	}
}

func TestStopAndStartAgentKeepTheURLAndTheTasks(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	before := agentURL(t, f, Deployer)
	c := sdkClient(t, f, Deployer)
	task := send(t, c, "deploy 9f3c2e1 to production", false)

	if err := f.StopAgent(Deployer); err != nil {
		t.Fatalf("StopAgent: %v", err)
	}
	if _, err := c.GetTask(testCtx(t), &a2a.GetTaskRequest{ID: task.ID}); err == nil {
		t.Fatal("GetTask on a stopped agent succeeded; want a connection error")
	}
	if err := f.StartAgent(Deployer); err != nil {
		t.Fatalf("StartAgent: %v", err)
	}
	if after := agentURL(t, f, Deployer); after != before {
		t.Fatalf("URL changed across stop/start: %s -> %s", before, after)
	}
	got, err := c.GetTask(testCtx(t), &a2a.GetTaskRequest{ID: task.ID})
	if err != nil {
		t.Fatalf("GetTask after StartAgent: %v", err)
	}
	if got.Status.State != a2a.TaskStateRejected {
		t.Fatalf("task after restart is %s, want REJECTED", got.Status.State)
	}
	if err := f.StartAgent(Deployer); err != nil {
		t.Fatalf("StartAgent on a running agent: %v", err)
	}
	if err := f.StopAgent("nope"); err == nil {
		t.Fatal("StopAgent(nope) succeeded; want an error naming the agents")
	}
}

func TestCloseIsIdempotentAndRefusesRestart(t *testing.T) {
	f, err := Start(context.Background(), Options{NoPlanner: true, Timings: fast})
	if err != nil {
		t.Fatal(err)
	}
	c := sdkClient(t, f, Deployer)
	send(t, c, "deploy 9f3c2e1 to staging", false)
	if err := f.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := f.StartAgent(Deployer); err == nil {
		t.Fatal("StartAgent after Close succeeded; want an error")
	}
	if _, err := c.ListTasks(testCtx(t), &a2a.ListTasksRequest{}); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ListTasks after Close: err %v, want a connection error", err)
	}
}

func TestBasePortFixesTheURLsAcrossRestarts(t *testing.T) {
	var first []Agent
	var base int
	// A free block of five ports: ask the OS for one and try from there.
	for try := 0; try < 20 && first == nil; try++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		base = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if base > 65535-4 {
			continue
		}
		f, err := Start(context.Background(), Options{NoPlanner: true, BasePort: base})
		if err != nil {
			continue // someone holds a port of the block
		}
		first = f.Agents()
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if first == nil {
		t.Fatal("found no free block of five loopback ports")
	}
	for i, a := range first {
		if want := fmt.Sprintf("http://127.0.0.1:%d", base+i); a.URL != want {
			t.Errorf("agent %s at %s, want %s", a.Name, a.URL, want)
		}
	}
	f, err := Start(context.Background(), Options{NoPlanner: true, BasePort: base})
	if err != nil {
		t.Fatalf("second start on the same ports: %v", err)
	}
	defer f.Close()
	for i, a := range f.Agents() {
		if a != first[i] {
			t.Errorf("after a restart agent %d is %+v, was %+v", i, a, first[i])
		}
	}
	if _, err := Start(context.Background(), Options{NoPlanner: true, BasePort: 65534}); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("base port 65534: err %v, want out of range", err)
	}
}
