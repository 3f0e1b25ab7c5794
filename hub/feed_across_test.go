package hub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
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
	"a2atop/hubclient"
	"a2atop/model"
)

// tapFrame is one SSE event as the real hubclient read it off the wire.
type tapFrame struct {
	host, id, name string
	data           []byte
	at             time.Time
}

// feedTap is a hubclient transport that keeps a copy of every feed
// event the client reads, with the hub it came from.
type feedTap struct {
	rt     http.RoundTripper
	mu     sync.Mutex
	frames []tapFrame
}

func (ft *feedTap) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := ft.rt.RoundTrip(req)
	if err != nil || !strings.HasSuffix(req.URL.Path, "/v1/feed") || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	resp.Body = &tapBody{rc: resp.Body, ft: ft, host: req.URL.Host}
	return resp, nil
}

func (ft *feedTap) all() []tapFrame {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return slices.Clone(ft.frames)
}

type tapBody struct {
	rc   io.ReadCloser
	ft   *feedTap
	host string
	buf  []byte
}

func (b *tapBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.buf = append(b.buf, p[:n]...)
	for {
		i := bytes.Index(b.buf, []byte("\n\n"))
		if i < 0 {
			break
		}
		f := tapFrame{host: b.host, at: time.Now()}
		for _, line := range strings.Split(string(b.buf[:i]), "\n") {
			k, v, _ := strings.Cut(line, ": ")
			switch k {
			case "id":
				f.id = v
			case "event":
				f.name = v
			case "data":
				f.data = append(f.data, v...)
			}
		}
		b.buf = b.buf[i+2:]
		if f.name != "" {
			b.ft.mu.Lock()
			b.ft.frames = append(b.ft.frames, f)
			b.ft.mu.Unlock()
		}
	}
	return n, err
}

func (b *tapBody) Close() error { return b.rc.Close() }

// srcOf is the events' stream seq a team's feed id carries.
func srcOf(id string) (uint64, bool) {
	parts := strings.Split(id, "~")
	if len(parts) != 3 {
		return 0, false
	}
	n, err := strconv.ParseUint(parts[2], 10, 64)
	return n, err == nil
}

// items are the events of an {"events":[…]} payload, as their bytes.
func items(t *testing.T, data []byte) []string {
	t.Helper()
	var es struct {
		Events []json.RawMessage `json:"events"`
	}
	if err := json.Unmarshal(data, &es); err != nil {
		t.Fatalf("an events payload that does not parse: %v: %.200s", err, data)
	}
	out := make([]string, len(es.Events))
	for i, e := range es.Events {
		out[i] = string(e)
	}
	return out
}

// streamMsgs reads the team's events' stream: every agent's message
// after seq from, by seq.
func streamMsgs(t *testing.T, c *natsCluster, from uint64) (map[uint64][]byte, uint64) {
	t.Helper()
	nc, err := nats.Connect(strings.Join(c.urls(), ","), nats.Token(natsToken))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := js.Stream(ctx, jetstore.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64][]byte{}
	last := uint64(0)
	for seq := from + 1; seq <= info.State.LastSeq; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if err != nil {
			t.Fatalf("stream message %d: %v", seq, err)
		}
		if m.Subject == "a2atop.events.hubs" {
			continue
		}
		out[seq], last = m.Data, seq
	}
	return out, last
}

// decideOn replies to an agent's question from the dashboard, once it
// is in its inbox.
func decideOn(t *testing.T, d *dash, agent string, id a2a.TaskID, text string) approvals.Outcome {
	t.Helper()
	var dec *approvals.Decision
	waitCond(t, "the question in "+d.me.Operator+"'s inbox", func() bool {
		var err error
		d.read(func(f *model.Fleet) {
			it, ok := d.svc.ItemOf(f, model.TaskKey{Agent: agent, ID: id})
			if !ok {
				err = errNoTask
				return
			}
			dec, err = d.svc.Prepare(it, approvals.Input{Kind: approvals.KindReply, Text: text})
		})
		return err == nil
	})
	var o approvals.Outcome
	for range 200 {
		if o = d.svc.Send(context.Background(), dec); o.Problem != approvals.ProblemHub {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return o
}

// acrossRun is one run of a dashboard moving between hubs of a team.
type acrossRun struct {
	back time.Duration // from hub 1's end to the dashboard resumed on another hub
}

// moveAcross runs three hubs of a team on a real three-node cluster, a
// dashboard (the real hubclient over HTTP/SSE) on hub 1 knowing the
// others while events, journal lines and claims flow; hub 1 stops in
// the middle; the dashboard resumes on another hub. It checks that it
// resumed (no snapshot) and that the events it read after its snapshot
// are exactly the stream's messages after it: none missing, none
// doubled, counted by stream seq.
func moveAcross(t *testing.T) acrossRun {
	c := startNATSCluster(t)
	agents := startCountedAgents(t, 3)
	var fxs []*fixture
	for i := range 3 {
		fxs = append(fxs, teamHub(t, c, agents, fmt.Sprintf("hub%d", i+1)))
	}
	waitSpread(t, fxs, agents)
	waitFleets(t, fxs, agents)
	tap := &feedTap{rt: http.DefaultTransport.(*http.Transport).Clone()}
	alice := fxs[0].attach("alice", func(o *hubclient.Options) {
		o.Others = []string{fxs[1].srv.URL, fxs[2].srv.URL}
		o.Transport = tap
	})
	frank := fxs[1].attach("frank", asFrank)
	waitCond(t, "alice's first snapshot", func() bool {
		for _, f := range tap.all() {
			if f.name == hub.EventSnapshotEnd {
				return true
			}
		}
		return false
	})
	var decided []string
	var stopped time.Time
	const rounds = 24
	for r := range rounds {
		a := agents[r%len(agents)]
		id := a.ag.Start("ask")
		if r%3 == 0 {
			if err := frank.cl.Claim(context.Background(), a.name, id, "answering"); err != nil && r < rounds/2 {
				t.Logf("claim %d: %v", r, err)
			}
		}
		if r%2 == 0 {
			o := decideOn(t, frank, a.name, id, fmt.Sprintf("answer %d", r))
			if o.Result != approvals.ResultAccepted {
				t.Fatalf("frank's answer %d: %s (%v)", r, o.Words(), o.Err)
			}
			decided = append(decided, o.MessageID)
		}
		if r == rounds/2 {
			stopped = time.Now()
			fxs[0].stop()
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Every decision reaches alice's journal through the hub she moved to.
	for _, id := range decided {
		waitCond(t, "frank's decision in alice's journal", func() bool { _, ok := alice.svc.Entry(id); return ok })
	}
	frames := tap.all()
	s0, first := uint64(0), -1
	for i, f := range frames {
		if f.name == hub.EventSnapshotEnd {
			s0, _ = srcOf(f.id)
			first = i
			break
		}
	}
	_, last := streamMsgs(t, c, s0)
	waitCond(t, "alice's feed at the stream's last message", func() bool {
		for _, f := range tap.all() {
			if n, ok := srcOf(f.id); ok && n >= last {
				return true
			}
		}
		return false
	}, func() string { return tail(alice.logs(), 30) })
	frames = tap.all()
	msgs, _ := streamMsgs(t, c, s0)
	want := map[string]int{}
	for seq, data := range msgs {
		if seq > last {
			continue
		}
		for _, it := range items(t, data) {
			want[it]++
		}
	}
	got := map[string]int{}
	var run acrossRun
	moved := false
	for _, f := range frames[first+1:] {
		switch {
		case f.name == hub.EventSnapshotBegin:
			t.Fatalf("alice got a snapshot from %s after her first", f.host)
		case f.name == hub.EventHello:
			var h hub.Hello
			_ = json.Unmarshal(f.data, &h)
			if !h.Resumed {
				t.Fatalf("the hello of %s says not resumed", f.host)
			}
			if !moved {
				moved, run.back = true, f.at.Sub(stopped)
			}
		case f.name == hub.EventEvents:
			if n, ok := srcOf(f.id); ok && n > last {
				continue
			}
			for _, it := range items(t, f.data) {
				got[it]++
			}
		}
	}
	if !moved {
		t.Fatal("alice's dashboard never connected to another hub")
	}
	missing, doubled := 0, 0
	for it, n := range want {
		if got[it] < n {
			missing += n - got[it]
		}
	}
	for it, n := range got {
		if n > want[it] {
			doubled += n - want[it]
		}
	}
	if missing > 0 || doubled > 0 {
		t.Fatalf("alice's feed after her snapshot, against the stream's %d messages (seq %d to %d): %d events missing, %d doubled",
			len(msgs), s0+1, last, missing, doubled)
	}
	t.Logf("alice read %d events of %d stream messages after her snapshot; back on another hub %s after hub 1 stopped", len(got), len(msgs), run.back)
	return run
}

// TestDashboardResumesOnAnotherHub: see moveAcross.
func TestDashboardResumesOnAnotherHub(t *testing.T) {
	moveAcross(t)
}

// TestResumeOutsideTheWindowIsASnapshot: hub 2 keeps a window of 4
// events; an id of hub 1's from before many more stream messages is past
// it, so hub 2 sends a snapshot and says why ("window").
func TestResumeOutsideTheWindowIsASnapshot(t *testing.T) {
	c := startNATSCluster(t)
	agents := startCountedAgents(t, 2)
	one := teamHub(t, c, agents, "hub1")
	two := teamHub(t, c, agents, "hub2", func(_ *jetstore.Store, o *hub.Options) { o.Window = 4 })
	fxs := []*fixture{one, two}
	waitSpread(t, fxs, agents)
	waitFleets(t, fxs, agents)
	rf := one.openFeed("carol", "")
	es := rf.wait("the snapshot's end", has(hub.EventSnapshotEnd))
	old := es[len(es)-1].id
	for _, f := range es {
		if f.name == hub.EventSnapshotEnd {
			old = f.id
		}
	}
	if _, ok := srcOf(old); !ok {
		t.Fatalf("hub 1's snapshot ends at %q, not a team's id", old)
	}
	p0 := two.h.Stats().Position
	for range 10 {
		agents[0].ag.Start("ask")
		agents[1].ag.Start("ask")
	}
	// Hub 2 has taken in many more events than its window holds: those
	// just after old are let go.
	waitCond(t, "hub 2's window past the id", func() bool { st := two.h.Stats(); return st.Position > p0+16 && st.Window <= 4 })
	got := two.openFeed("carol", old).wait("a snapshot", has(hub.EventSnapshotBegin))
	for _, e := range got {
		if e.name == hub.EventHello && strings.Contains(e.data, `"resumed":true`) {
			t.Fatalf("hub 2 says it resumed an id outside its window: %s", e.data)
		}
		if e.name == hub.EventSnapshotBegin {
			var b hub.SnapshotBegin
			_ = json.Unmarshal([]byte(e.data), &b)
			if b.Reason != "window" {
				t.Fatalf("the snapshot's reason is %q, want window", b.Reason)
			}
		}
	}
}

// TestDashboardBackOnAnotherHubFigures: moveAcross ten times, the time
// from hub 1's end to the dashboard resumed on another hub, p50/p99.
// Only with A2ATOP_FIGURES=1.
func TestDashboardBackOnAnotherHubFigures(t *testing.T) {
	if os.Getenv("A2ATOP_FIGURES") != "1" {
		t.Skip("figures: set A2ATOP_FIGURES=1")
	}
	var ds []time.Duration
	for i := range 10 {
		t.Run(strconv.Itoa(i), func(t *testing.T) { ds = append(ds, moveAcross(t).back) })
	}
	slices.Sort(ds)
	if len(ds) > 0 {
		t.Logf("dashboard resumed on another hub after hub 1 stopped, %d runs: p50 %s p99 %s (all: %v)", len(ds), ds[len(ds)/2], ds[len(ds)-1], ds)
	}
}
