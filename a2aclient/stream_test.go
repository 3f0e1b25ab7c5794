package a2aclient

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// A Go server answers SubscribeToTask on an INPUT_REQUIRED task with
// -32001 (TaskNotFound) "no active execution", on every binding. GetTask
// then finds the task: that is normal, so the agent's row shows no error,
// the task is not reported gone, and it is left to sweeps.
func TestNoActiveExecutionIsQuiet(t *testing.T) {
	for _, kind := range []agentKind{kindJSONRPC, kindREST, kindGRPC} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startAgent(t, kind, true, nil)
			// In the store with no execution: what an INPUT_REQUIRED task
			// is once its execution ended, without racing that end.
			ask := a.createInStore(t, a2a.TaskStateInputRequired)
			m, c := runManager(t, []AgentOptions{fast("a", a.url())}, Options{})
			c.waitFor(t, "the INPUT_REQUIRED task", 5*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", ask, a2a.TaskStateInputRequired)
			})
			c.waitFor(t, "SubscribeToTask refused with TaskNotFound", 5*time.Second, func([]model.Event) bool {
				return countRefusals(m.Capture("a")) > 0
			})
			n := len(c.snapshot())
			c.waitFor(t, "two more rounds", 5*time.Second, func(evs []model.Event) bool {
				rounds := 0
				for _, e := range evs[n:] {
					if e.Kind == model.EventHealth && e.Health.State.Up() {
						rounds++
					}
				}
				return rounds >= 2
			})
			for _, e := range c.snapshot() {
				switch {
				case e.Kind == model.EventHealth && e.Health.Err != "":
					t.Errorf("health error %q (%s); a refused subscribe on a task GetTask finds is normal", e.Health.Err, e.Health.State)
				case e.Kind == model.EventGone:
					t.Errorf("task %s reported gone", e.Task.ID)
				}
			}
		})
	}
}

// countRefusals counts SubscribeToTask exchanges a Go server refused with
// "no active execution" (JSON-RPC -32001 and REST NOT_FOUND in an SSE
// frame, gRPC NotFound).
func countRefusals(ex []model.Exchange) int {
	n := 0
	for _, e := range ex {
		if e.RPC == "SubscribeToTask" && strings.Contains(e.Response+e.Err, "no active execution") {
			n++
		}
	}
	return n
}

// Credentials refused for SubscribeToTask alone (an A2A ErrUnauthenticated
// from the server on every binding, or a bare HTTP 401/403 in front of it)
// show on the agent's row in the words of any auth failure; the agent
// stays up and its tasks fresh, as sweeps and GetTask still work.
func TestSubscribeAuthFailureShows(t *testing.T) {
	bare := func(status int) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, ":subscribe") {
					http.Error(w, http.StatusText(status), status)
					return
				}
				next.ServeHTTP(w, r)
			})
		}
	}
	for _, tc := range []struct {
		name string
		kind agentKind
		wrap func(http.Handler) http.Handler
		want string
	}{
		{"jsonrpc-a2a", kindJSONRPC, nil, "stream: unauthorized"},
		{"rest-a2a", kindREST, nil, "stream: unauthorized"},
		{"grpc-a2a", kindGRPC, nil, "stream: unauthorized"},
		{"rest-http401", kindREST, bare(http.StatusUnauthorized), "stream: unauthorized (HTTP 401)"},
		{"rest-http403", kindREST, bare(http.StatusForbidden), "stream: forbidden (HTTP 403)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := startAgent(t, tc.kind, true, tc.wrap)
			a.icpt.denySub = tc.wrap == nil
			_, c := runManager(t, []AgentOptions{fast("a", a.url())}, Options{})
			held := a.send(t, "hold")
			c.waitFor(t, "the refusal on the agent's row", 5*time.Second, func(evs []model.Event) bool {
				h := lastHealth(evs, "a")
				return h != nil && h.State.Up() && strings.Contains(h.Err, tc.want)
			})
			for _, e := range c.snapshot() {
				if e.Kind == model.EventHealth && !e.Health.State.Up() && e.Health.State != model.HealthConnecting {
					t.Errorf("health went %s (%q); only streams are refused", e.Health.State, e.Health.Err)
				}
			}
			a.exec.release()
			c.waitFor(t, "completion by sweeps", 5*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", held, a2a.TaskStateCompleted)
			})
		})
	}
}
