package agenttest

import (
	"context"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// RESTAgent is a real A2A server (the SDK's a2asrv, HTTP+JSON under
// /rest) whose task store the test fills, behind a guard on the same
// server: a request on an A2A route goes on to the agent and is recorded
// as it arrived; a request on any other path of the agent's origin is a
// stray, recorded and answered 404. A message on a task completes it; a
// cancel cancels it. The server stops when the test ends. A RESTAgent is
// safe for concurrent use.
type RESTAgent struct {
	// URL is the agent's base URL; its card is at the well-known path.
	URL string

	store  *taskstore.InMemory
	mu     sync.Mutex
	hits   []string // "METHOD request-URI" on an A2A route
	strays []string // the same, elsewhere
}

// restRoutes are the A2A routes of a RESTAgent's origin.
var restRoutes = []string{"GET " + a2asrv.WellKnownAgentCardPath, "POST /rest/message:send", "POST /rest/message:stream",
	"GET /rest/tasks", "GET /rest/tasks/{idAndAction}", "POST /rest/tasks/{idAndAction}",
	"POST /rest/tasks/{id}/pushNotificationConfigs", "GET /rest/tasks/{id}/pushNotificationConfigs",
	"GET /rest/tasks/{id}/pushNotificationConfigs/{configId}", "DELETE /rest/tasks/{id}/pushNotificationConfigs/{configId}"}

// StartRESTAgent starts a RESTAgent, stopped when t ends.
func StartRESTAgent(t testing.TB) *RESTAgent {
	t.Helper()
	ra := &RESTAgent{store: taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: a2asrv.NewTaskStoreAuthenticator()})}
	h := a2asrv.NewHandler(completer{}, a2asrv.WithTaskStore(ra.store), a2asrv.WithCallInterceptors(asUser{}),
		a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
	srv := httptest.NewUnstartedServer(nil)
	ra.URL = "http://" + srv.Listener.Addr().String()
	card := &a2a.AgentCard{Name: "rest agent", Description: "answers over HTTP+JSON", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(ra.URL+"/rest", a2a.TransportProtocolHTTPJSON)},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}}
	agent := http.NewServeMux()
	agent.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	agent.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(h)))
	mux := http.NewServeMux()
	for _, route := range restRoutes {
		mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
			ra.note(&ra.hits, r)
			agent.ServeHTTP(w, r)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		ra.note(&ra.strays, r)
		http.Error(w, "not an A2A route", http.StatusNotFound)
	})
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	return ra
}

func (ra *RESTAgent) note(to *[]string, r *http.Request) {
	ra.mu.Lock()
	*to = append(*to, r.Method+" "+r.RequestURI)
	ra.mu.Unlock()
}

// Seen returns the requests on the A2A routes and the strays so far,
// each "METHOD request-URI" as it arrived.
func (ra *RESTAgent) Seen() (hits, strays []string) {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	return slices.Clone(ra.hits), slices.Clone(ra.strays)
}

// Waiting puts a task named id in the agent's store, INPUT_REQUIRED
// with the question "Which branch?".
func (ra *RESTAgent) Waiting(t testing.TB, id a2a.TaskID) {
	t.Helper()
	ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("test", nil)
	now := time.Now()
	q := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("Which branch?"))
	task := &a2a.Task{ID: id, ContextID: a2a.NewContextID(), Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired, Message: q, Timestamp: &now}}
	if _, err := ra.store.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
}

// asUser authenticates every caller as the store's one user.
type asUser struct {
	a2asrv.PassthroughCallInterceptor
}

func (asUser) Before(ctx context.Context, cc *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	cc.User = a2asrv.NewAuthenticatedUser("test", nil)
	return ctx, nil, nil
}

// completer completes every task it is sent a message on.
type completer struct{}

func (completer) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

func (completer) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}
