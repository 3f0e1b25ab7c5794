package agenttest

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Agent is a real A2A server (the SDK's a2asrv, JSON-RPC, streaming) on
// 127.0.0.1 that counts, on its own side, every request and every
// SendMessage that names a task. Its tasks are chosen by the first
// message's text:
//
//	"ask"    INPUT_REQUIRED "Which branch should I compare against?"; a reply completes it.
//	"deploy production", "deploy staging": the same, asking "approve deploy of 9f3c2e1
//	         to production?" with the data part {"environment": "production", "commit": …};
//	         Reask asks again (a new prompt, the next commit).
//	"deploy" AUTH_REQUIRED "approve deploy of 9f3c2e1 to staging?"; the decision, taken by
//	         message (a call interceptor hands it to the waiting executor), completes
//	         it (approve) or fails it (deny: a text part that starts with "denied").
//	"big"    WORKING, then BigChunks chunks of BigChunkBytes appended to the artifact
//	         "log", then COMPLETED.
//	other    COMPLETED at once.
//
// The server stops when the test ends. An Agent is safe for concurrent use.
type Agent struct {
	// URL is the agent's base URL; its card is at the well-known path.
	URL string

	t       testing.TB
	srv     *httptest.Server
	handler a2asrv.RequestHandler
	delay   atomic.Int64 // see SetDelay
	hold    atomic.Bool  // see SetHold

	mu      sync.Mutex
	perTask map[a2a.TaskID]int // SendMessage requests that named the task
	waiting map[a2a.TaskID]chan *a2a.Message
	reask   map[a2a.TaskID]chan struct{}
	got     map[a2a.TaskID][]*a2a.Message // the SendMessage messages that named the task
	calls   map[string]int                // JSON-RPC methods received
}

// What a "big" task streams: a log in chunks, appended to one artifact.
const (
	BigChunks     = 16
	BigChunkBytes = 256 << 10
)

// StartAgent starts an Agent, stopped when t ends.
func StartAgent(t testing.TB) *Agent {
	t.Helper()
	return StartAgentWith(t, nil)
}

// StartAgentWith is StartAgent with every request going through wrap
// first (a resource server's token check, say); nil wraps nothing.
func StartAgentWith(t testing.TB, wrap func(http.Handler) http.Handler) *Agent {
	t.Helper()
	return start(t, wrap, nil)
}

// StartAgentTLS is StartAgent serving https with cfg (its certificate,
// and whether it asks for a client's); its URL and card say https.
func StartAgentTLS(t testing.TB, cfg *tls.Config) *Agent {
	t.Helper()
	return start(t, nil, cfg)
}

func start(t testing.TB, wrap func(http.Handler) http.Handler, tlsCfg *tls.Config) *Agent {
	t.Helper()
	ag := &Agent{t: t, perTask: map[a2a.TaskID]int{}, waiting: map[a2a.TaskID]chan *a2a.Message{}, calls: map[string]int{},
		reask: map[a2a.TaskID]chan struct{}{}, got: map[a2a.TaskID][]*a2a.Message{}}
	ag.handler = a2asrv.NewHandler(executor{ag}, a2asrv.WithCallInterceptors(interceptor{ag: ag}),
		a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
	ag.srv = httptest.NewUnstartedServer(nil)
	ag.URL = "http://" + ag.srv.Listener.Addr().String()
	if tlsCfg != nil {
		ag.URL = "https://" + ag.srv.Listener.Addr().String()
	}
	card := &a2a.AgentCard{Name: "test agent", Description: "counts what it receives", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: ag.URL, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}},
		Capabilities:        a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}}
	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/", ag.count(ag.holding(a2asrv.NewJSONRPCHandler(ag.handler))))
	ag.srv.Config.Handler = mux
	if wrap != nil {
		ag.srv.Config.Handler = wrap(mux)
	}
	if tlsCfg != nil {
		ag.srv.TLS = tlsCfg
		ag.srv.StartTLS()
	} else {
		ag.srv.Start()
	}
	t.Cleanup(func() { ag.srv.CloseClientConnections(); ag.srv.Close() })
	return ag
}

// SetDelay makes the agent wait d before it takes a message on a waiting
// task (an agent slower than its caller's timeout); 0 ends it.
func (ag *Agent) SetDelay(d time.Duration) { ag.delay.Store(int64(d)) }

// SetHold makes the agent, while on, take every SendMessage and then
// keep its answer until the caller goes away: the message delivered,
// the answer never sent.
func (ag *Agent) SetHold(on bool) { ag.hold.Store(on) }

// count counts the agent's HTTP requests: what its watchers cost it.
func (ag *Agent) count(next http.Handler) http.Handler {
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

// holding delivers a SendMessage and then, while hold is set, keeps its
// answer until the caller goes away.
func (ag *Agent) holding(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !ag.hold.Load() || !bytes.Contains(body, []byte(`"SendMessage"`)) {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(httptest.NewRecorder(), r.WithContext(context.WithoutCancel(r.Context())))
		<-r.Context().Done()
	})
}

// Requests is how many requests of each JSON-RPC method the agent got
// ("other" for the rest).
func (ag *Agent) Requests() map[string]int {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return maps.Clone(ag.calls)
}

// OnTask is how many SendMessage requests named the task: the decisions
// and replies that reached the agent.
func (ag *Agent) OnTask(id a2a.TaskID) int {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return ag.perTask[id]
}

// Received is every SendMessage message that named the task, in order.
func (ag *Agent) Received(id a2a.TaskID) []*a2a.Message {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return append([]*a2a.Message(nil), ag.got[id]...)
}

// Reask makes a deploy that waits for a decision ask again: the same
// task, a new AUTH_REQUIRED prompt (another commit, a new status time).
func (ag *Agent) Reask(id a2a.TaskID) {
	ag.mu.Lock()
	ch := ag.reask[id]
	ag.mu.Unlock()
	if ch == nil {
		ag.t.Fatalf("reask %s: not a deploy that waits", id)
	}
	ch <- struct{}{}
}

// Start starts a task of kind on the agent itself and waits until it
// waits for a person (INPUT_REQUIRED or AUTH_REQUIRED).
func (ag *Agent) Start(kind string) a2a.TaskID {
	ag.t.Helper()
	id := ag.Begin(kind)
	ag.WaitState(id, func(s a2a.TaskState) bool {
		return s == a2a.TaskStateAuthRequired || s == a2a.TaskStateInputRequired
	})
	return id
}

// Begin starts a task of kind on the agent itself and returns at once.
func (ag *Agent) Begin(kind string) a2a.TaskID {
	ag.t.Helper()
	res, err := ag.handler.SendMessage(userCtx(), &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(kind)),
		Config:  &a2a.SendMessageConfig{ReturnImmediately: true}})
	if err != nil {
		ag.t.Fatalf("start %s: %v", kind, err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		ag.t.Fatalf("start %s: answered %T", kind, res)
	}
	return task.ID
}

// Answer replies to a task on the agent itself, not through a2atop (an
// answer given elsewhere).
func (ag *Agent) Answer(id a2a.TaskID) {
	ag.t.Helper()
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("main"))
	m.TaskID = id
	if _, err := ag.handler.SendMessage(userCtx(), &a2a.SendMessageRequest{Message: m}); err != nil {
		ag.t.Fatal(err)
	}
}

// WaitState polls the agent's own store until the task's state meets
// cond, and fails the test when it has not after 30 s.
func (ag *Agent) WaitState(id a2a.TaskID, cond func(a2a.TaskState) bool) *a2a.Task {
	ag.t.Helper()
	task, ok := ag.poll(userCtx(), id, cond, 30*time.Second)
	if !ok {
		ag.t.Fatalf("task %s never reached the expected state", id)
	}
	return task
}

// poll reads the task from the agent's store until its state meets
// cond, for d at most.
func (ag *Agent) poll(ctx context.Context, id a2a.TaskID, cond func(a2a.TaskState) bool, d time.Duration) (*a2a.Task, bool) {
	for end := time.Now().Add(d); ; time.Sleep(5 * time.Millisecond) {
		task, err := ag.handler.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		if err == nil && cond(task.Status.State) {
			return task, true
		}
		if time.Now().After(end) {
			return nil, false
		}
	}
}

func userCtx() context.Context {
	ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("test", nil)
	return ctx
}
