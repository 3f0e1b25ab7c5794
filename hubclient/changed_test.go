package hubclient

import (
	"context"
	"net"
	"testing"
	"time"
)

// TestChangedClosesOnlyWhenTheStateDoes: the hub gone (nothing listens
// on its loopback port), Changed closes once, when the feed is first
// found down; the attempts after it, failing the same way, leave the
// new channel open (a dashboard waiting on it sleeps); once Run has
// returned it is nil.
func TestChangedClosesOnlyWhenTheStateDoes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := New(Options{URL: "http://" + addr, Token: "t", MinBackoff: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.heardLocked("deployer") // each attempt says so with a health event
	c.mu.Unlock()
	first := c.Changed()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { c.Run(ctx); close(ran) }()
	select {
	case <-first:
	case <-time.After(30 * time.Second):
		t.Fatal("Changed did not close when the feed was found down")
	}
	if up, why := c.Connected(); up || why == "" {
		t.Fatalf("Changed closed with the feed up %v, why %q", up, why)
	}
	second := c.Changed()
	for attempt := 1; attempt <= 5; attempt++ {
		select {
		case <-c.Events():
		case <-time.After(30 * time.Second):
			t.Fatalf("attempt %d never failed", attempt)
		}
	}
	select {
	case <-second:
		t.Fatal("Changed closed again, though the feed stayed down for the same reason")
	default:
	}
	cancel()
	<-ran
	select {
	case <-second:
	default:
		t.Fatal("Run returned and Changed did not close")
	}
	if c.Changed() != nil {
		t.Fatal("Changed is not nil once Run returned")
	}
}
