package cli

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/demo"
)

// TestLocalDecisionsRefusedOnASharedRecord: with [hub.store] (or an
// embedded cluster) in its config, the team's record is in NATS, not in
// this machine's journal file: a local `a2atop reply` would decide on a
// record no hub reads (a second decision nobody refuses). It is refused
// in words, naming the config line, and nothing is sent.
func TestLocalDecisionsRefusedOnASharedRecord(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	cfg := writeConfig(t, dir, agents)
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[hub.store]\nnats = [\"nats://127.0.0.1:1\"]\n")
	f.Close()
	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	for _, args := range [][]string{
		{"reply", "--config", cfg, demo.Deployer, string(deploy), "--approve"},
		{"journal", "--config", cfg},
	} {
		code, out, errOut := runCmd(context.Background(), args...)
		if code != exitUsage || !strings.Contains(errOut, "hub.store") || !strings.Contains(errOut, "the team's record is in NATS JetStream") {
			t.Errorf("a2atop %v = %d\n%s%s\nwant %d, refused naming [hub.store]", args, code, out, errOut, exitUsage)
		}
	}
	m := a2aclient.New([]a2aclient.AgentOptions{{Name: demo.Deployer, URL: agentURL(t, agents, demo.Deployer)}}, a2aclient.Options{})
	task, err := m.Get(context.Background(), demo.Deployer, deploy, 0, false)
	if err != nil || task.Status.State != a2a.TaskStateAuthRequired {
		t.Fatalf("the deploy is %v (%v), want it still waiting: nothing sent", task, err)
	}
}
