package approvals

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"a2atop/internal/agenttest"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Environment of the child process that decides (see TestDecideChild).
const (
	envDecide   = "A2ATOP_APPROVALS_DECIDE" // the decision's kind: "approve" or "reply"
	envDJournal = "A2ATOP_APPROVALS_DECIDE_JOURNAL"
	envDURL     = "A2ATOP_APPROVALS_DECIDE_URL"
	envDTask    = "A2ATOP_APPROVALS_DECIDE_TASK"
	envDBy      = "A2ATOP_APPROVALS_DECIDE_BY"
	envDTear    = "A2ATOP_APPROVALS_DECIDE_TEAR"    // "1": the decision's write stops halfway and the process dies
	envDSegment = "A2ATOP_APPROVALS_DECIDE_SEGMENT" // Options.Segment.Size in bytes
)

// tearingWriter writes the first half of what it is given, then kills its
// own process (SIGKILL: no deferred code, no flush), as a power cut in
// the middle of a write would leave the file.
type tearingWriter struct{ syncWriter }

func (w tearingWriter) Write(b []byte) (int, error) {
	_, _ = w.syncWriter.Write(b[:len(b)/2])
	_ = w.syncWriter.Sync()
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// childResult is what a deciding child prints once it has sent.
type childResult struct {
	MessageID string
	Result    Result
	Problem   Problem
	Decided   bool // errors.Is(err, ErrAlreadyDecided)
	Err       string
}

// TestDecideChild is the child half of the tests that decide from two
// processes: it opens the journal as `a2atop reply` does, reads the task,
// prepares its decision, says "ready", waits for a line on its stdin
// (so that two children send at the same moment), sends, and prints the
// outcome as JSON. It does nothing unless a parent started it.
func TestDecideChild(t *testing.T) {
	kind := os.Getenv(envDecide)
	if kind == "" {
		t.Skip("runs only as the child of a test that decides from two processes")
	}
	snd := newSDKSender()
	snd.add(t, "agent", os.Getenv(envDURL), "")
	svc, err := Open(Options{JournalPath: os.Getenv(envDJournal), Sender: snd, Approver: os.Getenv(envDBy),
		SendTimeout: 10 * time.Second, Agents: []Agent{{Name: "agent", URL: os.Getenv(envDURL)}}, Segment: segmentFromEnv()})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	task, err := snd.Get(context.Background(), "agent", a2a.TaskID(os.Getenv(envDTask)), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Kind: KindApprove}
	if kind == "reply" {
		in = Input{Kind: KindReply, Text: "main"}
	}
	d, err := svc.Prepare(svc.ItemFor(modelTask("agent", task)), in)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv(envDTear) == "1" {
		fs := svc.st.(*fileStore)
		fs.w = tearingWriter{fs.w}
	}
	os.Stdout.WriteString("ready\n")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	out := svc.Send(context.Background(), d)
	r := childResult{MessageID: d.MessageID, Result: out.Result, Problem: out.Problem, Decided: errors.Is(out.Err, ErrAlreadyDecided)}
	if out.Err != nil {
		r.Err = out.Err.Error()
	}
	b, _ := json.Marshal(r)
	os.Stdout.Write(append(b, '\n'))
}

// child is one running TestDecideChild.
type child struct{ *agenttest.Child }

// startChild starts a child deciding on task and returns once it is
// ready to send.
func startChild(t *testing.T, fx *fixture, task a2a.TaskID, kind, approver string, env ...string) *child {
	t.Helper()
	return &child{agenttest.StartChild(t, "TestDecideChild", append([]string{envDecide + "=" + kind, envDJournal + "=" + fx.path,
		envDURL + "=" + fx.ag.srv.URL, envDTask + "=" + string(task), envDBy + "=" + approver}, env...)...)}
}

// result waits for the child's outcome.
func (c *child) result(t *testing.T) childResult {
	t.Helper()
	var r childResult
	c.Expect(t, func(line string) bool { return json.Unmarshal([]byte(line), &r) == nil && r.MessageID != "" })
	_ = c.Wait()
	return r
}

// TestTwoProcessesDecideOnePromptOnce: two processes (as two `a2atop
// reply` run at once) prepare a decision on the same prompt and send it
// at the same moment, fifty times over. Each time exactly one message
// reaches the agent (counted by the agent), one process has it accepted,
// and the other is refused as already decided, with nothing sent.
func TestTwoProcessesDecideOnePromptOnce(t *testing.T) {
	rounds := 50
	if testing.Short() || raceEnabled {
		rounds = 8
	}
	fx := newFixture(t)
	fx.svc.Close()
	for round := range rounds {
		mt := fx.start(t, "deploy")
		a := startChild(t, fx, mt.Key.ID, "approve", "alice@test")
		b := startChild(t, fx, mt.Key.ID, "approve", "bob@test")
		var wg sync.WaitGroup
		rs := make([]childResult, 2)
		for i, c := range []*child{a, b} {
			wg.Add(1)
			go func() { defer wg.Done(); rs[i] = c.result(t) }()
		}
		a.Say(t, "go")
		b.Say(t, "go")
		wg.Wait()
		fx.ag.waitState(mt.Key.ID, isTerminal)
		if n := fx.ag.onTask(mt.Key.ID); n != 1 {
			t.Fatalf("round %d: %d decisions reached the agent for one prompt: %+v / %+v", round, n, rs[0], rs[1])
		}
		var accepted, decided int
		for _, r := range rs {
			switch {
			case r.Result == ResultAccepted:
				accepted++
			case r.Result == ResultRefused && r.Problem == ProblemDecided && r.Decided:
				decided++
			}
		}
		if accepted != 1 || decided != 1 {
			t.Fatalf("round %d: outcomes %+v / %+v, want one accepted and one already-decided", round, rs[0], rs[1])
		}
	}
	// the processes wrote one chain between them, each linking under the lock
	if c, err := VerifyJournal(nil, fx.path); err != nil || c.Broken() || c.Records < 2*rounds {
		t.Fatalf("the journal the processes wrote: %v %+v", err, c)
	}
}

// TestOpenServiceRefusesDecisionJournaledElsewhere: a dashboard's
// Service, open for a while, holds a decision prepared before another
// process answered the same prompt (the agent takes authorization out of
// band only, so the prompt stays). Sending it is refused as already
// decided, and nothing more reaches the agent.
func TestOpenServiceRefusesDecisionJournaledElsewhere(t *testing.T) {
	fx := newFixture(t)
	mt := fx.start(t, "oob")
	d := fx.mustPrepare(t, mt, Input{Kind: KindApprove})

	c := startChild(t, fx, mt.Key.ID, "approve", "cli@test")
	c.Say(t, "go")
	if r := c.result(t); r.Problem != ProblemOutOfBand {
		t.Fatalf("the other process: %+v", r)
	}
	if n := fx.ag.onTask(mt.Key.ID); n != 1 {
		t.Fatalf("%d messages reached the agent after the other process decided", n)
	}
	out := fx.svc.Send(context.Background(), d)
	if out.Result != ResultRefused || out.Problem != ProblemDecided || !errors.Is(out.Err, ErrAlreadyDecided) {
		t.Fatalf("the dashboard's decision: %s/%s %v, want refused already-decided", out.Result, out.Problem, out.Err)
	}
	if n := fx.ag.onTask(mt.Key.ID); n != 1 {
		t.Fatalf("the dashboard sent a second decision: %d messages reached the agent", n)
	}
}
