package a2aclient

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// errTimeout is what waitFor reports when what it waits for never came.
var errTimeout = errors.New("timed out waiting")

// collector drains a Manager's events like the UI would.
type collector struct {
	mu     sync.Mutex
	events []model.Event
}

func runManager(t *testing.T, agents []AgentOptions, o Options) (*Manager, *collector) {
	t.Helper()
	m := New(agents, o)
	c := &collector{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		m.Run(ctx)
		close(done)
	}()
	go func() {
		for {
			select {
			case ev := <-m.Events():
				c.mu.Lock()
				c.events = append(c.events, ev)
				c.mu.Unlock()
			case <-done:
				return
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			var b strings.Builder
			pprof.Lookup("goroutine").WriteTo(&b, 1)
			t.Errorf("Run did not return after cancel:\n%s", b.String())
		}
	})
	return m, c
}

func (c *collector) snapshot() []model.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]model.Event(nil), c.events...)
}

// waitFor polls until f holds over the events so far.
func (c *collector) waitFor(t *testing.T, what string, d time.Duration, f func([]model.Event) bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if f(c.snapshot()) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: %v; last events:\n%s", what, errTimeout, dump(c.snapshot()))
}

func dump(evs []model.Event) string {
	s := ""
	for i, e := range evs {
		if i < len(evs)-30 {
			continue
		}
		s += describeEvent(e) + "\n"
	}
	return s
}

func describeEvent(e model.Event) string {
	switch e.Kind {
	case model.EventTask:
		return e.Agent + " task " + string(e.Task.ID) + " " + string(e.Task.Status.State) + " via " + e.Source.String()
	case model.EventStatus:
		return e.Agent + " status " + string(e.Status.TaskID) + " " + string(e.Status.Status.State)
	case model.EventArtifact:
		return e.Agent + " artifact " + string(e.Artifact.TaskID)
	case model.EventHealth:
		return e.Agent + " health " + e.Health.State.String() + " " + e.Health.Err + " " + e.Health.ListingNote
	case model.EventAgent:
		return e.Agent + " agent " + e.Info.Binding + " " + e.Info.ProtocolVersion
	case model.EventGone:
		return e.Agent + " gone " + string(e.Task.ID)
	}
	return "?"
}

// hasTask reports whether a snapshot or status of id in state st (any
// state if "") from agent was seen.
func hasTask(evs []model.Event, agent string, id a2a.TaskID, st a2a.TaskState) bool {
	for _, e := range evs {
		if e.Agent != agent {
			continue
		}
		switch {
		case e.Kind == model.EventTask && e.Task.ID == id && (st == "" || e.Task.Status.State == st):
			return true
		case e.Kind == model.EventStatus && e.Status.TaskID == id && (st == "" || e.Status.Status.State == st):
			return true
		}
	}
	return false
}

func lastHealth(evs []model.Event, agent string) *model.HealthUpdate {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Agent == agent && evs[i].Kind == model.EventHealth {
			return evs[i].Health
		}
	}
	return nil
}

func healthIs(agent string, st model.Health) func([]model.Event) bool {
	return func(evs []model.Event) bool {
		h := lastHealth(evs, agent)
		return h != nil && h.State == st
	}
}

// fast are options with short intervals for tests.
func fast(name, url string) AgentOptions {
	return AgentOptions{Name: name, URL: url, SweepInterval: 40 * time.Millisecond,
		FullResync: time.Hour, Subscribe: true, CallTimeout: 5 * time.Second}
}

// asInterface is errors.As for an interface target.
func asInterface[T any](err error, target *T) bool { return errors.As(err, target) }

// TestMain silences the SDK servers' logs (they log refused cancels etc.
// through slog.Default).
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	os.Exit(m.Run())
}
