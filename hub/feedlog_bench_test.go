package hub_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"testing"

	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/model"
)

// TestMeasureHubRetainedPerDecision makes decisions through the real hub
// over HTTP (a real SDK agent asks, an attached dashboard replies through
// the hub, the agent completes), then three times as many more, and logs
// the process's retained heap per decision between the two points of
// rest (runtime.GC, then HeapAlloc) and what the hub's feed log holds of
// the journal. The agent shares the heap and its task store keeps every
// task, so the heap figure is an upper bound on the hub's; the feed log's
// own share is the feed's bytes per decision. A measurement, not a bound
// (it checks only that every decision is accepted): it runs when
// A2ATOP_MEASURE_DECISIONS names N (e.g. 250, then 4N in all), with
// A2ATOP_MEASURE_MEMORY as journal_memory (0, the default: 10,000):
//
//	A2ATOP_MEASURE_DECISIONS=250 A2ATOP_MEASURE_MEMORY=100 go test -count=1 -run MeasureHubRetained -v ./hub/
func TestMeasureHubRetainedPerDecision(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("A2ATOP_MEASURE_DECISIONS"))
	if err != nil || n <= 0 {
		t.Skip("a measurement: set A2ATOP_MEASURE_DECISIONS=250 to run it")
	}
	memory, _ := strconv.Atoi(os.Getenv("A2ATOP_MEASURE_MEMORY")) // journal_memory; 0 = the default, 10,000
	fx := newFixture(t, func(o *hub.Options) { o.Journal.Memory = memory })
	alice := fx.attach("alice")
	decide := func(count int) {
		for range count {
			id := fx.ag.Start("ask")
			alice.waitFor("the question", func(f *model.Fleet) bool { return alice.inInbox(f, id) })
			o := alice.svc.Send(context.Background(), alice.prepare(id, approvals.Input{Kind: approvals.KindReply, Text: "yes"}))
			if o.Result != approvals.ResultAccepted {
				t.Fatalf("decision: %s (%v)", o.Words(), o.Err)
			}
		}
	}
	rest := func() (heap uint64, lines, bytes int) {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		lines, bytes = fx.h.FeedJournal()
		return ms.HeapAlloc, lines, bytes
	}
	decide(n)
	heap1, lines1, feed1 := rest()
	decide(3 * n)
	heap2, lines2, feed2 := rest()
	t.Logf("heap %d B after %d decisions, %d B after %d: %.0f B per decision", heap1, n, heap2, 4*n,
		float64(int64(heap2)-int64(heap1))/float64(3*n))
	t.Logf("the feed log's journal: %d lines, %d B after %d; %d lines, %d B after %d: %.0f B per decision",
		lines1, feed1, n, lines2, feed2, 4*n, float64(feed2-feed1)/float64(3*n))
}
