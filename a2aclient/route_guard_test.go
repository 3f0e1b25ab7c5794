package a2aclient

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"a2atop/internal/sdktest"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
)

// routeGuard stands in front of a test agent's handlers on the same
// server. The A2A routes (the card, JSON-RPC at /invoke, HTTP+JSON 1.0
// under /rest and 0.3 under /rest03/v1) go on to the agent, each request
// recorded with the ids the SDK's server reads from its path; any other
// path on the agent's origin is a stray: recorded and answered 404.
type routeGuard struct {
	mu     sync.Mutex
	hits   []routeHit
	strays []string // "METHOD request-URI" as it arrived
}

// routeHit is one request on an A2A route.
type routeHit struct {
	route  string // the route's pattern
	wire   string // "METHOD request-URI" as it arrived
	id     string // {id} or {idAndAction}, as the server decodes it
	config string // {configId}
	taskID string // the body's task: a message's taskId, a push config's taskId or 0.3 parent
}

// a2aRoutes are the routes of the agents sdktest.Start serves, by pattern.
func a2aRoutes() []string {
	routes := []string{"GET " + a2asrv.WellKnownAgentCardPath, "POST /invoke"}
	for _, p := range []string{"/rest", "/rest03/v1"} {
		routes = append(routes,
			"POST "+p+"/message:send", "POST "+p+"/message:stream", "GET "+p+"/tasks",
			"GET "+p+"/tasks/{idAndAction}", "POST "+p+"/tasks/{idAndAction}",
			"POST "+p+"/tasks/{id}/pushNotificationConfigs", "GET "+p+"/tasks/{id}/pushNotificationConfigs",
			"GET "+p+"/tasks/{id}/pushNotificationConfigs/{configId}",
			"DELETE "+p+"/tasks/{id}/pushNotificationConfigs/{configId}",
			"GET "+p+"/extendedAgentCard")
	}
	return routes
}

func (g *routeGuard) wrap(next http.Handler) http.Handler {
	mux := http.NewServeMux()
	for _, route := range a2aRoutes() {
		mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
			h := routeHit{route: route, wire: r.Method + " " + r.RequestURI,
				id: r.PathValue("id") + r.PathValue("idAndAction"), config: r.PathValue("configId")}
			if r.Method == http.MethodPost {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				h.taskID = bodyTask(body)
			}
			g.mu.Lock()
			g.hits = append(g.hits, h)
			g.mu.Unlock()
			next.ServeHTTP(w, r)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.strays = append(g.strays, r.Method+" "+r.RequestURI)
		g.mu.Unlock()
		http.Error(w, "not an A2A route", http.StatusNotFound)
	})
	return mux
}

func (g *routeGuard) strayRequests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.strays)
}

// bodyTask returns the task a request body names: a message's taskId,
// a push config's taskId (1.0) or parent "tasks/{id}" (0.3).
func bodyTask(body []byte) string {
	var b struct {
		Message struct {
			TaskID string `json:"taskId"`
		} `json:"message"`
		TaskID string `json:"taskId"`
		Parent string `json:"parent"`
	}
	_ = json.Unmarshal(body, &b)
	switch {
	case b.Message.TaskID != "":
		return b.Message.TaskID
	case b.TaskID != "":
		return b.TaskID
	}
	return strings.TrimPrefix(b.Parent, "tasks/")
}

// withPush restarts the agent (same port, same store) with push
// notifications: an in-memory config store whose configs are never
// delivered (the test's tasks do not change).
func withPush(a *sdktest.Agent, t *testing.T) {
	t.Helper()
	a.Stop()
	a.H = a2asrv.NewHandler(a.Exec, a2asrv.WithTaskStore(a.Store), a2asrv.WithCallInterceptors(a.Icpt),
		a2asrv.WithPushNotifications(push.NewInMemoryStore(), push.NewHTTPPushSender(&push.HTTPSenderConfig{Timeout: time.Second})))
	a.Card.Capabilities.PushNotifications = true
	a.Start()
}

// count is how many requests came on routes ending in route (as hit).
func (g *routeGuard) count(route string) int {
	method, suffix, ok := strings.Cut(route, " ")
	if !ok {
		method, suffix = "", route
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, h := range g.hits {
		if strings.HasPrefix(h.route, method) && strings.HasSuffix(h.route, suffix) {
			n++
		}
	}
	return n
}

// countID is how many requests named task id in their path.
func (g *routeGuard) countID(id string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, h := range g.hits {
		if strings.HasPrefix(h.id, id) {
			n++
		}
	}
	return n
}

// firstFew is at most the first 10 of s.
func firstFew(s []string) []string { return s[:min(len(s), 10)] }

// hit returns the first request on a route ending in route ("GET
// /tasks/{idAndAction}": that method only) whose path ids are id and
// config, and whether there was one.
func (g *routeGuard) hit(route, id, config string) (routeHit, bool) {
	method, suffix, ok := strings.Cut(route, " ")
	if !ok {
		method, suffix = "", route
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, h := range g.hits {
		if strings.HasPrefix(h.route, method) && strings.HasSuffix(h.route, suffix) && h.id == id && h.config == config {
			return h, true
		}
	}
	return routeHit{}, false
}

// waitHit waits for hit(route, id, config).
func (g *routeGuard) waitHit(t *testing.T, route, id, config string) routeHit {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if h, ok := g.hit(route, id, config); ok {
			return h
		}
		time.Sleep(10 * time.Millisecond)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, h := range g.hits {
		if h.id != "" {
			t.Logf("on a route: %s (%s) id=%q config=%q", h.wire, h.route, h.id, h.config)
		}
	}
	t.Fatalf("no request on %s with id %q, config %q; strays: %q", route, id, config, firstFew(g.strays))
	return routeHit{}
}

// createInStoreAs adds a task named id straight into the agent's store,
// as the agent's user: the agent's own ListTasks then lists it.
func createInStoreAs(a *sdktest.Agent, t testing.TB, id a2a.TaskID, st a2a.TaskState) {
	t.Helper()
	ctx, cc := a2asrv.NewCallContext(t.Context(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	now := time.Now()
	task := &a2a.Task{ID: id, ContextID: a2a.NewContextID(), Status: a2a.TaskStatus{State: st, Timestamp: &now}}
	if _, err := a.Store.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
}
