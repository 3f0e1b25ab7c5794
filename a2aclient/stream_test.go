package a2aclient

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

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
		kind sdktest.Kind
		wrap func(http.Handler) http.Handler
		want string
	}{
		{"jsonrpc-a2a", sdktest.JSONRPC, nil, "stream: unauthorized"},
		{"rest-a2a", sdktest.REST, nil, "stream: unauthorized"},
		{"grpc-a2a", sdktest.GRPC, nil, "stream: unauthorized"},
		{"rest-http401", sdktest.REST, bare(http.StatusUnauthorized), "stream: unauthorized (HTTP 401)"},
		{"rest-http403", sdktest.REST, bare(http.StatusForbidden), "stream: forbidden (HTTP 403)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := sdktest.Start(t, tc.kind, true, tc.wrap)
			a.Icpt.DenySub = tc.wrap == nil
			_, c := runManager(t, []AgentOptions{fast("a", a.URL())}, Options{})
			held := a.Send(t, "hold")
			c.waitFor(t, "the refusal on the agent's row", 5*time.Second, func(evs []model.Event) bool {
				h := lastHealth(evs, "a")
				return h != nil && h.State.Up() && strings.Contains(h.Err, tc.want)
			})
			for _, e := range c.snapshot() {
				if e.Kind == model.EventHealth && !e.Health.State.Up() && e.Health.State != model.HealthConnecting {
					t.Errorf("health went %s (%q); only streams are refused", e.Health.State, e.Health.Err)
				}
			}
			a.Exec.Release()
			c.waitFor(t, "completion by sweeps", 5*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", held, a2a.TaskStateCompleted)
			})
		})
	}
}
