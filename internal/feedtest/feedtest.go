// Package feedtest follows a hub's feed in tests, as a dashboard attached
// to the hub reads it: the hub's own client (hubclient), every event
// handed to the test.
//
// It is for tests only. It may import hubclient and what hubclient
// imports (hub, approvals, model); the data and network layers never
// import it.
package feedtest

import (
	"context"
	"testing"
	"time"

	"a2atop/hubclient"
	"a2atop/model"
)

// Follow attaches to the feed of the hub at url with an operator's
// token, reconnecting quickly (50 to 300 ms) when the hub goes away, and
// hands every event to apply, in order, on one goroutine, until the test
// ends.
func Follow(t testing.TB, url, token string, apply func(model.Event)) {
	t.Helper()
	cl, err := hubclient.New(hubclient.Options{URL: url, Token: token, MinBackoff: 50 * time.Millisecond, MaxBackoff: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { cl.Run(ctx); close(ran) }()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-cl.Events():
				apply(ev)
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-ran })
}
