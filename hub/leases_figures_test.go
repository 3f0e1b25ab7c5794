package hub_test

import (
	"flag"
	"fmt"
	"slices"
	"testing"
	"time"

	"a2atop/approvals/jetstore"
	"a2atop/hub"
)

var leaseFigures = flag.Bool("leases.figures", false, "measure the watch leases' takeover times (TestLeaseTakeoverFigures)")

// TestLeaseTakeoverFigures measures, for the note and BENCHMARKS.md, how
// long the agents of a stopped hub go unwatched: three hubs on a real
// three-node JetStream cluster over six demo agents, the default lease
// TTL; 20 times the hub holding the most leases stops and a new hub
// takes its place. Two ways: a hub that stops (Run cancelled, Close: it
// gives its leases up), and a hub that dies (its connection to the
// cluster closed first: its leases lapse). The time runs from the stop
// to the moment every agent it watched has been asked ListTasks by its
// new watcher. It asserts no time. It runs only with -leases.figures:
//
//	go test ./hub -run TestLeaseTakeoverFigures -leases.figures -v
func TestLeaseTakeoverFigures(t *testing.T) {
	if !*leaseFigures {
		t.Skip("figures: add -leases.figures")
	}
	const stops = 20
	agents := startCountedAgents(t, 6)
	c := startNATSCluster(t)
	n := 0
	stores := map[*fixture]*jetstore.Store{}
	next := func() *fixture {
		n++
		name := fmt.Sprintf("hub%d", n)
		st, j := c.shared(t, name)
		fx := teamHubOn(t, st, j, agents, name, hub.DefaultLeaseTTL)
		stores[fx] = st
		return fx
	}
	fxs := []*fixture{next(), next(), next()}
	for _, dies := range []bool{false, true} {
		var took []time.Duration
		for range stops {
			waitSpread(t, fxs, agents)
			waitFleets(t, fxs, agents)
			k := most(fxs)
			orphans := fxs[k].h.Watching()
			start := time.Now()
			if dies {
				_ = stores[fxs[k]].Close()
			}
			fxs[k].stop()
			before := map[string]int{}
			for _, a := range agents {
				before[a.name] = a.count("ListTasks")
			}
			fxs[k] = nil
			waitCond(t, "the orphaned agents swept by their new watchers", func() bool {
				w := watchers(fxs)
				for _, a := range agents {
					if slices.Contains(orphans, a.name) && (len(w[a.name]) != 1 || a.count("ListTasks") == before[a.name]) {
						return false
					}
				}
				return true
			})
			took = append(took, time.Since(start))
			fxs[k] = next()
		}
		slices.Sort(took)
		how := "stops (gives its leases up)"
		if dies {
			how = "dies (its leases lapse)"
		}
		t.Logf("a hub that %s: its agents watched again after p50 %s, p99 %s, max %s (%d stops, lease TTL %s, 3 hubs, 6 agents)",
			how, took[len(took)/2].Round(time.Millisecond), took[len(took)*99/100].Round(time.Millisecond),
			took[len(took)-1].Round(time.Millisecond), stops, hub.DefaultLeaseTTL)
	}
}
