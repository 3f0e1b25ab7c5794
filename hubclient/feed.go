package hubclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/r3labs/sse/v2"
	"gopkg.in/cenkalti/backoff.v1"

	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/model"
)

// The feed is read with r3labs/sse/v2's Client, one per connection. Its
// own reconnect (a backoff that gives up after 15 minutes, and that a
// clean end of the stream stops) is turned off: Run reconnects, with
// its own backoff, for as long as it runs, and sets Last-Event-ID from
// what it applied. Its reader refuses an event larger than its buffer
// (64 KiB by default): the buffer is set to twice the largest event the
// hub sends. It delivers no comments, so the heartbeats are seen as
// bytes read, under the client's handler.

// defaultDead is how long a connection may stay silent before the hub's
// hello has said how often it sends heartbeats; minDead is the least
// silence that ends one, however often they come (a busy hub or client
// may miss a beat or two).
const (
	defaultDead = 45 * time.Second
	minDead     = 5 * time.Second
)

// Run reads the feed until ctx ends, reconnecting with backoff and
// jitter whenever the connection drops or stays silent for three
// heartbeats. With more than one hub (Options.Others) a connection that
// ends moves to the next hub at once; the backoff is only between
// rounds in which every hub failed. While it is down every agent is
// marked stale (a health event each) and writes are refused. It returns
// when ctx ends.
func (c *Client) Run(ctx context.Context) {
	defer c.ended()
	wait := c.o.MinBackoff
	failed := 0 // hubs that failed since the feed last delivered
	for ctx.Err() == nil {
		delivered, err := c.connect(ctx)
		if ctx.Err() != nil {
			return
		}
		if delivered {
			wait, failed = c.o.MinBackoff, 0
		}
		if failed++; len(c.hubs) > 1 {
			c.nextHub(err)
			if failed < len(c.hubs) { // another hub not tried in this round: at once
				c.down(ctx, err, 0)
				continue
			}
		}
		failed = 0
		d := wait/2 + rand.N(wait/2+1) // jitter: dashboards a hub restart dropped do not come back at once
		c.down(ctx, err, d)
		select {
		case <-ctx.Done():
			return
		case <-time.After(d):
		}
		wait = min(2*wait, c.o.MaxBackoff)
	}
}

// connect reads one connection of the feed until it ends. delivered
// says whether it got as far as the hub's hello.
func (c *Client) connect(ctx context.Context) (delivered bool, err error) {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn := &feedConn{c: c, ctx: cctx, cancel: cancel, redead: make(chan struct{}, 1)}
	conn.dead.Store(int64(defaultDead))
	conn.lastRead.Store(time.Now().UnixNano())
	sc := sse.NewClient(c.feedURL(), sse.ClientMaxBufferSize(2*hub.MaxEventBytes))
	sc.Connection = &http.Client{Transport: conn, CheckRedirect: noRedirects}
	sc.Headers["Authorization"] = "Bearer " + c.o.Token
	sc.ReconnectStrategy = &backoff.StopBackOff{}
	sc.ResponseValidator = func(_ *sse.Client, resp *http.Response) error {
		if resp.StatusCode != http.StatusOK {
			defer resp.Body.Close()
			return refusal(resp)
		}
		return nil
	}
	if id := c.lastID(); id != "" {
		sc.LastEventID.Store([]byte(id))
	}
	go conn.watch(cctx)
	err = sc.SubscribeWithContext(cctx, "", conn.handle)
	if conn.err != nil {
		err = conn.err
	}
	switch dead := conn.deadErr.Load(); {
	case dead != nil: // r3labs reports the cancel as the stream's end
		err = *dead
	case err == nil:
		err = errors.New("the hub ended the feed")
	}
	if _, ok := err.(*statusError); !ok && !errors.Is(err, errSilent) {
		err = c.netError(err)
	}
	return conn.hello.Load(), err
}

// feedURL is the feed's URL with the journal position of the Service,
// so that a snapshot sends only the lines after it.
func (c *Client) feedURL() string {
	u := c.URL() + "/v1/feed"
	c.mu.Lock()
	svc := c.svc
	c.mu.Unlock()
	if svc == nil {
		return u
	}
	if n, h := svc.Followed(); n > 0 {
		u += "?journal=" + strconv.Itoa(n) + "&journal_hash=" + url.QueryEscape(h)
	}
	return u
}

// lastID is the Last-Event-ID of the next connection: the position
// applied last, "" before any.
func (c *Client) lastID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastRaw
}

// localID is the part of a feed id that names the hub's run and its
// place in that hub's feed ("EPOCH-SEQ"); a team's hub adds
// "~TEAM~SRC", which another hub of the team reads.
func localID(id string) (epoch string, seq uint64, ok bool) {
	id, _, _ = strings.Cut(id, "~")
	e, n, ok := strings.Cut(id, "-")
	s, err := strconv.ParseUint(n, 10, 64)
	return e, s, ok && err == nil
}

var errSilent = errors.New("the hub's feed went silent (no heartbeat)")

// feedConn is one connection of the feed: its transport (which notes
// when bytes were last read), its watchdog and its handler.
type feedConn struct {
	c        *Client
	ctx      context.Context
	cancel   context.CancelFunc
	lastRead atomic.Int64  // unix ns
	busy     atomic.Bool   // the handler is applying an event (it may wait for the dashboard)
	dead     atomic.Int64  // silence that ends the connection, ns
	redead   chan struct{} // dead changed: the watchdog's sleep is measured again
	deadErr  atomic.Pointer[error]
	hello    atomic.Bool
	err      error // a broken event: the connection ends (the handler's goroutine only)
	snapshot bool  // inside a snapshot (the handler's)
	// resync holds the snapshot's journal lines when the hub no longer
	// holds those after the Service's position: at the snapshot's end
	// they replace what the Service followed (the handler's).
	resync    []approvals.JournalLine
	resyncing bool
}

// RoundTrip implements http.RoundTripper: the client's transport, with
// the response body noting each read.
func (fc *feedConn) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := fc.c.o.Transport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &notingBody{rc: resp.Body, last: &fc.lastRead}
	return resp, nil
}

type notingBody struct {
	rc   io.ReadCloser
	last *atomic.Int64
}

func (b *notingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.last.Store(time.Now().UnixNano())
	}
	return n, err
}

func (b *notingBody) Close() error { return b.rc.Close() }

// watch ends the connection when nothing was read for three heartbeats
// while the handler was not busy. It sleeps until the silence would be
// long enough, not on a tick: an idle feed wakes it once a silence
// window (a few heartbeats), and the hello's shorter window wakes it
// (shorter) at once.
func (fc *feedConn) watch(ctx context.Context) {
	t := time.NewTimer(time.Duration(fc.dead.Load()))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-fc.redead:
		case <-t.C:
		}
		if fc.busy.Load() {
			fc.lastRead.Store(time.Now().UnixNano())
		}
		idle, dead := time.Since(time.Unix(0, fc.lastRead.Load())), time.Duration(fc.dead.Load())
		if idle > dead {
			err := fmt.Errorf("%w for %s", errSilent, idle.Round(time.Second))
			fc.deadErr.Store(&err)
			fc.cancel()
			return
		}
		t.Reset(dead - idle + time.Millisecond)
	}
}

// handle applies one event of the feed. r3labs calls it on its
// subscription's goroutine, one event at a time, in order.
func (fc *feedConn) handle(msg *sse.Event) {
	if fc.err != nil {
		return
	}
	fc.busy.Store(true)
	defer func() { // the silence is counted from the end of a busy handler
		fc.lastRead.Store(time.Now().UnixNano())
		fc.busy.Store(false)
	}()
	if err := fc.apply(string(msg.Event), msg.Data); err != nil {
		fc.err = fmt.Errorf("hub feed: a %q event: %w", msg.Event, err)
		fc.c.log.Error("feed: dropping the connection; the next one starts from a snapshot", "err", fc.err)
		fc.c.setPosition("") // what follows an event not applied is not resumable
		fc.cancel()
		return
	}
	if len(msg.ID) > 0 && !fc.snapshot {
		fc.c.setPosition(string(msg.ID))
	}
}

// apply applies one event by its name.
func (fc *feedConn) apply(name string, data []byte) error {
	c := fc.c
	switch name {
	case hub.EventHello:
		var h hub.Hello
		if err := json.Unmarshal(data, &h); err != nil {
			return err
		}
		if h.HeartbeatMS > 0 {
			fc.dead.Store(int64(max(3*time.Duration(h.HeartbeatMS)*time.Millisecond, minDead)))
			select { // the watchdog sleeps for the new window
			case fc.redead <- struct{}{}:
			default:
			}
		}
		fc.hello.Store(true)
		if h.Resumed {
			c.up(fc.ctx, false)
		}
		c.log.Info("feed: connected", "hub", c.URL(), "operator", h.Operator, "resumed", h.Resumed)
	case hub.EventSnapshotBegin:
		var b hub.SnapshotBegin
		if err := json.Unmarshal(data, &b); err != nil {
			return err
		}
		fc.snapshot = true
		c.setPosition("") // a snapshot cut short is started over
		fc.resyncing, fc.resync = c.checkJournal(b.JournalFrom, b.JournalTrimmed), nil
		c.setRecord(b.Record)
		c.log.Info("feed: snapshot", "reason", b.Reason, "agents", b.Agents, "tasks", b.Tasks, "lines", b.Lines)
	case hub.EventSnapshotEnd:
		fc.snapshot = false
		if fc.resyncing {
			if err := c.resyncJournal(fc.resync); err != nil {
				return err
			}
			fc.resyncing, fc.resync = false, nil
		}
		c.up(fc.ctx, true)
	case hub.EventAgents, hub.EventTasks, hub.EventEvents:
		return c.applyEvents(fc.ctx, data)
	case hub.EventJournal:
		if fc.resyncing {
			return fc.gather(data)
		}
		return c.applyJournal(data)
	case hub.EventClaims:
		var cs hub.Claims
		if err := json.Unmarshal(data, &cs); err != nil {
			return err
		}
		c.setClaims(cs.Claims)
	case hub.EventClaim:
		var cl hub.Claim
		if err := json.Unmarshal(data, &cl); err != nil {
			return err
		}
		c.addClaim(cl)
	case hub.EventRelease:
		var r hub.Release
		if err := json.Unmarshal(data, &r); err != nil {
			return err
		}
		c.dropClaim(claimKey{r.Agent, string(r.Task), r.Operator})
	case hub.EventResync:
		c.log.Warn("feed: the hub is sending a fresh snapshot", "reason", string(data))
	case hub.EventRecord:
		return c.applyRecord(data)
	case hub.EventPosition:
	default:
		c.log.Debug("feed: an event this a2atop does not know", "event", name)
	}
	return nil
}

// applyEvents hands the events to the dashboard, keeping each agent's
// last health for when the feed drops and comes back.
func (c *Client) applyEvents(ctx context.Context, data []byte) error {
	var es hub.Events
	if err := json.Unmarshal(data, &es); err != nil {
		return err
	}
	for _, we := range es.Events {
		ev, err := we.Model()
		if err != nil {
			return err
		}
		c.mu.Lock()
		c.heardLocked(ev.Agent)
		if ev.Kind == model.EventHealth {
			c.health[ev.Agent] = *ev.Health
		}
		c.picture = time.Now()
		c.mu.Unlock()
		if !c.emit(ctx, ev) {
			return nil
		}
	}
	return nil
}

// applyJournal hands the lines to the Service that follows the journal.
func (c *Client) applyJournal(data []byte) error {
	var j hub.Journal
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	c.mu.Lock()
	svc := c.svc
	c.mu.Unlock()
	if svc == nil {
		return nil // watch --jsonl follows no journal
	}
	lines := make([]approvals.JournalLine, len(j.Lines))
	for i, l := range j.Lines {
		lines[i] = l.JournalLine()
	}
	if err := svc.Follow(lines); err != nil {
		return fmt.Errorf("following the hub's journal: %w", err)
	}
	if len(lines) > 0 {
		c.mu.Lock()
		c.changedLocked()
		c.mu.Unlock()
	}
	return nil
}

// checkJournal notes a hub whose journal is not the one the Service
// followed: it sends its lines from from, while the Service holds lines
// after it. When the hub let go of lines after the Service's position
// (trimmed being the last), the Service is to take the snapshot's lines
// in place of its own: checkJournal says so. Any other difference is
// another journal file: the dashboard sends nothing until it restarts.
func (c *Client) checkJournal(from, trimmed int) (resync bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.svc == nil {
		return false
	}
	n, _ := c.svc.Followed()
	switch {
	case n <= from:
	case trimmed >= n:
		c.log.Warn("feed: the hub no longer holds in memory the journal lines after this dashboard's; taking its journal afresh from the snapshot", "followed", n, "trimmed", trimmed)
		return true
	default:
		c.diverged = fmt.Errorf("the hub's journal is not the one this dashboard followed (its line %d differs); restart a2atop --hub to read it again", n)
		c.log.Error("feed: " + c.diverged.Error())
	}
	return false
}

// up marks the feed connected; restore re-sends each agent's last health
// from the hub (a resumed feed sends no snapshot to clear the stale marks).
func (c *Client) up(ctx context.Context, snapshot bool) {
	c.mu.Lock()
	if !c.connected || c.lastErr != "" {
		c.changedLocked()
	}
	c.connected, c.lastErr = true, ""
	var restore []model.Event
	if !snapshot {
		for _, a := range c.agents {
			h := c.health[a] // none yet: connecting, no longer marked HubDown
			restore = append(restore, model.Event{Kind: model.EventHealth, Agent: a, At: time.Now(), Health: &h})
		}
	}
	c.mu.Unlock()
	for _, ev := range restore {
		c.emit(ctx, ev)
	}
	c.syncOnce.Do(func() { close(c.synced) })
}

// down marks the feed disconnected and every agent stale: a health event
// each, saying the hub is unreachable and when the next attempt is.
func (c *Client) down(ctx context.Context, err error, retry time.Duration) {
	msg := err.Error()
	c.mu.Lock()
	was := c.connected
	if was || c.lastErr != msg {
		c.changedLocked()
	}
	c.connected, c.lastErr = false, msg
	picture := c.picture
	agents := append([]string(nil), c.agents...)
	health := make(map[string]model.HealthUpdate, len(c.health))
	for k, v := range c.health {
		health[k] = v
	}
	c.mu.Unlock()
	if was {
		c.log.Warn("feed: disconnected; reconnecting", "err", msg, "in", retry.Round(time.Millisecond).String())
	}
	words := msg + "; showing what the hub last sent"
	if !picture.IsZero() {
		words += " (" + picture.Format("15:04:05") + ")"
	}
	words += ", reconnecting"
	now := time.Now()
	for _, a := range agents {
		h := health[a]
		h.State, h.Err, h.NextRetry, h.Streams, h.HubDown = model.HealthUnreachable, words, now.Add(retry), 0, true
		c.emit(ctx, model.Event{Kind: model.EventHealth, Agent: a, At: now, Health: &h})
	}
}

// emit hands one event to the dashboard, waiting while its channel is
// full (the hub resyncs a dashboard that falls too far behind); false
// when ctx ended first.
func (c *Client) emit(ctx context.Context, ev model.Event) bool {
	select {
	case c.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// setPosition records the feed position applied last ("" for none).
func (c *Client) setPosition(id string) {
	epoch, seq := "", uint64(0)
	if id != "" {
		e, n, ok := localID(id)
		if !ok {
			return
		}
		epoch, seq = e, n
	}
	c.mu.Lock()
	c.epoch, c.seq, c.lastRaw = epoch, seq, id
	close(c.moved)
	c.moved = make(chan struct{})
	c.mu.Unlock()
}

// waitFeed waits, at most max, until the feed has applied the position
// id: what an answer of the hub says is then in the fleet and the
// journal the dashboard reads.
func (c *Client) waitFeed(ctx context.Context, id string, max time.Duration) {
	e, seq, ok := localID(id)
	if !ok {
		return
	}
	deadline := time.After(max)
	for {
		c.mu.Lock()
		done := c.epoch != e && c.epoch != "" || c.epoch == e && c.seq >= seq
		moved := c.moved
		c.mu.Unlock()
		if done {
			return
		}
		select {
		case <-moved:
		case <-deadline:
			return
		case <-ctx.Done():
			return
		}
	}
}

// gather keeps a snapshot's journal lines for resyncJournal.
func (fc *feedConn) gather(data []byte) error {
	var j hub.Journal
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	for _, l := range j.Lines {
		fc.resync = append(fc.resync, l.JournalLine())
	}
	return nil
}

// resyncJournal replaces the journal the Service followed with the
// snapshot's lines (see approvals.Service.ResetFollow).
func (c *Client) resyncJournal(lines []approvals.JournalLine) error {
	c.mu.Lock()
	svc := c.svc
	c.mu.Unlock()
	if svc == nil {
		return nil
	}
	if err := svc.ResetFollow(lines); err != nil {
		return fmt.Errorf("taking the hub's journal afresh: %w", err)
	}
	n, _ := svc.Followed()
	c.log.Info("feed: took the hub's journal afresh", "lines", len(lines), "followed", n)
	return nil
}
