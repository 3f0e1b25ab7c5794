package jetstore_test

import (
	"bytes"
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"a2atop/approvals"
	"a2atop/approvals/jetstore"
)

// holdProxy is a TCP proxy to one NATS server that, once armed, holds
// what the server sends back after the next journal append for a while:
// the append is delivered, its answer comes after the client's timeout.
// (A journal append is told by its subject in the client's bytes.)
type holdProxy struct {
	ln       net.Listener
	mu       sync.Mutex
	armed    time.Duration
	holdTill time.Time
}

func startHoldProxy(t *testing.T, target string) *holdProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &holdProxy{ln: ln}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, s)
			mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); p.copy(s, c, true); s.Close() }()
			go func() { defer wg.Done(); p.copy(c, s, false); c.Close() }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return p
}

// copy copies src to dst: the client's bytes (toServer) arm the hold on
// a journal append; the server's wait out the hold.
func (p *holdProxy) copy(dst, src net.Conn, toServer bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			if toServer && p.armed > 0 && bytes.Contains(buf[:n], []byte("PUB a2atop.journal.")) {
				p.holdTill, p.armed = time.Now().Add(p.armed), 0
			}
			till := p.holdTill
			p.mu.Unlock()
			if d := time.Until(till); !toServer && d > 0 {
				time.Sleep(d)
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *holdProxy) holdNextAck(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.armed = d
}

// TestAppendWhoseAckIsLostOneServer: on a single server, which checks
// an append's expected sequence before its message id, the append sent
// again after its answer was lost is refused as a conflict with itself;
// the journal reads the record back, finds its own, and returns its
// number: one record, no conflict, no "not sent".
func TestAppendWhoseAckIsLostOneServer(t *testing.T) {
	url := startServer(t, true)
	p := startHoldProxy(t, url[len("nats://"):])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const timeout = 500 * time.Millisecond
	st, err := jetstore.Open(ctx, jetstore.Config{URLs: []string{"nats://" + p.ln.Addr().String()}, Replicas: 1, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	j, err := st.Journal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	p.holdNextAck(3 * timeout / 2)
	ns, err := j.Append([]approvals.KeyedLine{{Key: "pone", Raw: []byte(`{"v":2,"type":"note","n":1}`)}})
	if err != nil || len(ns) != 1 || ns[0] != 1 {
		t.Fatalf("the append whose answer was lost: %v %v, want record 1", ns, err)
	}
	var got []approvals.JournalLine
	if err := j.Read(func(ls []approvals.JournalLine) { got = append(got, ls...) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("the stream holds %d records, want 1", len(got))
	}
	ns, err = j.Append([]approvals.KeyedLine{{Key: "pone", Raw: []byte(`{"v":2,"type":"note","n":2}`)}})
	if err != nil || len(ns) != 1 || ns[0] != 2 {
		t.Fatalf("the next append on the subject: %v %v, want record 2", ns, err)
	}
}
