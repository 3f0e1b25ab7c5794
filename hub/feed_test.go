package hub_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/r3labs/sse/v2"
	"gopkg.in/cenkalti/backoff.v1"

	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/model"
)

// rawEvent is one event of the feed as r3labs' client delivers it.
type rawEvent struct {
	name, id, data string
}

// withID reports whether the hub gave the event an id of its own (the
// client repeats the last id on events that have none).
func (e rawEvent) withID() bool {
	switch e.name {
	case hub.EventEvents, hub.EventJournal, hub.EventClaim, hub.EventRelease, hub.EventPosition, hub.EventSnapshotEnd:
		return true
	}
	return false
}

// rawFeed is one connection to the feed, read with r3labs/sse/v2's
// client, every event kept.
type rawFeed struct {
	t      *testing.T
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	events []rawEvent
	err    error
}

// openFeed connects to the feed as the operator, sending lastID as
// Last-Event-ID when it is not "".
func (fx *fixture) openFeed(operator, lastID string) *rawFeed {
	c := sse.NewClient(fx.srv.URL+"/v1/feed", sse.ClientMaxBufferSize(2*hub.MaxEventBytes))
	c.Headers["Authorization"] = "Bearer " + tokens[operator]
	c.ReconnectStrategy = &backoff.StopBackOff{}
	if lastID != "" {
		c.LastEventID.Store([]byte(lastID))
	}
	ctx, cancel := context.WithCancel(context.Background())
	rf := &rawFeed{t: fx.t, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(rf.done)
		err := c.SubscribeWithContext(ctx, "", func(m *sse.Event) {
			rf.mu.Lock()
			rf.events = append(rf.events, rawEvent{string(m.Event), string(m.ID), string(m.Data)})
			rf.mu.Unlock()
		})
		rf.mu.Lock()
		rf.err = err
		rf.mu.Unlock()
	}()
	fx.t.Cleanup(rf.close)
	return rf
}

func (rf *rawFeed) close() {
	rf.cancel()
	<-rf.done
}

func (rf *rawFeed) all() []rawEvent {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	return append([]rawEvent(nil), rf.events...)
}

// wait waits until cond holds on the events read so far.
func (rf *rawFeed) wait(what string, cond func([]rawEvent) bool) []rawEvent {
	rf.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if es := rf.all(); cond(es) {
			return es
		}
		time.Sleep(5 * time.Millisecond)
	}
	var names []string
	for _, e := range rf.all() {
		names = append(names, e.name+"@"+e.id)
	}
	rf.t.Fatalf("the feed never showed %s; it read %d events: %s", what, len(names), strings.Join(names[:min(len(names), 30)], " "))
	return nil
}

func has(name string) func([]rawEvent) bool {
	return func(es []rawEvent) bool {
		for _, e := range es {
			if e.name == name {
				return true
			}
		}
		return false
	}
}

func mentions(ids ...a2a.TaskID) func([]rawEvent) bool {
	return func(es []rawEvent) bool {
		for _, id := range ids {
			seen := false
			for _, e := range es {
				seen = seen || e.name == hub.EventEvents && strings.Contains(e.data, string(id))
			}
			if !seen {
				return false
			}
		}
		return true
	}
}

// after is what the feed sent after the event with id, events with ids of
// their own only.
func after(es []rawEvent, id string) []rawEvent {
	var out []rawEvent
	seen := false
	for _, e := range es {
		if seen && e.withID() {
			out = append(out, e)
		}
		seen = seen || e.withID() && e.id == id
	}
	return out
}

func hello(t *testing.T, es []rawEvent) hub.Hello {
	t.Helper()
	if len(es) == 0 || es[0].name != hub.EventHello {
		t.Fatalf("the feed does not start with hello: %v", es)
	}
	var h hub.Hello
	if err := json.Unmarshal([]byte(es[0].data), &h); err != nil {
		t.Fatal(err)
	}
	return h
}

func snapshotReason(t *testing.T, es []rawEvent) string {
	t.Helper()
	for _, e := range es {
		if e.name == hub.EventSnapshotBegin {
			var b hub.SnapshotBegin
			if err := json.Unmarshal([]byte(e.data), &b); err != nil {
				t.Fatal(err)
			}
			return b.Reason
		}
	}
	return ""
}

// TestResumeWithinTheWindow: a subscriber that comes back with
// Last-Event-ID gets exactly what it missed (what a subscriber that
// stayed connected got after that id), and no snapshot.
func TestResumeWithinTheWindow(t *testing.T) {
	fx := newFixture(t)
	stayed := fx.openFeed("alice", "")
	stayed.wait("a snapshot", has(hub.EventSnapshotEnd))
	left := fx.openFeed("alice", "")
	es := left.wait("a snapshot", has(hub.EventSnapshotEnd))
	left.close()
	var pos string
	for _, e := range es {
		if e.withID() {
			pos = e.id
		}
	}
	ids := []a2a.TaskID{fx.ag.Start("ask"), fx.ag.Start("deploy"), fx.ag.Start("ask")}
	want := after(stayed.wait("the new tasks", mentions(ids...)), pos)

	back := fx.openFeed("alice", pos)
	wantFlat := flatten(t, want)
	got := back.wait("what it missed", func(es []rawEvent) bool {
		return len(flatten(t, after(append([]rawEvent{{name: hub.EventPosition, id: pos}}, es...), pos))) >= len(wantFlat)
	})
	if h := hello(t, got); !h.Resumed {
		t.Fatalf("hello says resumed = false for an id within the window")
	}
	if has(hub.EventSnapshotBegin)(got) {
		t.Fatal("a snapshot was sent to a subscriber that resumed")
	}
	gotFlat := flatten(t, after(append([]rawEvent{{name: hub.EventPosition, id: pos}}, got...), pos))
	for i := range wantFlat {
		if gotFlat[i] != wantFlat[i] {
			t.Fatalf("item %d after %s: resumed %s, stayed %s", i, pos, gotFlat[i], wantFlat[i])
		}
	}
}

// flatten lists what events say, one item each: every watcher event of
// an "events" feed event (the hub joins a run of them into one when a
// subscriber reads behind), and every other event whole. Two feeds that
// said the same things flatten alike, however they were cut.
func flatten(t *testing.T, es []rawEvent) []string {
	t.Helper()
	var out []string
	for _, e := range es {
		switch e.name {
		case hub.EventEvents:
			var evs struct{ Events []json.RawMessage }
			if err := json.Unmarshal([]byte(e.data), &evs); err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs.Events {
				out = append(out, string(ev))
			}
		case hub.EventPosition:
		default:
			out = append(out, e.name+" "+e.data)
		}
	}
	return out
}

// TestBeyondTheWindowASnapshot: an id older than the replay window, or of
// another run of the hub, gets a fresh snapshot, never a silent gap.
func TestBeyondTheWindowASnapshot(t *testing.T) {
	fx := newFixture(t, func(o *hub.Options) { o.Window = 4 })
	first := fx.openFeed("alice", "")
	es := first.wait("a snapshot", has(hub.EventSnapshotEnd))
	first.close()
	pos := es[len(es)-1].id
	ids := []a2a.TaskID{fx.ag.Start("ask"), fx.ag.Start("ask"), fx.ag.Start("ask"), fx.ag.Start("ask"), fx.ag.Start("ask")}
	fx.waitHub("the new tasks", func(f *model.Fleet) bool {
		for _, id := range ids {
			if f.Task(model.TaskKey{Agent: "agent", ID: id}) == nil {
				return false
			}
		}
		return true
	})
	// The log moves on past the window (the tasks, the agent's health).
	watch := fx.openFeed("carol", "")
	watch.wait("the log move past the window", func(es []rawEvent) bool { return len(es) > 0 && seqOf(es[len(es)-1].id) > seqOf(pos)+10 })
	// The snapshot holds every task, whatever the window dropped.
	late := fx.openFeed("alice", pos)
	got := late.wait("a snapshot", has(hub.EventSnapshotEnd))
	if h := hello(t, got); h.Resumed {
		t.Fatal("hello says resumed for an id beyond the window")
	}
	if r := snapshotReason(t, got); r != "window" {
		t.Errorf("snapshot reason %q, want window", r)
	}
	for _, id := range ids {
		found := false
		for _, e := range got {
			found = found || e.name == hub.EventTasks && strings.Contains(e.data, string(id))
		}
		if !found {
			t.Errorf("the snapshot lacks task %s", id)
		}
	}
	other := fx.openFeed("alice", "0000-3")
	if r := snapshotReason(t, other.wait("a snapshot", has(hub.EventSnapshotEnd))); r != "epoch" {
		t.Errorf("an id of another run: snapshot reason %q, want epoch", r)
	}
}

// TestFeedRefusals: no token, a wrong token: 401 in words, nothing of
// the feed.
func TestFeedRefusals(t *testing.T) {
	fx := newFixture(t)
	for _, tok := range []string{"", "not-a-token"} {
		req, _ := http.NewRequest(http.MethodGet, fx.srv.URL+"/v1/feed", nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body hub.ErrorBody
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body.Error, "token") {
			t.Errorf("token %q: %d %q, want 401 saying why", tok, resp.StatusCode, body.Error)
		}
	}
}

// seqOf is the sequence number of a feed id.
func seqOf(id string) int {
	_, n, _ := strings.Cut(id, "-")
	v, _ := strconv.Atoi(n)
	return v
}

// TestFeedShowsOnlyWhatTheOperatorMayWatch: an operator who may watch
// another agent gets none of this agent's tasks, journal lines or
// claims, in the snapshot or after, and positions that keep a resume
// past them.
func TestFeedShowsOnlyWhatTheOperatorMayWatch(t *testing.T) {
	fx := newFixture(t)
	erin := fx.openFeed("erin", "")
	erin.wait("a snapshot", has(hub.EventSnapshotEnd))
	alice := fx.attach("alice")
	id := fx.ag.Start("ask")
	alice.waitFor("the question", func(f *model.Fleet) bool { return alice.inInbox(f, id) })
	// The claim while the task waits (a claim is only on a task that
	// waits on a person), then the answer that ends it.
	if err := alice.cl.Claim(context.Background(), "agent", id, "answering"); err != nil {
		t.Fatal(err)
	}
	if o := alice.svc.Send(context.Background(), alice.prepare(id, approvals.Input{Kind: approvals.KindReply, Text: "main"})); o.Result != approvals.ResultAccepted {
		t.Fatal(o.Words())
	}
	es := erin.wait("a position past the answer", func(es []rawEvent) bool {
		return len(es) > 0 && es[len(es)-1].name == hub.EventPosition && seqOf(es[len(es)-1].id) >= seqOf(fx.h.Epoch()+"-"+strconv.FormatUint(fx.h.Stats().Position, 10))
	})
	late := fx.openFeed("erin", "").wait("a snapshot", has(hub.EventSnapshotEnd))
	for _, e := range append(es, late...) {
		if strings.Contains(e.data, string(id)) || e.name == hub.EventJournal || e.name == hub.EventClaim {
			t.Fatalf("erin's feed shows %s: %.200s", e.name, e.data)
		}
	}
}
