package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/demo"
)

// TestReplyVotes: `a2atop reply --approve` under an approval policy
// votes as the inbox does, through the journal the processes share:
// alice's vote is 1 of 2 and sends nothing (exit 0, said so); her second
// vote is refused in words (exit 1); bob's completes it and the approval
// sent names both. The rule matches the demo deployer's prompt's data
// part ({"environment": "staging"}); a reply around the vote is refused.
func TestReplyVotes(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	alice, bob := twoApprovers(t, dir, agents, "")
	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	ctx := context.Background()
	tests := []struct {
		name, config string
		args         []string
		code         int
		want         []string
	}{
		{"no reason", alice, []string{"--approve"}, exitUsage, []string{"approvals must say why"}},
		{"a reply around the vote", alice, []string{"--text", "yes"}, exitFailed, []string{"approve or deny it; a reply would go around the vote"}},
		{"first vote", alice, []string{"--approve", "--reason", "rollout window ok"}, exitOK,
			[]string{"approve → deployer · " + string(deploy) + ": your vote is 1 of 2: nothing is sent yet", "votes: 1 of 2 (alice); nothing was sent"}},
		{"the same person again", alice, []string{"--approve", "--reason", "me again"}, exitFailed,
			[]string{"you voted on this prompt already: a person's vote counts once (you approved at "}},
		{"second vote", bob, []string{"--approve", "--reason", "diff checked"}, exitOK,
			[]string{"the agent took the message", "votes: 2 of 2; the approval sent names alice, bob"}},
	}
	for _, tt := range tests {
		args := append([]string{"reply", "--config", tt.config, demo.Deployer, string(deploy)}, tt.args...)
		code, out, errOut := runCmd(ctx, args...)
		t.Logf("%s: %d\n%s%s", tt.name, code, out, errOut)
		for _, w := range tt.want {
			if code != tt.code || !strings.Contains(out+errOut, w) {
				t.Errorf("%s: a2atop %v = %d\n%s%s\nwant %d and %q", tt.name, args, code, out, errOut, tt.code, w)
			}
		}
	}
	// The export carries the votes the approval counted.
	code, out, errOut := runCmd(ctx, "journal", "--config", bob, "--format", "jsonl")
	if code != exitOK || !strings.Contains(out, `"votes":[{"name":"alice","at":"`) || !strings.Contains(out, `"reason":"rollout window ok"},{"name":"bob"`) {
		t.Errorf("journal --format jsonl = %d\n%s%s", code, out, errOut)
	}
}

// TestDemoFourEyesNeedsTheHub: --four-eyes without --hub is a usage
// error that says why.
func TestDemoFourEyesNeedsTheHub(t *testing.T) {
	isolate(t)
	code, out, errOut := runCmd(context.Background(), "demo", "--four-eyes")
	if code != exitUsage || !strings.Contains(out+errOut, "--four-eyes needs --hub") {
		t.Errorf("demo --four-eyes = %d\n%s%s", code, out, errOut)
	}
}
