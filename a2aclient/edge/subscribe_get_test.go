package edge

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
)

// TestSDKSubscribesWithPOSTOnly documents what subscribe_get.go works
// around: the SDK v2.4.0's REST client, alone, sends SubscribeToTask as a
// POST and fails on an agent that takes it as GET, without trying GET.
// It fails the day the SDK falls back to GET (or sends GET): delete
// subscribe_get.go then. The same client over SubscribeGETLayer streams.
func TestSDKSubscribesWithPOSTOnly(t *testing.T) {
	var gets atomic.Int32
	a := sdktest.Start(t, sdktest.REST, true, sdktest.GETOnlySubscribe(&gets))
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

	for ev, err := range a.Bare(t, SubscribeGETLayer(http.DefaultTransport)).SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: held}) {
		if err != nil || ev == nil {
			t.Fatalf("SDK subscribe over SubscribeGETLayer = %v, %v; want the task's stream", ev, err)
		}
		break
	}
	if gets.Load() == 0 {
		t.Fatal("SubscribeGETLayer sent no GET after the 405")
	}
}
