package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/demo"
)

// An agent given by its card's URL, as a browser shows it, is reached as
// if the base URL had been given: check finds it, and reply finds the
// agent by the same URL.
func TestCardURLAsBaseURL(t *testing.T) {
	isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	ctx := context.Background()
	card := agents[0].URL + "/.well-known/agent-card.json"
	code, out, errOut := runCmd(ctx, "check", "--timeout", "10s", card)
	if code != exitOK || !strings.Contains(out, "1 of 1 agents reachable") {
		t.Fatalf("check %s = %d\n%s%s", card, code, out, errOut)
	}
	if strings.Contains(out, "agent-card.json/.well-known") {
		t.Errorf("check fetched the card below the card's own URL:\n%s", out)
	}

	var deployer string
	for _, a := range agents {
		if a.Name == demo.Deployer {
			deployer = a.URL
		}
	}
	id := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	code, out, errOut = runCmd(ctx, "reply", deployer+"/.well-known/agent-card.json", string(id), "--approve")
	if code != exitOK || !strings.Contains(out, "the agent took the message") {
		t.Errorf("reply by card URL = %d\n%s%s", code, out, errOut)
	}
}
