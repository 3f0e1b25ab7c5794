package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/demo"
)

// TestJournalCheck: one byte of a decision line changes on disk. `reply`
// then refuses every decision on that agent, naming the file and the
// line; `journal check` lists the line with what can still be read from
// it and exits 1; `--accept` resolves it by appending an acknowledgement
// (the lines before stay as they were), after which check exits 0 and
// reply answers again. A torn decision line is listed with its outcome unknown until GetTask settles it.
func TestJournalCheck(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	cfg := writeConfig(t, dir, agents)
	journal := filepath.Join(dir, "state", "a2atop", "journal.jsonl")
	ctx := context.Background()
	check := func(args ...string) (int, string) {
		t.Helper()
		code, out, errOut := runCmd(ctx, append([]string{"journal", "check", "--config", cfg}, args...)...)
		t.Logf("journal check %v: %d\n%s%s", args, code, out, errOut)
		if strings.ContainsAny(out+errOut, "\x1b\x07\u009b") {
			t.Errorf("journal check printed control characters: %q", out+errOut)
		}
		return code, out + errOut
	}

	first := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	if code, out, errOut := runCmd(ctx, "reply", "--config", cfg, demo.Deployer, string(first), "--approve"); code != exitOK {
		t.Fatalf("reply: %d\n%s%s", code, out, errOut)
	}
	if code, out := check(); code != exitOK || !strings.Contains(out, "every line reads back") {
		t.Fatalf("check of a sound journal: %d %s", code, out)
	}

	b, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(`"kind":"approve"`))
	b[i+9] = 'b' // "approve" -> "bpprove": still JSON, no longer the record written
	if err := os.WriteFile(journal, b, 0o600); err != nil {
		t.Fatal(err)
	}
	next := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	code, out, errOut := runCmd(ctx, "reply", "--config", cfg, demo.Deployer, string(next), "--approve")
	if code != exitFailed || !strings.Contains(out+errOut, journal+" line 1 is damaged") {
		t.Fatalf("reply with a damaged decision on the agent: %d\n%s%s", code, out, errOut)
	}
	code, out = check()
	for _, want := range []string{"1 line(s) block decisions", "line 1: damaged: its checksum does not match",
		"agent deployer", "task " + string(first), "blocks: new decisions on deployer", "--accept LINE"} {
		if code != exitFailed || !strings.Contains(out, want) {
			t.Fatalf("check of the damaged journal: %d, no %q in\n%s", code, want, out)
		}
	}
	if code, out := check("--accept", "1", "--note", "the approve of "+string(first)+", sent once"); code != exitOK || !strings.Contains(out, "line 1 accepted (sha256:") {
		t.Fatalf("accept: %d %s", code, out)
	}
	after, _ := os.ReadFile(journal)
	if !bytes.HasPrefix(after, b) {
		t.Fatal("accepting rewrote the journal")
	}
	if code, out := check(); code != exitOK || !strings.Contains(out, "accepted by ") {
		t.Fatalf("check after accepting: %d %s", code, out)
	}
	if code, out, errOut := runCmd(ctx, "reply", "--config", cfg, demo.Deployer, string(next), "--approve"); code != exitOK {
		t.Fatalf("reply after accepting: %d\n%s%s", code, out, errOut)
	}

	// A decision whose write never finished, and a line of agent text.
	line := after[:bytes.IndexByte(after, '\n')]
	torn := append([]byte("{\"v\":2,\"type\":\"outcome\",\"agent\":\"\x1b]0;pwned\x07\",\"task\":\n"), line[:len(line)/2]...)
	f, _ := os.OpenFile(journal, os.O_WRONLY|os.O_APPEND, 0)
	f.Write(torn)
	f.Close()
	code, out = check()
	if code != exitFailed || !strings.Contains(out, "torn decision: whether it reached the agent is unknown until GetTask settles it") || !strings.Contains(out, "until a2atop reconciles it") {
		t.Fatalf("check of a torn decision: %d %s", code, out)
	}
	if code, out := check("--accept", "2"); code != exitFailed || !strings.Contains(out, "not damaged") {
		t.Fatalf("accepting a sound line: %d %s", code, out)
	}
	if code, out, errOut := runCmd(ctx, "journal", "--config", cfg, "chekc"); code != exitUsage || !strings.Contains(out+errOut, "a2atop journal check") {
		t.Fatalf("journal with an unknown word: %d %s%s", code, out, errOut)
	}
}
