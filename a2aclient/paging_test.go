package a2aclient

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// forgetPageToken drops pageToken from JSON-RPC ListTasks requests, so the
// real server answers page one, with the same nextPageToken, every time:
// a pager that never advances.
func forgetPageToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		if json.Unmarshal(body, &req) == nil && req["method"] == "ListTasks" {
			if p, ok := req["params"].(map[string]any); ok {
				delete(p, "pageToken")
				body, _ = json.Marshal(req)
			}
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// Sweeps follow nextPageToken to the end in pages of 100; a server that
// repeats a token stops the sweep with a protocol error on its own row
// instead of looping.
func TestSweepPagesAndRepeatedToken(t *testing.T) {
	good := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	loop := sdktest.Start(t, sdktest.JSONRPC, false, forgetPageToken)
	const n = 250
	want := map[a2a.TaskID]bool{}
	for range n {
		want[good.CreateInStore(t, a2a.TaskStateWorking)] = true
		loop.CreateInStore(t, a2a.TaskStateWorking)
	}
	_, c := runManager(t, []AgentOptions{fast("good", good.URL()), fast("loop", loop.URL())}, Options{})
	c.waitFor(t, "every task over three pages", 10*time.Second, func(evs []model.Event) bool {
		seen := map[a2a.TaskID]bool{}
		for _, e := range evs {
			if e.Agent == "good" && e.Kind == model.EventTask && want[e.Task.ID] {
				seen[e.Task.ID] = true
			}
		}
		return len(seen) == n
	})
	c.waitFor(t, "repeated token refused", 10*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "loop")
		return h != nil && h.State == model.HealthBackoff && strings.Contains(h.Err, "protocol error") &&
			strings.Contains(h.Err, "repeated page token")
	})
	good.Icpt.Mu.Lock()
	defer good.Icpt.Mu.Unlock()
	if len(good.Icpt.Lists) < 3 {
		t.Errorf("%d ListTasks calls for %d tasks, want at least 3 pages of 100", len(good.Icpt.Lists), n)
	}
}
