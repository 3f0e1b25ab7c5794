package a2aclient

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// TestSDKSendsLastUpdatedAfter documents what edge/status_timestamp_after.go
// works around: the SDK v2.4.0's v1.0 REST client, alone, sends
// ListTasks' StatusTimestampAfter as "lastUpdatedAfter" in whole seconds,
// and the SDK's own v1.0 REST server, which reads statusTimestampAfter,
// answers with a full listing. It fails the day the SDK sends
// statusTimestampAfter: delete edge/status_timestamp_after.go then.
func TestSDKSendsLastUpdatedAfter(t *testing.T) {
	a := sdktest.Start(t, sdktest.REST, false, nil)
	log := &sdktest.RequestLog{}
	after := time.Date(2026, 11, 29, 19, 0, 0, 123456789, time.UTC)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := a.Bare(t, log).ListTasks(ctx, &a2a.ListTasksRequest{StatusTimestampAfter: &after}); err != nil {
		t.Fatal(err)
	}
	q := log.Last("/tasks").URL.Query()
	a.Icpt.Mu.Lock()
	full := len(a.Icpt.Lists) == 1 && a.Icpt.Lists[0]
	a.Icpt.Mu.Unlock()
	if q.Get("lastUpdatedAfter") != "2026-11-29T19:00:00Z" || q.Has("statusTimestampAfter") || !full {
		t.Fatalf("bare SDK ListTasks sent %q, the server listed in full: %v; pinned: lastUpdatedAfter in seconds, "+
			"no statusTimestampAfter, a full listing", q.Encode(), full)
	}
}

// Incremental sweeps over REST reach the SDK's REST server as
// incremental: it reads the statusTimestampAfter the SDK does not send.
func TestRESTSweepsAreIncremental(t *testing.T) {
	a := sdktest.Start(t, sdktest.REST, false, nil)
	o := fast("a", a.URL())
	o.Subscribe = false
	_, c := runManager(t, []AgentOptions{o}, Options{})
	id := a.Send(t, "ask") // gives the sweeps a high-water mark
	c.waitFor(t, "the task swept", 5*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "a", id, a2a.TaskStateInputRequired)
	})
	c.waitFor(t, "an incremental listing on the server", 5*time.Second, func([]model.Event) bool {
		a.Icpt.Mu.Lock()
		defer a.Icpt.Mu.Unlock()
		for _, full := range a.Icpt.Lists {
			if !full {
				return true
			}
		}
		return false
	})
}
