package approvals

import (
	"bytes"
	"context"
	"io"
	"iter"
	"log/slog"
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
// 127.0.0.1 whose behaviour is chosen by the first message's text:
//
//	"ask"    INPUT_REQUIRED "Which branch should I compare against?" (text + data);
//	         the reply completes it.
//	"deploy" AUTH_REQUIRED "approve deploy of 9f3c2e1 to staging?"; takes the
//	         decision by message (a call interceptor hands it to the waiting
//	         executor): approve -> COMPLETED, deny -> FAILED.
//	"oob"    AUTH_REQUIRED, Go-SDK style: only an out-of-band grant (grant())
//	         moves it on; a message meanwhile gets -32603 "already in progress".
type testAgent struct {
	t       *testing.T
	srv     *httptest.Server
	handler a2asrv.RequestHandler

	mu       sync.Mutex
	received map[string]int     // messageId -> times a SendMessage carried it
	perTask  map[a2a.TaskID]int // taskId -> SendMessage requests on that task
	waiting  map[a2a.TaskID]chan *a2a.Message

	// hold makes the HTTP layer stall SendMessage until the client gives up:
	// holdBefore never delivers it; holdAfter delivers it, then stalls the answer.
	holdBefore, holdAfter atomic.Bool
	// beforeSend runs in the server just before it handles a SendMessage on
	// an existing task (to end or resume the task first, deterministically).
	beforeSend atomic.Pointer[func(a2a.TaskID)]
	token      string // when set, requests need "Authorization: Bearer token"
}

func startAgent(t *testing.T) *testAgent {
	t.Helper()
	ag := newAgent(t)
	t.Cleanup(ag.srv.Close)
	return ag
}

// newAgent starts a test agent the caller closes (ag.srv.Close): nothing
// else keeps it, so once closed and dropped its memory is freed.
func newAgent(t *testing.T) *testAgent {
	t.Helper()
	ag := &testAgent{t: t, received: map[string]int{}, perTask: map[a2a.TaskID]int{}, waiting: map[a2a.TaskID]chan *a2a.Message{}}
	ag.handler = a2asrv.NewHandler(&testExecutor{ag: ag},
		a2asrv.WithCallInterceptors(&testInterceptor{ag: ag}),
		a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
	mux := http.NewServeMux()
	mux.Handle("/", a2asrv.NewJSONRPCHandler(ag.handler))
	ag.srv = httptest.NewServer(ag.middleware(mux))
	return ag
}

// times reports how many SendMessage requests carried this messageId.
func (ag *testAgent) times(id string) int {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return ag.received[id]
}

// onTask reports how many SendMessage requests named this task: the
// decisions that reached the agent, whatever their messageIds.
func (ag *testAgent) onTask(id a2a.TaskID) int {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return ag.perTask[id]
}

// grant resumes an "oob" (or "deploy") task out of band, with no
// message, and returns once the task has ended.
func (ag *testAgent) grant(id a2a.TaskID) {
	ag.mu.Lock()
	ch := ag.waiting[id]
	ag.mu.Unlock()
	if ch == nil {
		ag.t.Fatalf("grant: task %s is not waiting", id)
	}
	ch <- nil
	// The executor passes through WORKING on its way to COMPLETED: wait
	// for the end, so what a test reads next does not depend on timing.
	ag.waitState(id, isTerminal)
}

// waitState polls the agent's own store until cond holds (the executor
// runs on its own goroutine).
func (ag *testAgent) waitState(id a2a.TaskID, cond func(a2a.TaskState) bool) *a2a.Task {
	ctx := testUserCtx()
	for range 400 {
		task, err := ag.handler.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		if err == nil && cond(task.Status.State) {
			return task
		}
		time.Sleep(5 * time.Millisecond)
	}
	ag.t.Fatalf("task %s never reached the expected state", id)
	return nil
}

func testUserCtx() context.Context {
	ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("test", nil)
	return ctx
}

// middleware counts SendMessage requests per messageId, checks the token
// and stalls requests when told to.
func (ag *testAgent) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ag.token != "" && r.Header.Get("Authorization") != "Bearer "+ag.token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !bytes.Contains(body, []byte(`"SendMessage"`)) {
			next.ServeHTTP(w, r)
			return
		}
		if ag.holdBefore.Load() {
			<-r.Context().Done() // never delivered
			return
		}
		if ag.holdAfter.Load() {
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r.WithContext(context.WithoutCancel(r.Context())))
			<-r.Context().Done() // delivered, but the answer never arrives
			return
		}
		next.ServeHTTP(w, r)
	})
}

type testInterceptor struct {
	a2asrv.PassthroughCallInterceptor
	ag *testAgent
}

func (ti *testInterceptor) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	cc.User = a2asrv.NewAuthenticatedUser("test", nil)
	p, ok := req.Payload.(*a2a.SendMessageRequest)
	if !ok || p.Message == nil {
		return ctx, nil, nil
	}
	ag := ti.ag
	ag.mu.Lock()
	ag.received[p.Message.ID]++
	if p.Message.TaskID != "" {
		ag.perTask[p.Message.TaskID]++
	}
	ag.mu.Unlock()
	if p.Message.TaskID == "" {
		return ctx, nil, nil
	}
	if f := ag.beforeSend.Load(); f != nil {
		(*f)(p.Message.TaskID)
	}
	task, err := ag.handler.GetTask(ctx, &a2a.GetTaskRequest{ID: p.Message.TaskID})
	if err != nil || task.Status.State != a2a.TaskStateAuthRequired || !strings.HasPrefix(taskKind(task), "deploy") {
		return ctx, nil, nil // the SDK handles it (and refuses "oob" with -32603)
	}
	ag.mu.Lock()
	ch := ag.waiting[task.ID]
	ag.mu.Unlock()
	ch <- p.Message
	done := ag.waitState(task.ID, func(s a2a.TaskState) bool { return s != a2a.TaskStateAuthRequired && s != a2a.TaskStateWorking })
	return ctx, done, nil
}

// taskKind is the text of the message that started the task.
func taskKind(t *a2a.Task) string {
	for _, m := range t.History {
		if m.Role == a2a.MessageRoleUser && len(m.Parts) > 0 {
			return m.Parts[0].Text()
		}
	}
	return ""
}

type testExecutor struct{ ag *testAgent }

func (e *testExecutor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask != nil { // a reply to an INPUT_REQUIRED task
			answer := ""
			for _, p := range ec.Message.Parts {
				answer += p.Text()
				if p.Data() != nil {
					answer += PrettyJSON(p.Data())
				}
			}
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("compared against "+answer))), nil)
			return
		}
		if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		switch kind := ec.Message.Parts[0].Text(); {
		case kind == "ask":
			q := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("Which branch should I compare against?"),
				a2a.NewDataPart(map[string]any{"choices": []any{"main", "release"}}))
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, q), nil)
		case kind == "deploy" || kind == "oob":
			e.waitAuth(ctx, ec, yield)
		default:
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
		}
	}
}

// waitAuth puts the task in AUTH_REQUIRED and waits (AUTH_REQUIRED is not
// final for the SDK) for a decision by message or an out-of-band grant.
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
	if m == nil { // granted out of band
		if yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("granted out of band"))), nil) {
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
		}
		return
	}
	// Keep the decision in the task's history: as the WORKING status
	// message, moved to history by the next status update.
	if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, m), nil) {
		return
	}
	final := a2a.TaskStateCompleted
	for _, p := range m.Parts {
		if d, ok := p.Data().(map[string]any); ok && d["decision"] == "deny" {
			final = a2a.TaskStateFailed
		}
	}
	yield(a2a.NewStatusUpdateEvent(ec, final, nil), nil)
}

func (e *testExecutor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}
