package hub_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/hubclient"
	"a2atop/model"
)

// TestFeedJournalIsBounded: a hub whose journal_memory is 8 makes N
// decisions, then 4N in all, through the real hub over HTTP (a real SDK
// agent asks, alice's attached dashboard replies): the feed log holds
// the lines of at most the limit and a quarter more entries, not one
// line more per decision; the journal file still has every line. A
// dashboard that attaches afterwards (the real hubclient) holds the
// newest decisions whole, as the hub's Service does, with no damage, and
// decides once more; a connection whose journal position is before a
// line let go is sent the held lines from the start (journalFrom 0) and
// told what was let go, never the lines after its position with a gap.
func TestFeedJournalIsBounded(t *testing.T) {
	const limit, n = 8, 10
	fx := newFixture(t, func(o *hub.Options) { o.Journal.Memory = limit })
	alice := fx.attach("alice")
	decide := func(d *dash, count int) {
		t.Helper()
		for range count {
			id := fx.ag.Start("ask")
			d.waitFor("the question", func(f *model.Fleet) bool { return d.inInbox(f, id) })
			if o := d.svc.Send(context.Background(), d.prepare(id, approvals.Input{Kind: approvals.KindReply, Text: "yes"})); o.Result != approvals.ResultAccepted {
				t.Fatalf("decision: %s (%v)", o.Words(), o.Err)
			}
		}
	}
	decide(alice, n)
	lines1, bytes1 := fx.h.FeedJournal()
	decide(alice, 3*n)
	lines4, bytes4 := fx.h.FeedJournal()
	t.Logf("the feed log's journal: %d lines, %d B after %d decisions; %d lines, %d B after %d", lines1, bytes1, n, lines4, bytes4, 4*n)
	if perEntry := 4; lines4 > perEntry*(limit+limit/4+1) {
		t.Errorf("the feed log holds %d journal lines after %d decisions (%d after %d): it grows with the decisions; want at most %d",
			lines4, 4*n, lines1, n, perEntry*(limit+limit/4+1))
	}
	raw, err := os.ReadFile(fx.journal)
	if err != nil {
		t.Fatal(err)
	}
	fileLines := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
	if len(fileLines) < 3*4*n {
		t.Errorf("the journal file has %d lines after %d decisions; want every one (3 each)", len(fileLines), 4*n)
	}

	// A dashboard attached now holds what the hub's Service holds, whole.
	bob := fx.attach("bob")
	want := map[string]approvals.Entry{}
	for _, e := range fx.h.Service().Journal() {
		if e.MessageID != "" {
			want[e.MessageID] = e
		}
	}
	bob.waitFor("the hub's journal", func(*model.Fleet) bool {
		n, _ := bob.svc.Followed()
		m, _ := alice.svc.Followed()
		return n == m
	})
	got := 0
	for _, e := range bob.svc.Journal() {
		if e.MessageID == "" {
			continue
		}
		got++
		w, ok := want[e.MessageID]
		if !ok || w.Result != e.Result || w.Attempts != e.Attempts {
			t.Errorf("bob holds decision %s as %s (attempts %d); the hub holds it as %s (attempts %d, held %v)",
				e.MessageID, e.Result, e.Attempts, w.Result, w.Attempts, ok)
		}
	}
	if got < limit {
		t.Errorf("bob holds %d decisions; want at least the newest %d", got, limit)
	}
	if d := bob.svc.Damage(); len(d) > 0 {
		t.Errorf("bob's journal starts partway and finds damage: %+v", d)
	}
	decide(bob, 1)

	// A connection that followed up to line 1 (let go since, with lines
	// after it): the held lines from the start, and what was let go.
	b := snapshotBegin(t, fx, 1, approvals.LineHash(fileLines[0]))
	if b.JournalFrom != 0 || b.JournalTrimmed < 2 {
		t.Errorf("a connection at line 1, let go: journalFrom %d, journalTrimmed %d; want 0 and the last line let go", b.JournalFrom, b.JournalTrimmed)
	}
}

// snapshotBegin connects to the feed as carol with a Last-Event-ID of
// another run of the hub and the journal position (line, hash), and
// returns the snapshot's SnapshotBegin.
func snapshotBegin(t *testing.T, fx *fixture, line int, hash string) hub.SnapshotBegin {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u := fx.srv.URL + "/v1/feed?journal=" + strconv.Itoa(line) + "&journal_hash=" + url.QueryEscape(hash)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tokens["carol"])
	req.Header.Set("Last-Event-ID", "otherrun-5")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 2*hub.MaxEventBytes)
	event, data := "", ""
	for sc.Scan() { // an event's fields come in any order; a blank line ends it
		l := sc.Text()
		if name, ok := strings.CutPrefix(l, "event: "); ok {
			event = name
		}
		if d, ok := strings.CutPrefix(l, "data: "); ok {
			data = d
		}
		if l != "" {
			continue
		}
		if event == hub.EventSnapshotBegin {
			var b hub.SnapshotBegin
			if err := json.Unmarshal([]byte(data), &b); err != nil {
				t.Fatal(err)
			}
			return b
		}
		event, data = "", ""
	}
	t.Fatalf("the feed ended before its snapshot: %v", sc.Err())
	return hub.SnapshotBegin{}
}

// gate is a transport that fails every request while it is shut.
type gate struct {
	shut atomic.Bool
	base http.RoundTripper
}

func (g *gate) RoundTrip(r *http.Request) (*http.Response, error) {
	if g.shut.Load() {
		return nil, errors.New("gate shut")
	}
	return g.base.RoundTrip(r)
}

// TestDashboardPastTheTrimmedJournalResyncs: bob's dashboard (the real
// hubclient) follows the journal, is cut off while alice makes more
// decisions than the hub's journal_memory (the last on a question bob
// saw), and comes back past the feed's replay window: the hub no longer
// holds lines after bob's position, so bob's Service lets go of the
// journal it followed and takes the snapshot's in its place, in one step
// (the inbox reading it all along), never a journal with a gap. Then it
// holds what the hub holds, no damage; the question alice decided shows
// her decision (bob cannot decide it again without confirming again);
// bob decides a new question once, and no one decides it again.
func TestDashboardPastTheTrimmedJournalResyncs(t *testing.T) {
	const limit = 8
	fx := newFixture(t, func(o *hub.Options) { o.Journal.Memory, o.Window = limit, 8 })
	alice := fx.attach("alice")
	g := &gate{base: http.DefaultTransport.(*http.Transport).Clone()}
	bob := fx.attach("bob", func(o *hubclient.Options) { o.Transport = g })
	ask := func(d *dash) a2a.TaskID {
		t.Helper()
		id := fx.ag.Start("ask")
		d.waitFor("the question", func(f *model.Fleet) bool { return d.inInbox(f, id) })
		return id
	}
	send := func(d *dash, id a2a.TaskID) {
		t.Helper()
		if o := d.svc.Send(context.Background(), d.prepare(id, approvals.Input{Kind: approvals.KindReply, Text: "yes"})); o.Result != approvals.ResultAccepted {
			t.Fatalf("%s's decision: %s (%v)", d.me.Operator, o.Words(), o.Err)
		}
	}
	for range 2 {
		send(alice, ask(alice))
	}
	seen := ask(alice)
	bob.waitFor("alice's decisions and the question", func(f *model.Fleet) bool {
		n, _ := bob.svc.Followed()
		m, _ := alice.svc.Followed()
		return n == m && bob.inInbox(f, seen)
	})
	before, _ := bob.svc.Followed()
	g.shut.Store(true)
	fx.srv.CloseClientConnections()
	for range 4 * limit {
		send(alice, ask(alice))
	}
	send(alice, seen)
	id := ask(alice)

	// bob's inbox reads his Service while it resyncs: never a state
	// between the two journals (-race checks the rest).
	reading := make(chan struct{})
	stop := make(chan struct{})
	go func() {
		defer close(reading)
		for range 100_000 {
			select {
			case <-stop:
				return
			default:
			}
			bob.read(func(f *model.Fleet) { bob.svc.Queue(f, model.SortAge) })
			_ = bob.svc.Journal()
			time.Sleep(time.Millisecond)
		}
	}()
	g.shut.Store(false)
	bob.waitFor("the journal after the gap and the new question", func(f *model.Fleet) bool {
		up, _ := bob.cl.Connected()
		n, _ := bob.svc.Followed()
		m, _ := alice.svc.Followed()
		return up && n == m && n > before && bob.inInbox(f, id)
	})
	close(stop)
	<-reading

	// bob holds what the hub holds, as it holds it.
	want := map[string]approvals.Entry{}
	for _, e := range fx.h.Service().Journal() {
		if e.MessageID != "" {
			want[e.MessageID] = e
		}
	}
	got := map[string]bool{}
	for _, e := range bob.svc.Journal() {
		if e.MessageID == "" {
			continue
		}
		got[e.MessageID] = true
		if w, ok := want[e.MessageID]; !ok || w.Result != e.Result || w.Attempts != e.Attempts {
			t.Errorf("bob holds decision %s as %s (attempts %d); the hub as %s (attempts %d, held %v)", e.MessageID, e.Result, e.Attempts, w.Result, w.Attempts, ok)
		}
	}
	for mid := range want {
		if !got[mid] {
			t.Errorf("the hub holds decision %s; bob does not", mid)
		}
	}
	if bob.svc.Forgotten() == 0 {
		t.Error("bob let go of the decisions the hub no longer holds and says none left memory")
	}
	if d := bob.svc.Damage(); len(d) > 0 {
		t.Errorf("bob's journal after the resync finds damage: %+v", d)
	}

	// The question alice decided while bob was away: bob sees her decision.
	var it approvals.Item
	bob.read(func(f *model.Fleet) {
		it, _ = bob.svc.ItemOf(f, model.TaskKey{Agent: "agent", ID: seen})
	})
	if it.Task != nil && it.Task.Snapshot != nil {
		if _, err := bob.svc.Prepare(it, approvals.Input{Kind: approvals.KindReply, Text: "no"}); err == nil {
			t.Error("bob prepared a decision on the question alice decided while he was away, without confirming again")
		}
	}
	if p, ok := bob.svc.Prior("agent", seen, want[lastOn(want, seen)].Prompt); !ok || p.Approver == "" || p.MessageID != lastOn(want, seen) {
		t.Errorf("bob's journal has no decision of alice's on the question she decided while he was away (%+v %v)", p, ok)
	}

	// bob decides the new question once; no one decides it again.
	send(bob, id)
	fresh := fx.attach("alice")
	fresh.waitFor("bob's decision", func(*model.Fleet) bool {
		_, ok := fresh.svc.Prior("agent", id, bob.svc.Journal()[0].Prompt)
		return ok
	})
	fresh.read(func(f *model.Fleet) {
		if it, ok := fresh.svc.ItemOf(f, model.TaskKey{Agent: "agent", ID: id}); ok && it.Task.Class == model.ClassInterrupted {
			if _, err := fresh.svc.Prepare(it, approvals.Input{Kind: approvals.KindReply, Text: "no"}); err == nil {
				t.Error("alice prepared a second decision on bob's question without confirming again")
			}
		}
	})
	if n := fx.ag.OnTask(id); n != 1 {
		t.Errorf("the new question received %d messages; want bob's one", n)
	}
	if n := fx.ag.OnTask(seen); n != 1 {
		t.Errorf("the question alice decided received %d messages; want hers", n)
	}
}

// lastOn is the messageId of the newest decision in es on the task.
func lastOn(es map[string]approvals.Entry, id a2a.TaskID) string {
	best := ""
	for mid, e := range es {
		if e.TaskID == id && (best == "" || e.DecidedAt.After(es[best].DecidedAt)) {
			best = mid
		}
	}
	return best
}
