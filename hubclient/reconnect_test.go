package hubclient

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"a2atop/model"
)

// TestReconnectsWithinTwoSecondsHoweverLongTheHubWasDown: while the hub
// is down, the client tries again at least every two seconds, however
// many attempts failed before, so a dashboard is back within two
// seconds of the hub's return (each stale mark says when the next
// attempt is). The backoff used to double to 30 s: dashboards came back
// 14 and 20 s after a hub restart.
func TestReconnectsWithinTwoSecondsHoweverLongTheHubWasDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there: the hub is down
	c, err := New(Options{URL: "http://" + addr, Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.heardLocked("deployer")
	c.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { c.Run(ctx); close(ran) }()
	defer func() { cancel(); <-ran }()
	for attempt := 1; attempt <= 6; attempt++ {
		var ev model.Event
		select {
		case ev = <-c.Events():
		case <-time.After(30 * time.Second):
			t.Fatalf("attempt %d never failed", attempt)
		}
		h := ev.Health
		if ev.Kind != model.EventHealth || h == nil || h.State != model.HealthUnreachable {
			t.Fatalf("attempt %d: %+v, want the agent marked stale", attempt, ev)
		}
		if wait := h.NextRetry.Sub(ev.At); wait > maxDownWait {
			t.Errorf("after %d failed attempts the next is in %s, want at most %s", attempt, wait, maxDownWait)
		}
	}
}

// TestAResumedFeedClearsTheHubDownMarkOfEveryAgent: when the feed comes
// back without a snapshot (resumed), every agent marked HubDown gets a
// health event without the mark, also one the hub had sent no health
// of yet: else the dashboard would say "hub unreachable" with the hub
// back.
func TestAResumedFeedClearsTheHubDownMarkOfEveryAgent(t *testing.T) {
	c, err := New(Options{URL: "http://127.0.0.1:1", Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c.mu.Lock()
	c.heardLocked("deployer") // health heard from the hub
	c.health["deployer"] = model.HealthUpdate{State: model.HealthStreaming}
	c.heardLocked("planner") // none yet
	c.mu.Unlock()
	c.down(ctx, errors.New("refused"), time.Second)
	c.up(ctx, false)
	marked := map[string]bool{}
	for len(c.Events()) > 0 {
		ev := <-c.Events()
		marked[ev.Agent] = ev.Health.HubDown
	}
	for _, a := range []string{"deployer", "planner"} {
		if v, ok := marked[a]; !ok || v {
			t.Errorf("%s after the feed resumed: seen %v, still HubDown %v", a, ok, v)
		}
	}
}
