package agenttest

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// interceptor counts the messages that name a task and hands a decision
// on an AUTH_REQUIRED task to its waiting executor (AUTH_REQUIRED is not
// final for the SDK, which would refuse the message); the message's
// answer is the task once the decision took effect.
type interceptor struct {
	a2asrv.PassthroughCallInterceptor
	ag *Agent
}

func (in interceptor) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	cc.User = a2asrv.NewAuthenticatedUser("test", nil)
	p, ok := req.Payload.(*a2a.SendMessageRequest)
	if !ok || p.Message == nil || p.Message.TaskID == "" {
		return ctx, nil, nil
	}
	ag := in.ag
	ag.mu.Lock()
	ag.perTask[p.Message.TaskID]++
	ag.got[p.Message.TaskID] = append(ag.got[p.Message.TaskID], p.Message)
	ch := ag.waiting[p.Message.TaskID]
	ag.mu.Unlock()
	time.Sleep(time.Duration(ag.delay.Load()))
	task, err := ag.handler.GetTask(ctx, &a2a.GetTaskRequest{ID: p.Message.TaskID})
	if err != nil || task.Status.State != a2a.TaskStateAuthRequired || ch == nil {
		return ctx, nil, nil
	}
	select {
	case ch <- p.Message:
	default: // a second message while the first is taken: the SDK refuses it
		return ctx, nil, nil
	}
	done, ok := ag.poll(ctx, task.ID, func(s a2a.TaskState) bool {
		return s != a2a.TaskStateAuthRequired && s != a2a.TaskStateWorking
	}, 5*time.Second)
	if !ok {
		return ctx, nil, nil
	}
	return ctx, done, nil
}

// executor acts out the tasks Agent describes.
type executor struct{ ag *Agent }

func (e executor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask != nil { // a reply to an INPUT_REQUIRED task
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("done"))), nil)
			return
		}
		if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		switch ec.Message.Parts[0].Text() {
		case "ask":
			q := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("Which branch should I compare against?"))
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, q), nil)
		case "deploy":
			e.waitAuth(ctx, ec, yield, "")
		case "deploy production", "deploy staging":
			e.waitAuth(ctx, ec, yield, strings.TrimPrefix(ec.Message.Parts[0].Text(), "deploy "))
		case "big":
			e.big(ec, yield)
		default:
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
		}
	}
}

// waitAuth puts the task in AUTH_REQUIRED and waits for a decision by
// message. With env, the prompt also carries the data part
// {"environment": env, "commit": …}; Reask asks it again with another
// commit (a new prompt).
func (e executor) waitAuth(ctx context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool, env string) {
	ch, again := make(chan *a2a.Message, 1), make(chan struct{}, 1)
	e.ag.mu.Lock()
	e.ag.waiting[ec.TaskID] = ch
	e.ag.reask[ec.TaskID] = again
	e.ag.mu.Unlock()
	var m *a2a.Message
	for n := 0; m == nil; n++ {
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateAuthRequired, authPrompt(env, n)), nil) {
			return
		}
		select {
		case m = <-ch:
		case <-again:
		case <-ctx.Done():
			return
		}
	}
	if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, m), nil) { // keeps the decision in the history
		return
	}
	final := a2a.TaskStateCompleted
	for _, p := range m.Parts {
		if strings.HasPrefix(p.Text(), "denied") {
			final = a2a.TaskStateFailed
		}
	}
	yield(a2a.NewStatusUpdateEvent(ec, final, nil), nil)
}

// authPrompt is the question of a deploy: the n-th time it is asked
// names another commit.
func authPrompt(env string, n int) *a2a.Message {
	commit := fmt.Sprintf("9f3c2e%d", 1+n)
	if env == "" {
		return a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("approve deploy of "+commit+" to staging?"))
	}
	return a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("approve deploy of "+commit+" to "+env+"?"),
		a2a.NewDataPart(map[string]any{"environment": env, "commit": commit}))
}

func (executor) big(ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
	if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
		return
	}
	chunk := strings.Repeat("x", BigChunkBytes)
	for i := range BigChunks {
		ev := a2a.NewArtifactUpdateEvent(ec, "log", a2a.NewTextPart(chunk))
		ev.Append, ev.LastChunk = i > 0, i == BigChunks-1
		if !yield(ev, nil) {
			return
		}
	}
	yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
}

func (executor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}
