package jetstore_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"a2atop/approvals/jetstore"
	"a2atop/internal/agenttest"
)

// TestEventsStreamTakesTheConfiguredLimits: on a real NATS server, the
// events' stream is made with the limits a hub is given; a hub given
// others changes the stream's to its own and logs both; the stream still
// carries the events after the change.
func TestEventsStreamTakesTheConfiguredLimits(t *testing.T) {
	url := startServer(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
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
		s, err := js.Stream(ctx, jetstore.EventsStream)
		if err != nil {
			t.Fatal(err)
		}
		cfg := s.CachedInfo().Config
		return cfg.MaxAge, cfg.MaxBytes
	}
	hub := func(name string, log *agenttest.Buffer, age time.Duration, size int64) *jetstore.Events {
		t.Helper()
		st, err := jetstore.Open(ctx, jetstore.Config{URLs: []string{url}, Replicas: 1, Name: name,
			Logger: slog.New(slog.NewTextHandler(log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		evs, err := st.Events(ctx, age, size)
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}

	var log1, log2, log3 agenttest.Buffer
	hub("hub1", &log1, 30*time.Minute, 32<<20)
	if age, size := limits(); age != 30*time.Minute || size != 32<<20 {
		t.Fatalf("the stream made keeps %s within %d bytes, want 30m within 32MiB", age, size)
	}
	if strings.Contains(log1.String(), "other limits") {
		t.Fatalf("the hub that made the stream logged a change: %s", log1.String())
	}
	evs := hub("hub2", &log2, 2*time.Hour, 1<<30)
	if age, size := limits(); age != 2*time.Hour || size != 1<<30 {
		t.Fatalf("after a hub with other limits the stream keeps %s within %d bytes, want 2h within 1GiB", age, size)
	}
	if l := log2.String(); !strings.Contains(l, "had other limits") || !strings.Contains(l, "was_max_age=30m0s") || !strings.Contains(l, "max_age=2h0m0s") {
		t.Fatalf("the change is not logged with both limits: %s", l)
	}
	hub("hub3", &log3, 2*time.Hour, 1<<30)
	if strings.Contains(log3.String(), "other limits") {
		t.Fatalf("a hub with the stream's limits logged a change: %s", log3.String())
	}

	// The stream still carries the events.
	got := make(chan string, 1)
	ready := make(chan struct{})
	fctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = evs.Follow(fctx, func() { close(ready) }, func(from, _ string, data []byte, _ uint64) {
			select {
			case got <- from + ":" + string(data):
			default:
			}
		})
	}()
	defer func() { stop(); <-done }()
	select {
	case <-ready:
	case <-ctx.Done():
		t.Fatal("the stream was never followed")
	}
	if err := evs.Publish(ctx, "hub2", []string{"agent"}, [][]byte{[]byte("seen")}); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if m != "hub2:seen" {
			t.Fatalf("followed %q, want hub2:seen", m)
		}
	case <-ctx.Done():
		t.Fatal("the event published after the change never arrived")
	}
}

// TestEventsStreamNeedsLimits: a hub given no limits is refused rather
// than making a stream that grows for ever.
func TestEventsStreamNeedsLimits(t *testing.T) {
	url := startServer(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := jetstore.Open(ctx, jetstore.Config{URLs: []string{url}, Replicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Events(ctx, 0, 1<<20); err == nil || !strings.Contains(err.Error(), "needs limits") {
		t.Fatalf("no age: %v, want refused", err)
	}
	if _, err := st.Events(ctx, time.Minute, 0); err == nil || !strings.Contains(err.Error(), "needs limits") {
		t.Fatalf("no size: %v, want refused", err)
	}
}
