package sdktest

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

	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// RouteGuard stands in front of a test agent's handlers on the same
// server. The A2A routes (the card, JSON-RPC at /invoke, HTTP+JSON 1.0
// under /rest and 0.3 under /rest03/v1) go on to the agent, each request
// recorded with the ids the SDK's server reads from its path; any other
// path on the agent's origin is a stray: recorded and answered 404.
type RouteGuard struct {
	mu     sync.Mutex
	hits   []RouteHit
	strays []string // "METHOD request-URI" as it arrived
}

// RouteHit is one request on an A2A route.
type RouteHit struct {
	Route  string // the route's pattern
	Wire   string // "METHOD request-URI" as it arrived
	ID     string // {id} or {idAndAction}, as the server decodes it
	Config string // {configId}
	TaskID string // the body's task: a message's taskId, a push config's taskId or 0.3 parent
}

// A2ARoutes are the routes of the agents Start serves, by pattern.
func A2ARoutes() []string {
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

// Wrap is the guard in front of next, for Start's wrap.
func (g *RouteGuard) Wrap(next http.Handler) http.Handler {
	mux := http.NewServeMux()
	for _, route := range A2ARoutes() {
		mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
			h := RouteHit{Route: route, Wire: r.Method + " " + r.RequestURI,
				ID: r.PathValue("id") + r.PathValue("idAndAction"), Config: r.PathValue("configId")}
			if r.Method == http.MethodPost {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				h.TaskID = bodyTask(body)
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

// StrayRequests returns the requests outside the A2A routes so far.
func (g *RouteGuard) StrayRequests() []string {
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

// Count is how many requests came on routes ending in route (as hit).
func (g *RouteGuard) Count(route string) int {
	method, suffix, ok := strings.Cut(route, " ")
	if !ok {
		method, suffix = "", route
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, h := range g.hits {
		if strings.HasPrefix(h.Route, method) && strings.HasSuffix(h.Route, suffix) {
			n++
		}
	}
	return n
}

// CountID is how many requests named task id in their path.
func (g *RouteGuard) CountID(id string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, h := range g.hits {
		if strings.HasPrefix(h.ID, id) {
			n++
		}
	}
	return n
}

// FirstFew is at most the first 10 of s.
func FirstFew(s []string) []string { return s[:min(len(s), 10)] }

// Hit returns the first request on a route ending in route ("GET
// /tasks/{idAndAction}": that method only) whose path ids are id and
// config, and whether there was one.
func (g *RouteGuard) Hit(route, id, config string) (RouteHit, bool) {
	method, suffix, ok := strings.Cut(route, " ")
	if !ok {
		method, suffix = "", route
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, h := range g.hits {
		if strings.HasPrefix(h.Route, method) && strings.HasSuffix(h.Route, suffix) && h.ID == id && h.Config == config {
			return h, true
		}
	}
	return RouteHit{}, false
}

// WaitHit waits for Hit(route, id, config).
func (g *RouteGuard) WaitHit(t *testing.T, route, id, config string) RouteHit {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if h, ok := g.Hit(route, id, config); ok {
			return h
		}
		time.Sleep(10 * time.Millisecond)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, h := range g.hits {
		if h.ID != "" {
			t.Logf("on a route: %s (%s) id=%q config=%q", h.Wire, h.Route, h.ID, h.Config)
		}
	}
	t.Fatalf("no request on %s with id %q, config %q; strays: %q", route, id, config, FirstFew(g.strays))
	return RouteHit{}
}
