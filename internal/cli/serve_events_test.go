package cli

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"a2atop/approvals/jetstore"
	"a2atop/demo"
	"a2atop/internal/agenttest"
)

// TestServeGivesTheEventsStreamTheConfiguredLimits: `a2atop serve` on a
// real JetStream server makes the events' stream with [hub.store]
// events_max_age and events_max_bytes, and a serve with other ones
// changes the stream's to them.
func TestServeGivesTheEventsStreamTheConfiguredLimits(t *testing.T) {
	url := startJetStream(t)
	ag := agenttest.StartAgent(t)
	limits := func() (time.Duration, int64) {
		t.Helper()
		nc, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s, err := js.Stream(ctx, jetstore.EventsStream)
		if err != nil {
			t.Fatal(err)
		}
		cfg := s.CachedInfo().Config
		return cfg.MaxAge, cfg.MaxBytes
	}
	for _, tt := range []struct {
		age, size string
		wantAge   time.Duration
		wantSize  int64
	}{
		{"45m", "48MiB", 45 * time.Minute, 48 << 20},
		{"3h", "2GiB", 3 * time.Hour, 2 << 30},
	} {
		dir := isolate(t)
		cfg := writeHubConfig(t, dir, []demo.Agent{{Name: "deployer", URL: ag.URL}}, time.Second)
		f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "[hub.store]\nnats = [%q]\nreplicas = 1\nevents_max_age = %q\nevents_max_bytes = %q\n", url, tt.age, tt.size)
		f.Close()
		ctx, cancel := context.WithCancel(context.Background())
		var out, errOut syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- run(ctx, []string{"serve", "--config", cfg, "--listen", "127.0.0.1:0"}, Streams{Out: &out, Err: &errOut})
		}()
		eventually(t, "serve listens", func() bool { return hubLine.MatchString(out.String()) })
		if age, size := limits(); age != tt.wantAge || size != tt.wantSize {
			t.Errorf("with events_max_age = %q, events_max_bytes = %q the stream keeps %s within %d bytes", tt.age, tt.size, age, size)
		}
		cancel()
		if code := <-done; code != exitOK {
			t.Fatalf("serve ended with %d:\n%s", code, errOut.String())
		}
	}
}
