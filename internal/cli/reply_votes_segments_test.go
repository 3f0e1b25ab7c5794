package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/demo"
)

// TestReplyVotesAcrossARotation: as a user meets the three together.
// journal_segment = "64KiB" and a journal of about 70 KiB: alice's
// `reply --approve` (1 of 2) closes the segment; bob's, a new process
// that reads the new segment alone, still counts her vote, completes
// the approval and sends it naming both. The export reads both segments
// and carries the votes and the journal lines; `journal verify` walks
// both segments clean (the chain starts after the older lines written
// before it); `journal check` reads both.
func TestReplyVotesAcrossARotation(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	alice, bob := twoApprovers(t, dir, agents, "journal_segment = \"64KiB\"\n")
	journal := filepath.Join(dir, "state", "a2atop", "journal.jsonl")
	padJournal(t, journal, 70)
	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	ctx := context.Background()
	reply := func(cfg string, want ...string) {
		t.Helper()
		args := []string{"reply", "--config", cfg, demo.Deployer, string(deploy), "--approve", "--reason", filepath.Base(cfg)}
		code, out, errOut := runCmd(ctx, args...)
		for _, w := range want {
			if code != exitOK || !strings.Contains(out+errOut, w) {
				t.Fatalf("a2atop %v = %d\n%s%s\nwant %q", args, code, out, errOut, w)
			}
		}
	}
	reply(alice, "your vote is 1 of 2: nothing is sent yet")
	if _, err := os.Stat(journal + ".000001"); err != nil {
		t.Fatalf("alice's vote did not close the segment: %v", err)
	}
	reply(bob, "the agent took the message", "votes: 2 of 2; the approval sent names alice, bob")

	code, out, errOut := runCmd(ctx, "journal", "--config", bob, "--format", "jsonl")
	if code != exitOK || strings.Count(out, `"task":"`+string(deploy)+`"`) != 1 ||
		!strings.Contains(out, `"votes":[{"name":"alice","at":"`) || !strings.Contains(out, `"reason":"alice.toml"},{"name":"bob"`) ||
		!strings.Contains(out, `"journal_lines":[{"line":`) || strings.Count(out, "\n") < 71 {
		t.Fatalf("journal --format jsonl = %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCmd(ctx, "journal", "verify", "--config", bob)
	if code != exitOK || !strings.Contains(out, "walked 2 segments in order, journal.jsonl.000001 to journal.jsonl") ||
		!strings.Contains(out, "70 record(s) before line 71 were written before the chain") || !strings.Contains(out, "chain verified: ") {
		t.Fatalf("journal verify = %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCmd(ctx, "journal", "check", "--config", bob)
	if code != exitOK || !strings.Contains(out, "read 2 segments, journal.jsonl.000001 to journal.jsonl") {
		t.Fatalf("journal check = %d\n%s%s", code, out, errOut)
	}
}
