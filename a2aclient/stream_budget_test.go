package a2aclient

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// openSubs counts, on the agent's side, the SubscribeToTask requests in
// flight (JSON-RPC), by task.
type openSubs struct {
	mu   sync.Mutex
	open map[a2a.TaskID]int
}

func (s *openSubs) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Method string `json:"method"`
			Params struct {
				ID a2a.TaskID `json:"id"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &req) != nil || req.Method != "SubscribeToTask" {
			next.ServeHTTP(w, r)
			return
		}
		s.mu.Lock()
		s.open[req.Params.ID]++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			if s.open[req.Params.ID]--; s.open[req.Params.ID] == 0 {
				delete(s.open, req.Params.ID)
			}
			s.mu.Unlock()
		}()
		next.ServeHTTP(w, r)
	})
}

// ids returns the tasks with a stream open now, sorted.
func (s *openSubs) ids() []a2a.TaskID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.open))
}

func startCounted(t *testing.T) (*sdktest.Agent, *openSubs) {
	subs := &openSubs{open: map[a2a.TaskID]int{}}
	return sdktest.Start(t, sdktest.JSONRPC, true, subs.wrap), subs
}

func holdN(t *testing.T, a *sdktest.Agent, n int) []a2a.TaskID {
	ids := make([]a2a.TaskID, n)
	for i := range ids {
		ids[i] = a.Send(t, "hold")
	}
	return ids
}

// Three agents share a budget of six streams: the one that wants one
// stream has it, the two that want ten share the five left (the first in
// the configuration has the odd one), as the agents see it, and their rows say how many tasks are
// followed by sweeps instead. When the small agent's task ends, the two
// others share its stream.
func TestStreamBudgetSharedFairly(t *testing.T) {
	a, as := startCounted(t)
	b, bs := startCounted(t)
	c, cs := startCounted(t)
	holdN(t, a, 10)
	holdN(t, b, 10)
	holdN(t, c, 1)
	_, col := runManager(t, []AgentOptions{fast("a", a.URL()), fast("b", b.URL()), fast("c", c.URL())}, Options{MaxStreams: 6})
	settled := func(na, nb, nc int) func([]model.Event) bool {
		return func(evs []model.Event) bool {
			ha, hb := lastHealth(evs, "a"), lastHealth(evs, "b")
			return len(as.ids()) == na && len(bs.ids()) == nb && len(cs.ids()) == nc &&
				ha != nil && ha.Streams == na && ha.StreamsShort == 10-na && hb != nil && hb.Streams == nb && hb.StreamsShort == 10-nb
		}
	}
	col.waitFor(t, "streams shared 3, 2, 1", 10*time.Second, settled(3, 2, 1))
	c.Exec.Release()
	col.waitFor(t, "streams shared 3, 3, 0", 10*time.Second, settled(3, 3, 0))
}

// With one stream for three running tasks, the task opened in the detail
// view (Get with artifacts) takes the stream from the one that had it.
func TestStreamBudgetGoesToTheTaskLookedAt(t *testing.T) {
	a, subs := startCounted(t)
	ids := holdN(t, a, 3)
	m, col := runManager(t, []AgentOptions{fast("a", a.URL())}, Options{MaxStreams: 1})
	col.waitFor(t, "one stream", 10*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return len(subs.ids()) == 1 && h != nil && h.Streams == 1 && h.StreamsShort == 2
	})
	had := subs.ids()[0]
	looked := ids[slices.IndexFunc(ids, func(id a2a.TaskID) bool { return id != had })]
	if _, err := m.Get(t.Context(), "a", looked, 0, true); err != nil {
		t.Fatal(err)
	}
	col.waitFor(t, "the stream moved to the task looked at", 10*time.Second, func([]model.Event) bool {
		got := subs.ids()
		return len(got) == 1 && got[0] == looked
	})
	// It stays there: the others are not newer than being looked at.
	time.Sleep(300 * time.Millisecond)
	if got := subs.ids(); len(got) != 1 || got[0] != looked {
		t.Errorf("streams open on %v; want only %s", got, looked)
	}
}

func TestFairShare(t *testing.T) {
	claims := func(wants ...int) []claim {
		c := make([]claim, len(wants))
		for i, w := range wants {
			c[i] = claim{order: i, want: w}
		}
		return c
	}
	for _, c := range []struct {
		total  int
		claims []claim
		order  int
		want   int
	}{
		{6, claims(10, 10, 1), 2, 1},
		{6, claims(10, 10, 1), 0, 3}, // 5 left for two: the first in the configuration has the odd one
		{6, claims(10, 10, 1), 1, 2},
		{6, claims(10, 10), 1, 3},
		{256, claims(30), 0, 30},
		{256, claims(30, 30, 30, 30, 30, 30, 30, 30, 30, 30), 9, 25},
		{256, claims(30, 30, 30, 30, 30, 30, 30, 30, 30, 30), 5, 26},
		{3, claims(5, 5, 5, 5), 2, 1},
		{3, claims(5, 5, 5, 5), 3, 0},
		{10, claims(2, 3, 30), 2, 5},
	} {
		got := fairShare(c.total, slices.Clone(c.claims), c.order)
		if got != c.want {
			t.Errorf("fairShare(%d, %v, %d) = %d; want %d", c.total, c.claims, c.order, got, c.want)
		}
	}
}
