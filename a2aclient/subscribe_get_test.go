package a2aclient

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// getOnlySubscribe makes a real SDK REST server take :subscribe as the
// proto's HTTP binding says, GET only: a POST is answered 405. It counts
// the GETs.
func getOnlySubscribe(gets *atomic.Int32) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, ":subscribe") {
				if r.Method == http.MethodPost {
					http.Error(w, "use GET", http.StatusMethodNotAllowed)
					return
				}
				gets.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// TestSDKSubscribesWithPOSTOnly documents what edge/subscribe_get.go works
// around: the SDK v2.4.0's REST client, alone, sends SubscribeToTask as a
// POST and fails on an agent that takes it as GET, without trying GET.
// It fails the day the SDK falls back to GET (or sends GET): delete
// edge/subscribe_get.go then.
func TestSDKSubscribesWithPOSTOnly(t *testing.T) {
	var gets atomic.Int32
	a := sdktest.Start(t, sdktest.REST, true, getOnlySubscribe(&gets))
	held := a.Send(t, "hold")
	defer a.Exec.Release()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	var err error
	for _, err = range a.Other(t).SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: held}) {
		if err != nil {
			break
		}
		t.Fatal("the bare SDK client got a stream event from a GET-only :subscribe")
	}
	if err == nil || gets.Load() != 0 {
		t.Fatalf("bare SDK subscribe = %v with %d GETs; pinned: it fails after the 405 and never tries GET", err, gets.Load())
	}
}

// A REST server that takes :subscribe only as GET (as the proto says)
// answers the SDK's POST with 405: the RoundTripper retries with GET.
func TestRESTSubscribeFallsBackToGET(t *testing.T) {
	var gets atomic.Int32
	a := sdktest.Start(t, sdktest.REST, true, getOnlySubscribe(&gets))
	_, c := runManager(t, []AgentOptions{fast("a", a.URL())}, Options{})
	held := a.Send(t, "hold")
	c.waitFor(t, "streaming over GET", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return gets.Load() > 0 && h != nil && h.State == model.HealthStreaming
	})
	a.Exec.Release()
	c.waitFor(t, "completion over the stream", 5*time.Second, func(evs []model.Event) bool {
		for _, e := range evs {
			if e.Kind == model.EventStatus && e.Status.TaskID == held && e.Status.Status.State == a2a.TaskStateCompleted {
				return true
			}
		}
		return false
	})
}
