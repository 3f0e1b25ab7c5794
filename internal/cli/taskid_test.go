package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/demo"
	"a2atop/model"
)

// commonPrefix is the longest common prefix of a and b.
func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

// shortStart is the shortest start of a's short id that b's id and
// short id do not start with.
func shortStart(a, b a2a.TaskID) string {
	short := model.ShortID(a)
	for n := 1; n < len(short); n++ {
		if p := short[:n]; !strings.HasPrefix(string(b), p) && !strings.HasPrefix(model.ShortID(b), p) {
			return p
		}
	}
	return short
}

// reply takes the short id the screens show and any unique start of a
// task id; a start that several tasks share is a usage error naming
// them; an agent that cannot list tasks (A2A 0.3) needs the full id.
func TestReplyByShortIDOrPrefix(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	cfg := writeConfig(t, dir, agents)
	ctx := context.Background()
	first := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	second := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	legacy := waitingTask(t, agents, demo.LegacyIntake, "sign me up", a2a.TaskStateInputRequired)

	reply := func(args ...string) (int, string, string) {
		code, out, errOut := runCmd(ctx, append([]string{"reply", "--config", cfg}, args...)...)
		t.Logf("reply %v: %d\n%s%s", args, code, out, errOut)
		return code, out, errOut
	}
	// Two tasks created together share the start of their UUIDv7 ids.
	shared := commonPrefix(string(first), string(second))
	code, _, errOut := reply(demo.Deployer, shared, "--approve")
	want := "ambiguous: 2 tasks match " + shared + ": "
	for _, id := range []a2a.TaskID{first, second} {
		if code != exitUsage || !strings.Contains(errOut, want) || !strings.Contains(errOut, model.ShortID(id)+" ("+string(id)+")") {
			t.Errorf("shared start: %d %q; want %d and %q listing %s by its short id", code, errOut, exitUsage, want, id)
		}
	}
	// The short id the screens show (the random end of a UUIDv7).
	short := model.ShortID(first)
	if strings.HasPrefix(string(first), short) {
		t.Fatalf("demo task id %s is not shown by its end; the test assumes UUIDv7 ids", first)
	}
	// A start of it, as a person reads it off a row, is enough.
	start := shortStart(first, second)
	code, out, _ := reply(demo.Deployer, start, "--approve")
	if code != exitOK || !strings.Contains(out, "approve → deployer · "+string(first)+": the agent took the message") {
		t.Errorf("start %s of the short id %s: %d %q", start, short, code, out)
	}
	// A start that only one task has.
	unique := string(second)[:len(shared)+1]
	code, out, _ = reply(demo.Deployer[:3], unique, "--deny", "--reason", "not today") // a start of the agent's name too
	if code != exitOK || !strings.Contains(out, "deny → deployer · "+string(second)) {
		t.Errorf("unique start %s: %d %q", unique, code, out)
	}
	// Nothing starts with it.
	code, _, errOut = reply(demo.Deployer, "zzzz", "--approve")
	if code != exitFailed || !strings.Contains(errOut, "task not found: no task has this id, and none of the 2 tasks") {
		t.Errorf("no match: %d %q", code, errOut)
	}
	// An A2A 0.3 JSON-RPC agent cannot list: the full id is needed, and works.
	code, _, errOut = reply(demo.LegacyIntake, model.ShortID(legacy), "--text", "ops@example.com")
	if code != exitFailed || !strings.Contains(errOut, "cannot list its tasks to look for one that starts with it: no task listing (A2A 0.3); give the task's full id") {
		t.Errorf("0.3 short id: %d %q", code, errOut)
	}
	if code, _, _ := reply(demo.LegacyIntake, string(legacy), "--text", "ops@example.com"); code != exitOK {
		t.Errorf("0.3 full id: %d", code)
	}
}
