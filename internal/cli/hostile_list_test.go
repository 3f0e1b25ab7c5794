package cli

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"a2atop/demo"
	"a2atop/internal/agenttest"
)

// `tasks --json` next to agents whose ListTasks never ends (new 1 MiB
// page tokens; new 8 KiB ones; pages of 20,000 new open tasks) ends on its own, with the
// bound each of them passed as the error of its row, the demo agents
// listed untouched, and the heap bounded all along: before the bounds the
// first took the command to 2 GB in 45 s.
func TestTasksJSONEndlessListings(t *testing.T) {
	skipUnderRace(t, "a heap bound against endless listings")
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true})
	id := startTask(t, agents[0].URL)
	tokens, small, open := agenttest.StartLister(t, agenttest.ListTokens), agenttest.StartLister(t, agenttest.ListSmall), agenttest.StartLister(t, agenttest.ListOpen)
	cfg := writeConfig(t, dir, append(agents, demo.Agent{Name: "tokens", URL: tokens.URL},
		demo.Agent{Name: "small", URL: small.URL}, demo.Agent{Name: "open", URL: open.URL}))
	// The page bound lower than its default, so that the test is short.
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append([]byte("max_sweep_pages = 300\n"), b...), 0o600); err != nil {
		t.Fatal(err)
	}

	runtime.GC()
	s := agenttest.SampleHeap()
	start := time.Now()
	code, out, errOut := runCmd(context.Background(), "tasks", "--json", "--timeout", "60s", "--config", cfg)
	heap := s.Stop()
	t.Logf("tasks --json: %s; %d, %d and %d pages served; peak heap in use %d MiB",
		time.Since(start).Round(time.Millisecond), tokens.Pages(), small.Pages(), open.Pages(), heap>>20)
	if code != exitFailed || !strings.Contains(errOut, "did not answer") {
		t.Errorf("tasks = %d, stderr %q; want %d and the agents that did not answer", code, errOut, exitFailed)
	}
	var doc struct {
		Agents []struct{ Name, Health, Error string }
		Tasks  []struct{ Agent, ID string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	for _, a := range doc.Agents {
		switch a.Name {
		case "tokens", "small", "open":
			if a.Error == "" {
				t.Errorf("%s: no error on its row: %+v", a.Name, a)
			}
			t.Logf("%s: %s", a.Name, a.Error)
		default:
			if a.Error != "" {
				t.Errorf("demo agent %s: %q", a.Name, a.Error)
			}
		}
	}
	found := false
	for _, tk := range doc.Tasks {
		found = found || tk.Agent == demo.TestRunner && tk.ID == string(id)
	}
	if !found {
		t.Errorf("the demo agent's task %s is not listed", id)
	}
	if heap > 400<<20 {
		t.Errorf("peak heap %d MiB, past 400 MiB", heap>>20)
	}
}
