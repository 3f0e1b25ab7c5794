package jetstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"a2atop/approvals/jetstore"
)

// The watch leases on a real NATS server: one hub at a time holds a key
// (a second Create, or an Update on an old revision, is "held" without
// an error), a lease lapses by itself after its TTL, and a hub whose TTL
// is not the bucket's is refused in words.
func TestLeasesOneHolderAndLapse(t *testing.T) {
	url := startServer(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := jetstore.Open(ctx, jetstore.Config{URLs: []string{url}, Replicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const ttl = time.Second
	l, err := st.Leases(ctx, ttl)
	if err != nil {
		t.Fatal(err)
	}
	rev, ok, err := l.Create("w.x", []byte("hub1"))
	if err != nil || !ok {
		t.Fatalf("the first take: ok %v, %v", ok, err)
	}
	if _, ok, err := l.Create("w.x", []byte("hub2")); err != nil || ok {
		t.Fatalf("a second take while hub1 holds it: ok %v, %v; want refused without an error", ok, err)
	}
	next, ok, err := l.Update("w.x", []byte("hub1"), rev)
	if err != nil || !ok {
		t.Fatalf("the renewal: ok %v, %v", ok, err)
	}
	if _, ok, err := l.Update("w.x", []byte("hub1"), rev); err != nil || ok {
		t.Fatalf("a renewal on an old revision: ok %v, %v; want refused without an error", ok, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		v, _, err := l.Get("w.x")
		if err != nil {
			t.Fatal(err)
		}
		if v == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the lease never lapsed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, ok, err := l.Update("w.x", []byte("hub1"), next); err != nil || ok {
		t.Fatalf("a renewal after the lapse: ok %v, %v; want refused without an error", ok, err)
	}
	if _, ok, err := l.Create("w.x", []byte("hub2")); err != nil || !ok {
		t.Fatalf("a take after the lapse: ok %v, %v", ok, err)
	}
	if _, err := st.Leases(ctx, 2*ttl); err == nil || !strings.Contains(err.Error(), "the same lease_ttl") {
		t.Fatalf("a hub with another TTL: %v, want it refused naming lease_ttl", err)
	}
}
