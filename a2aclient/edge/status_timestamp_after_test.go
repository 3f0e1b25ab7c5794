package edge

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
)

// TestSDKSendsLastUpdatedAfter documents what status_timestamp_after.go
// works around: the SDK v2.4.0's v1.0 REST client, alone, sends
// ListTasks' StatusTimestampAfter as "lastUpdatedAfter" in whole seconds,
// and the SDK's own v1.0 REST server, which reads statusTimestampAfter,
// answers with a full listing. It fails the day the SDK sends
// statusTimestampAfter: delete status_timestamp_after.go then. The same
// client over StatusTimestampAfterLayer, the mark in its context, gets an
// incremental listing.
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
	if lists := listings(a); q.Get("lastUpdatedAfter") != "2026-11-29T19:00:00Z" || q.Has("statusTimestampAfter") || len(lists) != 1 || !lists[0] {
		t.Fatalf("bare SDK ListTasks sent %q, the server's listings (full?) %v; pinned: lastUpdatedAfter in seconds, "+
			"no statusTimestampAfter, a full listing", q.Encode(), lists)
	}

	fixed := a.Bare(t, StatusTimestampAfterLayer(http.DefaultTransport))
	if _, err := fixed.ListTasks(WithSweepAfter(ctx, after), &a2a.ListTasksRequest{StatusTimestampAfter: &after}); err != nil {
		t.Fatal(err)
	}
	if lists := listings(a); len(lists) != 2 || lists[1] {
		t.Fatalf("SDK ListTasks over StatusTimestampAfterLayer: the server's listings (full?) %v; want the second incremental", lists)
	}
}

// listings is, per ListTasks call the agent took, whether it was a full
// listing (no statusTimestampAfter).
func listings(a *sdktest.Agent) []bool {
	a.Icpt.Mu.Lock()
	defer a.Icpt.Mu.Unlock()
	return append([]bool(nil), a.Icpt.Lists...)
}
