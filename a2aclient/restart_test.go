package a2aclient

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// restartEmpty stops the agent and starts it again on the same port as
// a new process would: a new handler on an empty task store.
func restartEmpty(a *sdktest.Agent) {
	a.T.Helper()
	a.Stop()
	a.Store = taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: a2asrv.NewTaskStoreAuthenticator()})
	a.H = a2asrv.NewHandler(a.Exec, a2asrv.WithTaskStore(a.Store), a2asrv.WithCallInterceptors(a.Icpt),
		a2asrv.WithAgentInactivityTimeout(20*time.Second))
	a.Start()
}

// countHealth is how many health events of agent said st.
func countHealth(evs []model.Event, agent string, st model.Health) int {
	n := 0
	for _, e := range evs {
		if e.Agent == agent && e.Kind == model.EventHealth && e.Health.State == st {
			n++
		}
	}
	return n
}

// healthUp reports whether agent's last health event says it is up.
func healthUp(agent string) func([]model.Event) bool {
	return func(evs []model.Event) bool {
		h := lastHealth(evs, agent)
		return h != nil && h.State.Up()
	}
}

// An agent that was away long enough for many attempts to fail, then
// restarted on the same port as a new process, is seen answering again
// within a few sweep intervals: the wait between attempts at an agent
// that cannot be reached no longer doubles towards a minute (after seven
// failures it was 32 to 64 sweep intervals, here 3.2 to 6.4 s; the
// deadline is 2 s). The tasks the new process does not know are marked
// gone and leave the active panes.
func TestAgentRestartRecoversWithinSweeps(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "swept", true: "streamed"}[stream]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := sdktest.Start(t, sdktest.JSONRPC, stream, nil)
			o := fast("a", a.URL())
			o.SweepInterval = 100 * time.Millisecond
			o.Subscribe = stream
			_, c := runManager(t, []AgentOptions{o}, Options{})
			var lost a2a.TaskID
			if stream {
				lost = a.Send(t, "hold")
				c.waitFor(t, "streaming", 5*time.Second, healthIs("a", model.HealthStreaming))
			} else {
				lost = a.CreateInStore(t, a2a.TaskStateWorking)
				c.waitFor(t, "the task", 5*time.Second, func(evs []model.Event) bool {
					return hasTask(evs, "a", lost, a2a.TaskStateWorking)
				})
			}
			a.Stop()
			c.waitFor(t, "seven failed attempts", 30*time.Second, func(evs []model.Event) bool {
				return countHealth(evs, "a", model.HealthUnreachable) >= 7
			})
			restartEmpty(a)
			back := time.Now()
			c.waitFor(t, "reachable again", 2*time.Second, healthUp("a"))
			t.Logf("reachable again %s after the agent was back", time.Since(back).Round(time.Millisecond))
			c.waitFor(t, "the lost task gone", 5*time.Second, func(evs []model.Event) bool {
				for _, e := range evs {
					if e.Kind == model.EventGone && e.Task.ID == lost {
						return true
					}
				}
				return false
			})
			f := model.NewFleet(model.Options{})
			f.Apply(c.snapshot())
			tk := f.Task(model.TaskKey{Agent: "a", ID: lost})
			if tk == nil || !tk.Gone {
				t.Fatalf("the lost task in the fleet: %+v, want it held and gone", tk)
			}
			if n := f.Count(model.ClassActive, model.Query{}); n != 0 || tk.Class == model.ClassActive {
				t.Errorf("the active pane holds %d tasks, the gone one in class %v: a gone task should leave it", n, tk.Class)
			}
		})
	}
}

// The same behind a gateway that answers 503 while the agent behind it
// restarts: the agent is seen answering within a few sweep intervals of
// the gateway letting requests through again.
func TestGatewayOutageRecoversWithinSweeps(t *testing.T) {
	var down atomic.Bool
	gateway := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if down.Load() {
				http.Error(w, "no healthy upstream", http.StatusServiceUnavailable)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	a := sdktest.Start(t, sdktest.JSONRPC, false, gateway)
	o := fast("a", a.URL())
	o.SweepInterval = 100 * time.Millisecond
	o.Subscribe = false
	_, c := runManager(t, []AgentOptions{o}, Options{})
	c.waitFor(t, "sweeping", 5*time.Second, healthIs("a", model.HealthSweeping))
	down.Store(true)
	c.waitFor(t, "seven failed attempts", 30*time.Second, func(evs []model.Event) bool {
		return countHealth(evs, "a", model.HealthBackoff) >= 7
	})
	down.Store(false)
	back := time.Now()
	c.waitFor(t, "reachable again", 2*time.Second, healthUp("a"))
	t.Logf("reachable again %s after the gateway was", time.Since(back).Round(time.Millisecond))
}

// An agent that restarts on an empty store between two sweeps, so that
// no request of the watcher fails: the streamed task's stream breaks and
// is found gone, and that is reason enough to look for the others the
// new process lost at the next sweep, not at the next full resync (an
// hour here): the other task, waiting for a person, has no stream.
func TestQuickRestartFindsEveryLostTask(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, true, nil)
	o := fast("a", a.URL())
	o.SweepInterval = 500 * time.Millisecond
	_, c := runManager(t, []AgentOptions{o}, Options{})
	streamed := a.Send(t, "hold")
	c.waitFor(t, "streaming", 5*time.Second, healthIs("a", model.HealthStreaming))
	swept := a.CreateInStore(t, a2a.TaskStateInputRequired) // no execution runs it: no stream
	c.waitFor(t, "the second task", 5*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "a", swept, a2a.TaskStateInputRequired)
	})
	restartEmpty(a)
	c.waitFor(t, "both tasks gone", 10*time.Second, func(evs []model.Event) bool {
		gone := map[a2a.TaskID]bool{}
		for _, e := range evs {
			if e.Kind == model.EventGone {
				gone[e.Task.ID] = true
			}
		}
		return gone[streamed] && gone[swept]
	})
}
