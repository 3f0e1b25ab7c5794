package cli

import (
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"a2atop/demo"
	"a2atop/model"
)

// restAgent is an SDK HTTP+JSON agent on loopback whose task store the
// test fills, behind a guard on the same server: requests on the A2A
// routes go on and are recorded as they arrived; any other path is a
// stray, recorded and answered 404.
type restAgent struct {
	url   string
	store *taskstore.InMemory
	mu    sync.Mutex
	hits  []string // "METHOD request-URI" on an A2A route
	stray []string // the same, elsewhere
}

// asTester authenticates every caller as the store's one user.
type asTester struct {
	a2asrv.PassthroughCallInterceptor
}

func (asTester) Before(ctx context.Context, cc *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	return ctx, nil, nil
}

// completes ends every task it is sent a message on.
type completes struct{}

func (completes) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

func (completes) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

func startRESTAgent(t *testing.T) *restAgent {
	t.Helper()
	ra := &restAgent{store: taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: a2asrv.NewTaskStoreAuthenticator()})}
	h := a2asrv.NewHandler(completes{}, a2asrv.WithTaskStore(ra.store), a2asrv.WithCallInterceptors(asTester{}))
	srv := httptest.NewUnstartedServer(nil)
	ra.url = "http://" + srv.Listener.Addr().String()
	card := &a2a.AgentCard{Name: "rest", Description: "a REST agent", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(ra.url+"/rest", a2a.TransportProtocolHTTPJSON)},
		DefaultInputModes:   []string{"text"}, DefaultOutputModes: []string{"text"}}
	agent := http.NewServeMux()
	agent.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	agent.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(h)))
	mux := http.NewServeMux()
	for _, route := range []string{"GET " + a2asrv.WellKnownAgentCardPath, "POST /rest/message:send", "GET /rest/tasks",
		"GET /rest/tasks/{idAndAction}", "POST /rest/tasks/{idAndAction}"} {
		mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
			ra.note(&ra.hits, r)
			agent.ServeHTTP(w, r)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		ra.note(&ra.stray, r)
		http.Error(w, "not an A2A route", http.StatusNotFound)
	})
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	return ra
}

func (ra *restAgent) note(to *[]string, r *http.Request) {
	ra.mu.Lock()
	*to = append(*to, r.Method+" "+r.RequestURI)
	ra.mu.Unlock()
}

func (ra *restAgent) seen() (hits, stray []string) {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	return slices.Clone(ra.hits), slices.Clone(ra.stray)
}

// waiting puts a task named id, asking a question, in the agent's store.
func (ra *restAgent) waiting(t *testing.T, id a2a.TaskID) {
	t.Helper()
	ctx, cc := a2asrv.NewCallContext(t.Context(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	now := time.Now()
	q := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("Which branch?"))
	task := &a2a.Task{ID: id, ContextID: a2a.NewContextID(), Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired, Message: q, Timestamp: &now}}
	if _, err := ra.store.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
}

// TestReplyTaskIDIsOnePathSegment: `a2atop reply` on an HTTP+JSON agent
// with a task whose id looks like a path reaches exactly the A2A routes,
// the id one segment of them, and answers the task; an id it cannot send
// is refused in words (exit 2) before anything reaches the agent.
func TestReplyTaskIDIsOnePathSegment(t *testing.T) {
	dir := isolate(t)
	ra := startRESTAgent(t)
	const hostile = a2a.TaskID("../../secret-admin?delete=all")
	ra.waiting(t, hostile)
	cfg := writeConfig(t, dir, []demo.Agent{{Name: "rest", URL: ra.url}})
	ctx := context.Background()

	code, out, errOut := runCmd(ctx, "reply", "--config", cfg, "rest", string(hostile), "--text", "main")
	hits, stray := ra.seen()
	t.Logf("reply: %d\n%s%s\non the wire: %q", code, out, errOut, hits)
	if code != exitOK || !strings.Contains(out, "reply → rest") {
		t.Errorf("reply on %q: %d\n%s%s", hostile, code, out, errOut)
	}
	if !slices.Contains(hits, "GET /rest/tasks/..%2F..%2Fsecret-admin%3Fdelete%3Dall") || !slices.Contains(hits, "POST /rest/message:send") {
		t.Errorf("the reply's requests: %q; want GetTask and SendMessage on the task", hits)
	}
	if len(stray) > 0 {
		t.Errorf("requests outside the A2A routes: %q", stray)
	}

	for id, why := range map[string]string{"a\x1b]0;owned\x07": "holds a control character", strings.Repeat("x", model.MaxIDBytes+1): "is longer than", "..": "is a dot segment"} {
		before, _ := ra.seen()
		code, out, errOut := runCmd(ctx, "reply", "--config", cfg, "rest", id, "--text", "main")
		after, _ := ra.seen()
		if code != exitUsage || !strings.Contains(errOut, "TASK: task id ") || !strings.Contains(errOut, why) || len(after) != len(before) {
			t.Errorf("reply on %s: %d %s%s, %d requests; want exit 2 saying it %s, none sent", model.QuoteID(id), code, out, errOut, len(after)-len(before), why)
		}
		if strings.Contains(errOut, "\x1b") {
			t.Errorf("the refusal prints the control character raw: %q", errOut)
		}
	}
}
