package a2aclient

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"a2atop/internal/agenttest"
	"a2atop/internal/sdktest"
	"a2atop/model"
)

// vmHWM reads the process's peak resident set, after resetRSSPeak.
func vmHWM() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

func resetRSSPeak() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// maxAttackHeap is what the heap may reach while one hostile agent lists
// without end next to a healthy one: what the bounds let in flight (a
// few pages of at most max_message_bytes, decoded), what they let be
// kept (10,000 open tasks, max_agent_bytes of their content) and the
// garbage the collector has not yet taken. Before the bounds, each
// attack passed it within seconds.
const maxAttackHeap = 400 << 20

// attackPages is how many pages each attack offers at most, enough to
// pass maxAttackHeap with nothing bounding it: 400 tokens of 1 MiB, 40
// pages of 20,000 tasks, 120 messages of 4 MiB.
var attackPages = map[string]int64{agenttest.ListTokens: 400, agenttest.ListOpen: 40, agenttest.ListPadded: 120}

// A hostile agent whose listing never ends (new page tokens of 1 MiB,
// pages of 20,000 new open tasks, pages of 4 MiB messages) is an error or
// a cap on its own row; the heap stays under a bound however long it
// lasts; and the healthy agent beside it is untouched. The consumer is a
// model.Fleet, as in the dashboard. Each attack runs until the agent has
// offered attackPages pages, or its row has shown the bound for a second,
// or 60 s passed (a loaded machine decodes 4 MiB pages slowly: 25 of them
// took 21 s with other suites running); with A2ATOP_ATTACK_SECONDS=N, for N seconds whatever
// happens (for the figures in BENCHMARKS.md).
func TestHostileListingMemoryBounded(t *testing.T) {
	skipUnderRace(t, "a memory bound")
	for _, mode := range []string{agenttest.ListTokens, agenttest.ListOpen, agenttest.ListPadded} {
		t.Run(mode, func(t *testing.T) {
			bad := agenttest.StartLister(t, mode)
			good := sdktest.Start(t, sdktest.JSONRPC, false, nil)
			ask := good.Send(t, "ask")
			ob := fast("bad", bad.URL)
			m := New([]AgentOptions{ob, fast("good", good.URL())}, Options{})
			fleet := model.NewFleet(model.Options{})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { m.Run(ctx); close(done) }()
			applied := make(chan struct{})
			var badHealth atomic.Pointer[model.HealthUpdate]
			go func() { // the dashboard's loop: batches into the fleet
				defer close(applied)
				for {
					select {
					case <-done:
						return
					case ev := <-m.Events():
						batch := []model.Event{ev}
						for more := true; more; {
							select {
							case e := <-m.Events():
								batch = append(batch, e)
							default:
								more = false
							}
						}
						fleet.Apply(batch)
						if a := fleet.Agent("bad"); a != nil {
							h := a.Health
							badHealth.Store(&h)
						}
					}
				}
			}()
			runtime.GC()
			resetRSSPeak()
			s := agenttest.SampleHeap()
			start := time.Now()
			limit, pages := 60*time.Second, attackPages[mode]
			fixed, _ := strconv.Atoi(os.Getenv("A2ATOP_ATTACK_SECONDS"))
			if fixed > 0 {
				limit, pages = time.Duration(fixed)*time.Second, 1<<62
			}
			var shown time.Time
			for bad.Pages() < pages && time.Since(start) < limit &&
				(fixed > 0 || shown.IsZero() || time.Since(shown) < time.Second) {
				if h := badHealth.Load(); shown.IsZero() && h != nil && h.Err != "" {
					shown = time.Now()
				}
				time.Sleep(20 * time.Millisecond)
			}
			peak := s.Stop()
			cancel()
			<-done
			<-applied
			t.Logf("%s: %d pages served in %s; peak heap in use %d MiB; peak RSS %s; fleet %d tasks",
				mode, bad.Pages(), time.Since(start).Round(time.Millisecond), peak>>20, vmHWM(), fleet.Len())
			if peak > maxAttackHeap {
				t.Errorf("peak heap %d MiB, past %d MiB", peak>>20, maxAttackHeap>>20)
			}
			b, g := fleet.Agent("bad"), fleet.Agent("good")
			if b == nil || b.Health.Err == "" {
				t.Errorf("the hostile agent's row shows no error")
			} else {
				t.Logf("hostile row: %s: %s (%v, good %v)", b.Health.State, b.Health.Err, b.Counts, g.Counts)
			}
			if g == nil || !g.Health.State.Up() || g.Health.Err != "" || fleet.Task(model.TaskKey{Agent: "good", ID: ask}) == nil {
				t.Errorf("the healthy agent was disturbed")
			}
		})
	}
}
