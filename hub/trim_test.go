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

// TestDashboardPastTheTrimmedJournalIsTold: bob's dashboard (the real
// hubclient) follows the journal, is cut off while alice makes more
// decisions than the hub's journal_memory, and comes back past the feed's
// replay window: the hub no longer holds lines after bob's position, so
// bob gets no journal with a gap: his dashboard says so and sends
// nothing until it is restarted; one attached afresh decides.
func TestDashboardPastTheTrimmedJournalIsTold(t *testing.T) {
	const limit = 8
	fx := newFixture(t, func(o *hub.Options) { o.Journal.Memory, o.Window = limit, 8 })
	alice := fx.attach("alice")
	g := &gate{base: http.DefaultTransport.(*http.Transport).Clone()}
	bob := fx.attach("bob", func(o *hubclient.Options) { o.Transport = g })
	decide := func(d *dash, count int) *approvals.Decision {
		t.Helper()
		var last *approvals.Decision
		for range count {
			id := fx.ag.Start("ask")
			d.waitFor("the question", func(f *model.Fleet) bool { return d.inInbox(f, id) })
			last = d.prepare(id, approvals.Input{Kind: approvals.KindReply, Text: "yes"})
			if o := d.svc.Send(context.Background(), last); o.Result != approvals.ResultAccepted {
				t.Fatalf("decision: %s (%v)", o.Words(), o.Err)
			}
		}
		return last
	}
	decide(alice, 2)
	followed := func() bool { n, _ := bob.svc.Followed(); m, _ := alice.svc.Followed(); return n == m }
	bob.waitFor("alice's decisions", func(*model.Fleet) bool { return followed() })
	g.shut.Store(true)
	fx.srv.CloseClientConnections()
	decide(alice, 4*limit)
	id := fx.ag.Start("ask")
	alice.waitFor("the question", func(f *model.Fleet) bool { return alice.inInbox(f, id) })
	g.shut.Store(false)
	bob.waitFor("the question after the gap, the snapshot whole", func(f *model.Fleet) bool { up, _ := bob.cl.Connected(); return up && bob.inInbox(f, id) })
	o := bob.svc.Send(context.Background(), bob.prepare(id, approvals.Input{Kind: approvals.KindReply, Text: "no"}))
	if o.Err == nil || !strings.Contains(o.Err.Error(), "no longer holds in memory journal lines after line") || o.Result == approvals.ResultAccepted {
		t.Fatalf("bob after the trimmed part: %s (%v); want told that the hub no longer holds the lines after his, nothing sent", o.Words(), o.Err)
	}
	if n := fx.ag.OnTask(id); n != 0 {
		t.Errorf("the question received %d messages; want none from bob", n)
	}
	fresh := fx.attach("alice")
	fresh.waitFor("the question, the snapshot whole", func(f *model.Fleet) bool { up, _ := fresh.cl.Connected(); return up && fresh.inInbox(f, id) })
	if o := fresh.svc.Send(context.Background(), fresh.prepare(id, approvals.Input{Kind: approvals.KindReply, Text: "yes"})); o.Result != approvals.ResultAccepted {
		t.Fatalf("a dashboard attached afresh: %s (%v)", o.Words(), o.Err)
	}
}
