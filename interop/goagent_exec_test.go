package interop

import (
	"context"
	"fmt"
	"iter"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// The goAgent's executor: the same vocabulary as jspeer/executor.mjs.

var firstWord = regexp.MustCompile(`^\s*([A-Za-z-]+)`)

func textOf(m *a2a.Message) string {
	var parts []string
	for _, p := range m.Parts {
		if s := p.Text(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

func first(m *a2a.Message) string {
	w := firstWord.FindStringSubmatch(textOf(m))
	if w == nil {
		return ""
	}
	return strings.ToLower(w[1])
}

// Execute implements a2asrv.AgentExecutor.
func (ga *goAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		say := func(s a2a.TaskState, text string) bool {
			return yield(a2a.NewStatusUpdateEvent(ec, s, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(text))), nil)
		}
		if ec.StoredTask != nil { // a reply to INPUT_REQUIRED
			if !say(a2a.TaskStateWorking, "deploying to "+textOf(ec.Message)) || !ga.sleep(ctx) {
				return
			}
			if !yield(a2a.NewArtifactEvent(ec, a2a.NewTextPart(textOf(ec.Message))), nil) {
				return
			}
			say(a2a.TaskStateCompleted, "deployed to "+textOf(ec.Message))
			return
		}
		word := first(ec.Message)
		if !slices.Contains([]string{"ask", "approve-me", "run", "fail", "reject", "long"}, word) {
			yield(a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("echo: "+textOf(ec.Message))), nil)
			return
		}
		if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) || !ga.sleep(ctx) {
			return
		}
		switch word {
		case "ask":
			say(a2a.TaskStateInputRequired, "Which environment should I deploy to?")
		case "reject":
			say(a2a.TaskStateRejected, "This agent does not deploy on Fridays.")
		case "fail":
			if say(a2a.TaskStateWorking, "Building...") && ga.sleep(ctx) {
				say(a2a.TaskStateFailed, "build failed: exit status 2")
			}
		case "run":
			ga.run(ctx, ec, yield, say)
		case "long":
			ga.long(ctx, ec, yield, say)
		case "approve-me":
			ga.approval(ctx, ec, yield, say)
		}
	}
}

func (ga *goAgent) sleep(ctx context.Context) bool { return sleepCtx(ctx, ga.step) }

func sleepCtx(ctx context.Context, d time.Duration) bool {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-tm.C:
		return true
	}
}

type yieldFn = func(a2a.Event, error) bool

func (ga *goAgent) run(ctx context.Context, ec *a2asrv.ExecutorContext, yield yieldFn, say func(a2a.TaskState, string) bool) {
	n := map[string]int{"passed": 12, "failed": 0}
	for _, m := range regexp.MustCompile(`(passed|failed)=(\d+)`).FindAllStringSubmatch(textOf(ec.Message), -1) {
		n[m[1]], _ = strconv.Atoi(m[2])
	}
	if !say(a2a.TaskStateWorking, "Running tests...") || !ga.sleep(ctx) {
		return
	}
	sum := a2a.NewArtifactEvent(ec, a2a.NewDataPart(map[string]any{"passed": n["passed"], "failed": n["failed"]}))
	sum.Artifact.Name = "summary.json"
	rep := a2a.NewArtifactEvent(ec, a2a.NewTextPart(fmt.Sprintf("%d failed / %d passed\n", n["failed"], n["passed"])))
	rep.Artifact.Name = "report.txt"
	if yield(sum, nil) && yield(rep, nil) {
		say(a2a.TaskStateCompleted, fmt.Sprintf("%d failed / %d passed", n["failed"], n["passed"]))
	}
}

func (ga *goAgent) long(ctx context.Context, ec *a2asrv.ExecutorContext, yield yieldFn, say func(a2a.TaskState, string) bool) {
	if !say(a2a.TaskStateWorking, "streaming log chunks...") {
		return
	}
	var id a2a.ArtifactID
	for i := 0; i < 4000; i++ {
		if !ga.sleep(ctx) {
			return // canceled: Cancel writes CANCELED
		}
		var ev *a2a.TaskArtifactUpdateEvent
		if i == 0 {
			ev = a2a.NewArtifactEvent(ec, a2a.NewTextPart(fmt.Sprintf("line %d\n", i+1)))
			ev.Artifact.Name = "log.txt"
			id = ev.Artifact.ID
		} else {
			ev = a2a.NewArtifactUpdateEvent(ec, id, a2a.NewTextPart(fmt.Sprintf("line %d\n", i+1)))
		}
		if !yield(ev, nil) {
			return
		}
	}
	say(a2a.TaskStateCompleted, "streamed 4000 chunks")
}

// approval goes AUTH_REQUIRED and waits (the execution keeps running) for
// the decision goHandoff delivers, then records it in the history.
func (ga *goAgent) approval(ctx context.Context, ec *a2asrv.ExecutorContext, yield yieldFn, say func(a2a.TaskState, string) bool) {
	gate := make(chan *a2a.Message, 1)
	ga.gates.Store(ec.TaskID, gate)
	defer ga.gates.Delete(ec.TaskID)
	if !say(a2a.TaskStateAuthRequired, "Approve deploy to prod? Reply approve or deny.") {
		return
	}
	var msg *a2a.Message
	select {
	case <-ctx.Done():
		return
	case msg = <-gate:
	}
	approve := decisionOf(msg)
	st, err := ga.store.Get(ctx, ec.TaskID)
	if err != nil {
		yield(nil, fmt.Errorf("read task after decision: %w", err))
		return
	}
	task := st.Task
	if task.Status.Message != nil {
		task.History = append(task.History, task.Status.Message)
	}
	m := *msg
	m.TaskID, m.ContextID = task.ID, task.ContextID
	task.History = append(task.History, &m)
	now := time.Now()
	if !approve {
		task.Status = a2a.TaskStatus{State: a2a.TaskStateFailed, Timestamp: &now,
			Message: a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Denied: "+textOf(msg)))}
		yield(task, nil)
		return
	}
	task.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &now,
		Message: a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Approved; deploying..."))}
	if yield(task, nil) && ga.sleep(ctx) {
		say(a2a.TaskStateCompleted, "Deployed to prod after approval.")
	}
}

// decisionOf: a data part {"decision": "approve"|"deny"} wins, else the
// first word of the text (approve/approved/yes vs anything else = deny).
func decisionOf(m *a2a.Message) bool {
	for _, p := range m.Parts {
		if obj, ok := p.Data().(map[string]any); ok {
			if d, ok := obj["decision"].(string); ok {
				return strings.HasPrefix(strings.ToLower(d), "approve")
			}
		}
	}
	switch first(m) {
	case "approve", "approved", "yes":
		return true
	}
	return false
}

// Cancel implements a2asrv.AgentExecutor.
func (ga *goAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}
