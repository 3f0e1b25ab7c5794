package a2aclient

import (
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	srvpush "github.com/a2aproject/a2a-go/v2/a2asrv/push"

	"a2atop/internal/sdktest"
	"a2atop/push"
)

// hostileIDs is a push config store that names every config it saves
// with an id of its own choosing, one that reads as a path: what an
// agent answers, a2atop must not put into a URL.
type hostileIDs struct {
	*srvpush.InMemoryPushConfigStore
	id    string
	mu    sync.Mutex
	saved int
}

func (s *hostileIDs) Save(ctx context.Context, task a2a.TaskID, c *a2a.PushConfig) (*a2a.PushConfig, error) {
	cp := *c
	cp.ID = s.id
	s.mu.Lock()
	s.saved++
	s.mu.Unlock()
	return s.InMemoryPushConfigStore.Save(ctx, task, &cp)
}

func (s *hostileIDs) savedN() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saved
}

// noPush sends nothing: the test is about what a2atop asks the agent.
type noPush struct{}

func (noPush) SendPush(context.Context, *a2a.PushConfig, a2a.Event) error { return nil }

// askOnce asks a question, and completes on the answer.
type askOnce struct{}

func (askOnce) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask != nil {
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
			return
		}
		if yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("which branch?"))), nil)
		}
	}
}

func (askOnce) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// TestPushConfigIDsStayInTheirPath: an agent behind a gateway (its REST
// interface under /agents/foo/) that names a2atop's push config with an
// id that reads as a path ("../../../../../bar/…") never gets a request
// outside its own interface from a2atop: the id is never put into a URL.
// The config is left to end with its task.
func TestPushConfigIDsStayInTheirPath(t *testing.T) {
	store := &hostileIDs{InMemoryPushConfigStore: srvpush.NewInMemoryStore(), id: "a2atop-x/../../../../../bar/tasks/t/pushNotificationConfigs/y"}
	h := a2asrv.NewHandler(askOnce{}, a2asrv.WithPushNotifications(store, noPush{}), a2asrv.WithCallInterceptors(&sdktest.Interceptor{}))
	tester := func() context.Context { // the agent's own calls, as the user a2atop's are
		ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
		cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
		return ctx
	}
	var mu sync.Mutex
	var stray []string
	mux := http.NewServeMux()
	mux.Handle("/agents/foo/", http.StripPrefix("/agents/foo", a2asrv.NewRESTHandler(h)))
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	card := &a2a.AgentCard{Name: "foo", Description: "an agent behind a gateway", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(base+"/agents/foo", a2a.TransportProtocolHTTPJSON)},
		Capabilities:        a2a.AgentCapabilities{PushNotifications: true},
		DefaultInputModes:   []string{"text"}, DefaultOutputModes: []string{"text"}}
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/agents/foo/") && r.URL.Path != a2asrv.WellKnownAgentCardPath {
			mu.Lock()
			stray = append(stray, r.Method+" "+r.URL.Path)
			mu.Unlock()
		}
		mux.ServeHTTP(w, r)
	})
	srv.Start()
	t.Cleanup(srv.Close)

	res, err := h.SendMessage(tester(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ask"))})
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*a2a.Task)

	m := New([]AgentOptions{{Name: "foo", URL: base, SweepInterval: 50 * time.Millisecond}}, Options{})
	recv := push.New(push.Options{PublicURL: "http://127.0.0.1:9", Agents: []string{"foo"}, Sink: m})
	m.UsePush(recv)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { m.Run(ctx); close(ran) }()
	go func() {
		for {
			select {
			case <-m.Events():
			case <-ran:
				return
			}
		}
	}()
	eventually := func(what string, cond func() bool) {
		t.Helper()
		for end := time.Now().Add(30 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("%s: never happened", what)
			}
		}
	}
	eventually("a2atop registers a config", func() bool { return store.savedN() > 0 })
	answer := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("main"))
	answer.TaskID = task.ID
	if _, err := h.SendMessage(tester(), &a2a.SendMessageRequest{Message: answer}); err != nil {
		t.Fatal(err)
	}
	eventually("the config retired once the task ended", func() bool { return recv.Health("foo").Configs == 0 })
	cancel()
	<-ran // a2atop's cleanup on stop has run too
	mu.Lock()
	defer mu.Unlock()
	if len(stray) > 0 {
		t.Errorf("a2atop sent requests outside the agent's interface, built from the config id the agent chose: %v", stray)
	}
}
