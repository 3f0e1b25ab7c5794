package hub_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"a2atop/approvals"
	"a2atop/approvals/jetstore"
	"a2atop/hub"
	"a2atop/internal/agenttest"
)

// journalProxy is a TCP proxy between a hub and one NATS node that
// reads the client's protocol frame by frame, so that it can lose the
// answer to a journal append (the append is delivered; what the server
// sends back is held past the hub's timeout) or the append itself (the
// frame is dropped), as a leader election or a lost link does.
type journalProxy struct {
	t      *testing.T
	ln     net.Listener
	target string

	mu       sync.Mutex
	holdFor  time.Duration // > 0: the next append's answer (and all after it) is held this long
	holdTill time.Time
	drop     bool // journal appends are dropped while set
	dropped  int
}

func startJournalProxy(t *testing.T, target string) *journalProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &journalProxy{t: t, ln: ln, target: target}
	var wg sync.WaitGroup
	var conns []net.Conn
	var cmu sync.Mutex
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
			cmu.Lock()
			conns = append(conns, c, s)
			cmu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); p.toServer(c, s); s.Close() }()
			go func() { defer wg.Done(); p.toClient(s, c); c.Close() }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		cmu.Lock()
		for _, c := range conns {
			c.Close()
		}
		cmu.Unlock()
		wg.Wait()
	})
	return p
}

func (p *journalProxy) url() string { return "nats://" + p.ln.Addr().String() }

// loseNextAck holds what the server sends back from the next journal
// append on for d.
func (p *journalProxy) loseNextAck(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holdFor = d
}

// dropAppends drops (on) or passes (off) the journal appends.
func (p *journalProxy) dropAppends(on bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drop = on
	return p.dropped
}

// toServer copies the client's frames to the server: a PUB or HPUB
// frame whole (its line and its payload), any other line as it is.
func (p *journalProxy) toServer(c, s net.Conn) {
	r := bufio.NewReader(c)
	for {
		l, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		frame := l
		if f := strings.Fields(string(l)); len(f) >= 3 && (f[0] == "PUB" || f[0] == "HPUB") {
			n, err := strconv.Atoi(f[len(f)-1])
			if err != nil {
				return
			}
			body := make([]byte, n+2)
			if _, err := io.ReadFull(r, body); err != nil {
				return
			}
			frame = append(append([]byte{}, l...), body...)
			if strings.HasPrefix(f[1], "a2atop.journal.") && p.journalAppend() {
				continue // dropped
			}
		}
		if _, err := s.Write(frame); err != nil {
			return
		}
	}
}

// journalAppend is told of a journal append passing and reports
// whether to drop it.
func (p *journalProxy) journalAppend() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drop {
		p.dropped++
		return true
	}
	if p.holdFor > 0 {
		p.holdTill = time.Now().Add(p.holdFor)
		p.holdFor = 0
	}
	return false
}

// toClient copies the server's bytes to the client, each chunk after
// the hold (if any) has passed: delayed, never lost nor reordered.
func (p *journalProxy) toClient(s, c net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := s.Read(buf)
		if n > 0 {
			p.mu.Lock()
			till := p.holdTill
			p.mu.Unlock()
			if d := time.Until(till); d > 0 {
				time.Sleep(d)
			}
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// hubBehindProxy is one hub whose record goes through a journal proxy
// to the cluster's first node, with requests to it bounded by timeout.
func hubBehindProxy(t *testing.T, c *natsCluster, ag *agenttest.Agent, timeout time.Duration) (*fixture, *journalProxy) {
	t.Helper()
	p := startJournalProxy(t, c.opts[0].ClientListen)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := jetstore.Open(ctx, jetstore.Config{URLs: []string{p.url()}, Token: natsToken, Replicas: 3, Name: "hub-behind-proxy", Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	j, err := st.Journal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fx := newFixtureOn(t, ag, 100*time.Millisecond, func(o *hub.Options) { o.Journal.Shared = j })
	return fx, p
}

// decisionsInStream counts the decision records on the task in the
// journal's stream, read straight from the cluster.
func decisionsInStream(t *testing.T, c *natsCluster, id a2a.TaskID) int {
	t.Helper()
	nc, err := nats.Connect(strings.Join(c.urls(), ","), nats.Token(natsToken))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := js.Stream(ctx, jetstore.StreamName)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && seq > 0; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if err != nil {
			t.Fatalf("record %d: %v", seq, err)
		}
		if bytes.Contains(m.Data, []byte(`"type":"decision"`)) && bytes.Contains(m.Data, []byte(`"task":"`+string(id)+`"`)) {
			n++
		}
	}
	return n
}

// TestAppendWhoseAckIsLost: the hub's append of a decision reaches the
// stream and its answer is lost (held past the hub's timeout, as during
// a leader election). The hub learns that it landed (the same message
// id published again is acknowledged as a duplicate) before it answers:
// the person's answer is what the record holds (sent, accepted), the
// record holds the decision once, the agent received it once, and a
// second decision is refused naming the first, not as "being sent".
// Before, the hub answered "not sent" over a record that held the
// decision, and a retry was refused as being sent until it settled.
func TestAppendWhoseAckIsLost(t *testing.T) {
	c := startNATSCluster(t)
	ag := agenttest.StartAgent(t)
	const timeout = time.Second
	fx, p := hubBehindProxy(t, c, ag, timeout)
	alice := fx.attach("alice")
	ids := raceStart(t, ag, []*dash{alice}, 2)
	first := alice.prepare(ids[0], approvals.Input{Kind: approvals.KindApprove})
	if o := alice.svc.Send(context.Background(), first); o.Result != approvals.ResultAccepted {
		t.Fatalf("a decision with every answer on time: %s (%v)", o.Words(), o.Err)
	}

	p.loseNextAck(timeout + timeout/2) // past one request's timeout, within the hub's settling
	d := alice.prepare(ids[1], approvals.Input{Kind: approvals.KindApprove})
	retry := alice.prepare(ids[1], approvals.Input{Kind: approvals.KindApprove}) // sent once the first is answered
	o := alice.svc.Send(context.Background(), d)
	if o.Result != approvals.ResultAccepted {
		t.Fatalf("the decision whose append landed, its answer lost: %q (%v); want it sent and accepted (the record holds it: %d decisions)",
			o.Words(), o.Err, decisionsInStream(t, c, ids[1]))
	}
	if got := ag.OnTask(ids[1]); got != 1 {
		t.Fatalf("the agent received %d messages, want 1", got)
	}
	if got := decisionsInStream(t, c, ids[1]); got != 1 {
		t.Fatalf("the stream holds %d decisions on the prompt, want 1", got)
	}
	e, ok := fx.h.Service().Entry(d.MessageID)
	if !ok || e.Result != approvals.ResultAccepted {
		t.Fatalf("the hub's journal has the decision %v %s, want accepted", ok, e.Result)
	}
	again := alice.svc.Send(context.Background(), retry)
	if again.Result == approvals.ResultAccepted || again.Winner == nil || !strings.HasPrefix(again.Words(), "decided by alice at ") {
		t.Fatalf("a second decision on the prompt: %q (%v), want it refused naming the first", again.Words(), again.Err)
	}
	if got := ag.OnTask(ids[1]); got != 1 {
		t.Fatalf("after the second decision the agent received %d messages, want 1", got)
	}
}

// TestAppendThatIsLost: the hub's appends of a decision never reach the
// stream (dropped on the way) until the hub gives up on them: it reads
// the record back, finds nothing, and answers "not sent"; the record
// holds no decision, the agent received nothing, and a retry at once is
// sent (not refused as being sent).
func TestAppendThatIsLost(t *testing.T) {
	c := startNATSCluster(t)
	ag := agenttest.StartAgent(t)
	const timeout = 500 * time.Millisecond
	fx, p := hubBehindProxy(t, c, ag, timeout)
	alice := fx.attach("alice")
	ids := raceStart(t, ag, []*dash{alice}, 1)
	p.dropAppends(true)
	d := alice.prepare(ids[0], approvals.Input{Kind: approvals.KindApprove})
	o := alice.svc.Send(context.Background(), d)
	if n := p.dropAppends(false); n < 2 {
		t.Fatalf("the proxy dropped %d appends, want the first and at least one published again", n)
	}
	if o.Problem != approvals.ProblemRecord || !strings.HasPrefix(o.Words(), "not sent: the team's record is unreachable") {
		t.Fatalf("the decision whose appends were lost: %q (%v), want it refused: not sent", o.Words(), o.Err)
	}
	if got := decisionsInStream(t, c, ids[0]); got != 0 {
		t.Fatalf("the stream holds %d decisions on the prompt, want none", got)
	}
	again := alice.decideAgain(ids[0])
	if again.Result != approvals.ResultAccepted {
		t.Fatalf("a retry at once: %q (%v), want it sent", again.Words(), again.Err)
	}
	if got := ag.OnTask(ids[0]); got != 1 {
		t.Fatalf("the agent received %d messages, want 1", got)
	}
	if got := decisionsInStream(t, c, ids[0]); got != 1 {
		t.Fatalf("the stream holds %d decisions on the prompt, want 1", got)
	}
}
