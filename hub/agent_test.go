package hub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// testAgent is a real A2A server (the SDK's a2asrv, JSON-RPC) on
// 127.0.0.1 that counts, on its own side, every SendMessage that names a
// task. Its tasks are chosen by the first message's text:
//
//	"ask"    INPUT_REQUIRED "Which branch should I compare against?"; a reply completes it.
//	"deploy" AUTH_REQUIRED "approve deploy of 9f3c2e1 to staging?"; the decision, taken by
//	         message (a call interceptor hands it to the waiting executor), completes
//	         it (approve) or fails it (deny).
type testAgent struct {
	t       *testing.T
	srv     *httptest.Server
	handler a2asrv.RequestHandler

	// delay holds a message on a waiting task this long before the agent
	// takes it (an agent slower than its caller's timeout).
	delay atomic.Int64

	mu      sync.Mutex
	perTask map[a2a.TaskID]int // SendMessage requests that named the task
	waiting map[a2a.TaskID]chan *a2a.Message
	calls   map[string]int // JSON-RPC methods received
}

func startAgent(t *testing.T) *testAgent {
	t.Helper()
	ag := &testAgent{t: t, perTask: map[a2a.TaskID]int{}, waiting: map[a2a.TaskID]chan *a2a.Message{}, calls: map[string]int{}}
	ag.handler = a2asrv.NewHandler(&testExecutor{ag: ag}, a2asrv.WithCallInterceptors(&testInterceptor{ag: ag}),
		a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
	ag.srv = httptest.NewUnstartedServer(nil)
	url := "http://" + ag.srv.Listener.Addr().String()
	card := &a2a.AgentCard{Name: "hub test agent", Description: "counts what it receives", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: url, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}},
		Capabilities:        a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}}
	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/", ag.count(a2asrv.NewJSONRPCHandler(ag.handler)))
	ag.srv.Config.Handler = mux
	ag.srv.Start()
	t.Cleanup(ag.srv.Close)
	return ag
}

// count counts the agent's HTTP requests: what its watchers cost it.
func (ag *testAgent) count(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		method := "other"
		var rpc struct{ Method string }
		if json.Unmarshal(body, &rpc) == nil && rpc.Method != "" {
			method = rpc.Method
		}
		ag.mu.Lock()
		ag.calls[method]++
		ag.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// requests is how many requests of each JSON-RPC method the agent got.
func (ag *testAgent) requests() map[string]int {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return maps.Clone(ag.calls)
}

// onTask is how many SendMessage requests named the task: the decisions
// that reached the agent.
func (ag *testAgent) onTask(id a2a.TaskID) int {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return ag.perTask[id]
}

// start starts a task of kind and waits until it waits for a person.
func (ag *testAgent) start(kind string) a2a.TaskID {
	ag.t.Helper()
	ctx := userCtx()
	res, err := ag.handler.SendMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(kind)),
		Config:  &a2a.SendMessageConfig{ReturnImmediately: true}})
	if err != nil {
		ag.t.Fatalf("start %s: %v", kind, err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		ag.t.Fatalf("start %s: answered %T", kind, res)
	}
	ag.waitState(task.ID, func(s a2a.TaskState) bool {
		return s == a2a.TaskStateAuthRequired || s == a2a.TaskStateInputRequired
	})
	return task.ID
}

// begin starts a task of kind and returns at once.
func (ag *testAgent) begin(kind string) a2a.TaskID {
	ag.t.Helper()
	res, err := ag.handler.SendMessage(userCtx(), &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(kind)),
		Config:  &a2a.SendMessageConfig{ReturnImmediately: true}})
	if err != nil {
		ag.t.Fatalf("start %s: %v", kind, err)
	}
	return res.(*a2a.Task).ID
}

// answer replies to a task on the agent itself, not through the hub (an
// answer given elsewhere).
func (ag *testAgent) answer(id a2a.TaskID) {
	ag.t.Helper()
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("main"))
	m.TaskID = id
	if _, err := ag.handler.SendMessage(userCtx(), &a2a.SendMessageRequest{Message: m}); err != nil {
		ag.t.Fatal(err)
	}
}

// waitState polls the agent's own store until cond holds.
func (ag *testAgent) waitState(id a2a.TaskID, cond func(a2a.TaskState) bool) *a2a.Task {
	ctx := userCtx()
	for range 1000 {
		task, err := ag.handler.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		if err == nil && cond(task.Status.State) {
			return task
		}
		time.Sleep(5 * time.Millisecond)
	}
	ag.t.Fatalf("task %s never reached the expected state", id)
	return nil
}

func userCtx() context.Context {
	ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("test", nil)
	return ctx
}

type testInterceptor struct {
	a2asrv.PassthroughCallInterceptor
	ag *testAgent
}

func (ti *testInterceptor) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	cc.User = a2asrv.NewAuthenticatedUser("test", nil)
	p, ok := req.Payload.(*a2a.SendMessageRequest)
	if !ok || p.Message == nil || p.Message.TaskID == "" {
		return ctx, nil, nil
	}
	ag := ti.ag
	ag.mu.Lock()
	ag.perTask[p.Message.TaskID]++
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
	done := ag.waitState(task.ID, func(s a2a.TaskState) bool { return s != a2a.TaskStateAuthRequired && s != a2a.TaskStateWorking })
	return ctx, done, nil
}

type testExecutor struct{ ag *testAgent }

func (e *testExecutor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
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
			e.waitAuth(ctx, ec, yield)
		case "big":
			e.big(ec, yield)
		default:
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
		}
	}
}

// waitAuth puts the task in AUTH_REQUIRED and waits for a decision by
// message (AUTH_REQUIRED is not final for the SDK).
func (e *testExecutor) waitAuth(ctx context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
	ch := make(chan *a2a.Message, 1)
	e.ag.mu.Lock()
	e.ag.waiting[ec.TaskID] = ch
	e.ag.mu.Unlock()
	q := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("approve deploy of 9f3c2e1 to staging?"))
	if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateAuthRequired, q), nil) {
		return
	}
	var m *a2a.Message
	select {
	case m = <-ch:
	case <-ctx.Done():
		return
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

// BigChunks and BigChunkBytes are what a "big" task streams: a log in
// chunks, appended to one artifact, then COMPLETED.
const (
	BigChunks     = 16
	BigChunkBytes = 256 << 10
)

func (e *testExecutor) big(ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
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

func (e *testExecutor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}
