package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/demo"
)

// startTask sends the test-runner a message that starts a task, through
// a2aclient as the dashboard would, and returns the task's id.
func startTask(t *testing.T, url string) a2a.TaskID {
	t.Helper()
	m := a2aclient.New([]a2aclient.AgentOptions{{Name: demo.TestRunner, URL: url}}, a2aclient.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	task, err := m.Reply(ctx, demo.TestRunner, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("run the unit suite at 9f3c2e1")))
	if err != nil || task == nil {
		t.Fatalf("starting a task: %v, %v", task, err)
	}
	return task.ID
}

func TestTasksJSON(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true})
	id := startTask(t, agents[0].URL)

	code, out, errOut := runCmd(context.Background(), "tasks", "--json", "--config", writeConfig(t, dir, agents))
	if code != exitOK {
		t.Fatalf("tasks = %d, stderr %q", code, errOut)
	}
	var doc struct {
		Agents []struct {
			Name, Health string
			Listing      bool
			Card         *struct{ ProtocolVersion string }
		}
		Tasks []struct {
			Agent, ID, State, Class string
			Task                    *a2a.Task
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(doc.Agents) != 5 {
		t.Fatalf("agents = %+v", doc.Agents)
	}
	for _, a := range doc.Agents {
		if a.Card == nil || a.Health == "connecting" {
			t.Errorf("agent %s did not answer: %+v", a.Name, a)
		}
	}
	found := false
	for _, tk := range doc.Tasks {
		if tk.Agent == demo.TestRunner && tk.ID == string(id) {
			found = true
			if tk.Task == nil || tk.Task.ID != id || tk.State == "" || tk.Class == "unknown" {
				t.Errorf("task row = %+v", tk)
			}
		}
	}
	if !found {
		t.Errorf("task %s not in output:\n%s", id, out)
	}
}

func TestTasksJSONUnreachable(t *testing.T) {
	isolate(t)
	code, out, errOut := runCmd(context.Background(), "tasks", "--json", "--timeout", "10s", "http://127.0.0.1:1")
	if code != exitFailed || !strings.Contains(errOut, "did not answer") {
		t.Fatalf("tasks = %d, stderr %q", code, errOut)
	}
	var doc struct{ Agents []struct{ Error string } }
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Agents) != 1 ||
		!strings.Contains(doc.Agents[0].Error, "unreachable") {
		t.Errorf("output %s (%v)", out, err)
	}
}

func TestWatchJSONL(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true})
	id := startTask(t, agents[0].URL)
	cfg := writeConfig(t, dir, agents[:1])

	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"watch", "--jsonl", "--config", cfg}, Streams{Out: &out, Err: &errOut})
	}()
	deadline := time.After(20 * time.Second)
	for !strings.Contains(out.String(), string(id)) {
		select {
		case <-deadline:
			cancel()
			t.Fatalf("task %s never reported: %q %q", id, out.String(), errOut.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("watch = %d, stderr %q", code, errOut.String())
	}
	kinds := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct{ Agent, Kind string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		if ev.Agent != demo.TestRunner {
			t.Errorf("event for %q", ev.Agent)
		}
		kinds[ev.Kind] = true
	}
	for _, k := range []string{"health", "agent"} {
		if !kinds[k] {
			t.Errorf("no %q event in %v", k, kinds)
		}
	}
}
