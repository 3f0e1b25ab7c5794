package jetstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"a2atop/approvals"
	"a2atop/approvals/jetstore"
	"a2atop/internal/natsembed"
)

const clusterToken = "tok-jetstore-4f3e2d1c0b9a8877"

// startCluster runs a real three-node NATS cluster with JetStream in
// this process, on loopback, and returns its nodes' client addresses. A
// cluster that does not start (a picked port taken meanwhile) is started
// again on other ports, twice.
func startCluster(t *testing.T) []string {
	t.Helper()
	var err error
	for try := 0; try < 3; try++ {
		routes, clients := freeAddrs(t, 3), freeAddrs(t, 3)
		var nodes []*natsembed.Server
		for i := range 3 {
			var peers []string
			for k := range 3 {
				if k != i {
					peers = append(peers, routes[k])
				}
			}
			var s *natsembed.Server
			s, err = natsembed.Start(natsembed.Options{Dir: t.TempDir(), ClusterListen: routes[i], Peers: peers, ClientListen: clients[i], Token: clusterToken})
			if err != nil {
				break
			}
			nodes = append(nodes, s)
		}
		if err == nil {
			// Wait until the meta leader (the only node that answers)
			// sees the three servers: a stream of three replicas created
			// before that cannot be placed.
			for tries := 0; tries < 300; tries++ {
				formed := false
				for _, n := range nodes {
					formed = formed || len(n.JetStreamClusterPeers()) == 3
				}
				if formed {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			t.Cleanup(func() {
				for _, n := range nodes {
					n.Stop()
				}
			})
			return clients
		}
		for _, n := range nodes {
			n.Stop()
		}
		t.Logf("the NATS cluster did not start (%v); again on other ports", err)
	}
	t.Fatal(err)
	return nil
}

func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		out = append(out, ln.Addr().String())
	}
	for _, ln := range lns {
		ln.Close()
	}
	return out
}

// ackDropper is a TCP proxy in front of one NATS server. Once armed, the
// next connection that publishes on the journal's subjects has its
// publish passed to the server and everything the server says after it
// (the ack first) dropped; the connection is cut a moment later. The
// record lands; its answer is lost, as when a leader election or a
// network cut comes between a publish and its ack.
type ackDropper struct {
	ln      net.Listener
	target  string
	armed   atomic.Bool
	dropped atomic.Int32
	wg      sync.WaitGroup
}

func newAckDropper(t *testing.T, target string) *ackDropper {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &ackDropper{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

func (p *ackDropper) url() string { return "nats://" + p.ln.Addr().String() }

func (p *ackDropper) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		var drop atomic.Bool
		p.wg.Add(2)
		go func() { // server -> client
			defer p.wg.Done()
			defer c.Close()
			buf := make([]byte, 32<<10)
			for {
				n, err := s.Read(buf)
				if n > 0 && !drop.Load() {
					if _, werr := c.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
		go func() { // client -> server
			defer p.wg.Done()
			defer s.Close()
			buf := make([]byte, 32<<10)
			for {
				n, err := c.Read(buf)
				if n > 0 {
					if bytes.Contains(buf[:n], []byte("PUB a2atop.journal.")) && p.armed.CompareAndSwap(true, false) {
						drop.Store(true) // before the publish reaches the server: its ack cannot get through
						p.dropped.Add(1)
						time.AfterFunc(300*time.Millisecond, func() { c.Close(); s.Close() })
					}
					if _, werr := s.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					if !errors.Is(err, io.EOF) {
						s.Close()
					}
					return
				}
			}
		}()
	}
}

// TestAppendWhoseAckIsLost: an append that lands in the stream while
// its answer is lost is not reported "not sent": Append sends it again
// under the same Nats-Msg-Id, learns it landed (a duplicate), and says
// where; the stream holds it once, and the next append on the prompt
// follows it. Before, Append answered ErrRecordUnreachable ("nothing
// was sent") of a record that was in the stream, and the prompt's retry
// was then refused as being sent.
func TestAppendWhoseAckIsLost(t *testing.T) {
	nodes := startCluster(t)
	proxy := newAckDropper(t, nodes[0])
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := jetstore.Open(ctx, jetstore.Config{URLs: []string{proxy.url()}, Token: clusterToken, Replicas: 3, Timeout: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	j, err := st.Journal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Append([]approvals.KeyedLine{{Key: "pother", Raw: []byte(`{"n":0}`)}}); err != nil {
		t.Fatal(err)
	}
	proxy.armed.Store(true)
	first := []byte(`{"n":1,"what":"the decision"}`)
	ns, err := j.Append([]approvals.KeyedLine{{Key: "plost", Raw: first}})
	if proxy.dropped.Load() != 1 {
		t.Fatalf("the proxy dropped %d acks, want 1", proxy.dropped.Load())
	}
	if err != nil {
		t.Fatalf("an append that landed, its ack lost: %v; want its sequence", err)
	}
	if len(ns) != 1 || ns[0] != 2 {
		t.Fatalf("appended at %v, want [2]", ns)
	}

	// The stream holds it once, read from another node.
	nc, err := nats.Connect("nats://"+nodes[1], nats.Token(clusterToken))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	s, err := js.Stream(ctx, jetstore.StreamName)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter("a2atop.journal.plost"))
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 2 || info.State.Subjects["a2atop.journal.plost"] != 1 {
		t.Fatalf("the stream holds %d records, %d on the prompt; want 2 and 1", info.State.Msgs, info.State.Subjects["a2atop.journal.plost"])
	}

	// The next record on the prompt follows it, as a retry would.
	if err := j.Read(func([]approvals.JournalLine) {}); err != nil {
		t.Fatal(err)
	}
	if ns, err := j.Append([]approvals.KeyedLine{{Key: "plost", Raw: []byte(`{"n":2,"what":"its outcome"}`)}}); err != nil || len(ns) != 1 || ns[0] != 3 {
		t.Fatalf("the next append on the prompt: %v, %v; want [3]", ns, err)
	}
}
