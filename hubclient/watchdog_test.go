package hubclient

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// silentFeed is a hub's feed on loopback that says hello (resumed, a
// heartbeat every 100 ms) and then sends a heartbeat comment every beat,
// or nothing at all when beat is zero.
func silentFeed(t *testing.T, beat time.Duration) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: hello\ndata: {\"epoch\":\"e1\",\"operator\":\"alice\",\"resumed\":true,\"heartbeatMs\":100}\n\n")
		w.(http.Flusher).Flush()
		var tick <-chan time.Time
		if beat > 0 {
			tk := time.NewTicker(beat)
			defer tk.Stop()
			tick = tk.C
		}
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick:
				fmt.Fprint(w, ": heartbeat\n\n")
				w.(http.Flusher).Flush()
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestASilentFeedIsCutAfterTheHellosWindow: a feed that goes silent
// after its hello (heartbeats every 100 ms) is cut once the hello's
// window (minDead, 5 s) passed, not the 45 s allowed before a hello,
// and the dashboard is told (Changed); one whose heartbeats keep coming
// stays up past that window. The watchdog sleeps until the window would
// end instead of looking ten times a second.
func TestASilentFeedIsCutAfterTheHellosWindow(t *testing.T) {
	for _, sc := range []struct {
		name string
		beat time.Duration
	}{{"silent", 0}, {"beating", 100 * time.Millisecond}} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			c, err := New(Options{URL: silentFeed(t, sc.beat), Token: "t", MinBackoff: time.Hour, MaxBackoff: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			changed := c.Changed()
			ctx, cancel := context.WithCancel(context.Background())
			ran := make(chan struct{})
			go func() { c.Run(ctx); close(ran) }()
			defer func() { cancel(); <-ran }()
			select {
			case <-changed:
			case <-time.After(10 * time.Second):
				t.Fatal("the hello never came")
			}
			if up, why := c.Connected(); !up {
				t.Fatalf("after the hello the feed is down: %s", why)
			}
			changed, hello := c.Changed(), time.Now()
			if sc.beat > 0 {
				select {
				case <-changed:
					_, why := c.Connected()
					t.Fatalf("a feed whose heartbeats come was cut: %s", why)
				case <-time.After(minDead + 2*time.Second):
				}
				return
			}
			select {
			case <-changed:
			case <-time.After(defaultDead - 5*time.Second):
				t.Fatalf("a silent feed was not cut %s after its hello (its window is %s)", time.Since(hello).Round(time.Second), minDead)
			}
			if up, why := c.Connected(); up || !strings.Contains(why, "went silent") {
				t.Fatalf("the silent feed: up %v, why %q", up, why)
			}
		})
	}
}
