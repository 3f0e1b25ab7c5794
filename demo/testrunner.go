package demo

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Commits the test-runner knows by name.
const (
	// FailingCommit completes with 1 failed / 11 passed.
	FailingCommit = "9f3c2e1"
	// MissingCommit does not exist: the run fails.
	MissingCommit = "deadbee"
)

// testRunner runs a suite at a commit. "full" in the request asks for the
// long full-suite run that streams its log.
type testRunner struct {
	cancelByRequest
	t Timings
}

func newTestRunner(e *env) http.Handler {
	card := newCard(TestRunner, "Runs the test suite at a commit and reports summary.json.",
		e.urls[TestRunner], a2a.TransportProtocolJSONRPC, a2a.Version, true,
		a2a.AgentSkill{ID: "unit-tests", Name: "Unit tests", Description: "Runs the 12 unit tests at a commit.",
			Tags: []string{"ci"}, Examples: []string{"run the unit tests at 9f3c2e1"}},
		a2a.AgentSkill{ID: "full-suite", Name: "Full suite", Description: "Runs the full suite, streaming its log.",
			Tags: []string{"ci"}, Examples: []string{"run the full suite at 9f3c2e1"}})
	return mount(e, agentParts{exec: &testRunner{t: e.t}, store: newStore(), card: card, inactivity: busyInactivity})
}

// Execute implements a2asrv.AgentExecutor.
func (r *testRunner) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield yieldFn) {
		if ec.StoredTask != nil {
			yield(status(ec, a2a.TaskStateRejected, "A test run takes no follow-up messages; start a new run."), nil)
			return
		}
		if !yield(submitted(ec), nil) {
			return
		}
		commit := commitIn(ec.Message)
		if commit == "" {
			yield(status(ec, a2a.TaskStateRejected, `Name a commit to test, e.g. "run the unit tests at 9f3c2e1".`), nil)
			return
		}
		if !yield(status(ec, a2a.TaskStateWorking, "checking out "+commit), nil) || !pause(ctx, r.t.Step) {
			return
		}
		if commit == MissingCommit {
			yield(status(ec, a2a.TaskStateFailed, fmt.Sprintf("commit %s does not exist", commit)), nil)
			return
		}
		if strings.Contains(strings.ToLower(textOf(ec.Message)), "full") {
			r.fullSuite(ctx, ec, commit, yield)
			return
		}
		r.unitTests(ctx, ec, commit, yield)
	}
}

func (r *testRunner) unitTests(ctx context.Context, ec *a2asrv.ExecutorContext, commit string, yield yieldFn) {
	if !yield(status(ec, a2a.TaskStateWorking, "running 12 unit tests at "+commit), nil) || !pause(ctx, 2*r.t.Step) {
		return
	}
	passed, failed := 12, 0
	var failures []any
	if commit == FailingCommit {
		passed, failed = 11, 1
		failures = []any{"TestCheckoutTotals"}
	}
	summary := map[string]any{"passed": passed, "failed": failed, "total": 12, "commit": commit}
	if failures != nil {
		summary["failures"] = failures
	}
	if !yield(summaryArtifact(ec, summary), nil) {
		return
	}
	text := fmt.Sprintf("%d passed", passed)
	if failed > 0 {
		text = fmt.Sprintf("%d failed, %d passed", failed, passed)
	}
	yield(status(ec, a2a.TaskStateCompleted, text), nil)
}

// fullSuite streams the log as artifact "log" (test.log): a first chunk,
// then appended chunks, the last one marked lastChunk. A cancel ends the
// task with the chunks written so far.
func (r *testRunner) fullSuite(ctx context.Context, ec *a2asrv.ExecutorContext, commit string, yield yieldFn) {
	n := r.t.LogChunks
	if !yield(status(ec, a2a.TaskStateWorking, fmt.Sprintf("running the full suite at %s (%d packages)", commit, n)), nil) {
		return
	}
	for i := range n {
		ev := a2a.NewArtifactUpdateEvent(ec, "log", a2a.NewTextPart(logChunk(commit, i)))
		if i == 0 {
			ev.Append = false
			ev.Artifact.Name = "test.log"
		}
		ev.LastChunk = i == n-1
		if !yield(ev, nil) || !pause(ctx, r.t.LogEvery) {
			return
		}
	}
	tests := 3 * n
	if !yield(summaryArtifact(ec, map[string]any{"passed": tests, "failed": 0, "total": tests, "commit": commit}), nil) {
		return
	}
	yield(status(ec, a2a.TaskStateCompleted, fmt.Sprintf("%d passed", tests)), nil)
}

func summaryArtifact(ec a2a.TaskInfoProvider, summary map[string]any) *a2a.TaskArtifactUpdateEvent {
	p := a2a.NewDataPart(summary)
	p.MediaType = "application/json"
	return artifact(ec, "summary", "summary.json", p)
}

func logChunk(commit string, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "=== package pkg/module%02d @ %s\n", i+1, commit)
	for j := range 3 {
		fmt.Fprintf(&b, "--- PASS: TestModule%02dCase%d (0.%02ds)\n", i+1, j+1, (i*7+j*3)%100)
	}
	fmt.Fprintf(&b, "ok  \tpkg/module%02d\t%d.%02ds\n", i+1, 1+i%3, (i*13)%100)
	return b.String()
}
