package demo

import (
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
)

// statesOn lists the states of every task on a 1.0 agent.
func statesOn(t *testing.T, c *a2aclient.Client) map[a2a.TaskState]int {
	t.Helper()
	out := map[a2a.TaskState]int{}
	req := &a2a.ListTasksRequest{PageSize: 100}
	for {
		res, err := c.ListTasks(testCtx(t), req)
		if err != nil {
			t.Fatalf("ListTasks: %v", err)
		}
		for _, task := range res.Tasks {
			out[task.Status.State]++
		}
		if res.NextPageToken == "" {
			return out
		}
		req.PageToken = res.NextPageToken
	}
}

func TestPlannerClientShowsEveryStateAndCapsTheInbox(t *testing.T) {
	f := startFleet(t, Options{Pace: 25 * time.Millisecond})
	v1 := []string{TestRunner, CodeReviewer, Deployer, Planner}
	clients := map[string]*a2aclient.Client{}
	for _, name := range v1 {
		clients[name] = sdkClient(t, f, name)
	}
	want := []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired,
		a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected}
	seen := map[a2a.TaskState]bool{}
	deadline := time.Now().Add(15 * time.Second)
	for {
		for _, name := range v1 {
			for s := range statesOn(t, clients[name]) {
				seen[s] = true
			}
		}
		missing := []a2a.TaskState{}
		for _, s := range want {
			if !seen[s] {
				missing = append(missing, s)
			}
		}
		if len(missing) == 0 && f.driver.handedOut(LegacyIntake) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("states never seen: %v (legacy-intake tasks: %d)", missing, f.driver.handedOut(LegacyIntake))
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Many rounds later, the waiting tasks are still capped.
	time.Sleep(2 * time.Second)
	caps := map[string]int{CodeReviewer: 3, Planner: 2, Deployer: 4}
	for name, limit := range caps {
		st := statesOn(t, clients[name])
		if n := st[a2a.TaskStateInputRequired] + st[a2a.TaskStateAuthRequired]; n > limit {
			t.Errorf("%s has %d interrupted tasks, want at most %d", name, n, limit)
		}
	}
	if n := f.driver.handedOut(TestRunner); n < 10 {
		t.Errorf("test-runner got %d tasks, want a steady stream", n)
	}
}

func TestPlannerClientRidesOutAnOutage(t *testing.T) {
	f := startFleet(t, Options{Pace: 25 * time.Millisecond})
	if err := f.StopAgent(TestRunner); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	before := f.driver.handedOut(TestRunner)
	if err := f.StartAgent(TestRunner); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for f.driver.handedOut(TestRunner) <= before {
		if time.Now().After(deadline) {
			t.Fatal("the planner client never gave the restarted test-runner work")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
