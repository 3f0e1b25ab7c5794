package hub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/r3labs/sse/v2"
)

// The feed is served with r3labs/sse/v2's Server, which writes the SSE
// frames. Its Stream hands each event to every subscriber in turn and
// waits for each one (a 64-event buffer per connection), its event log
// grows without bound and numbers events itself, and it parses
// Last-Event-ID as an integer. So each connection gets a stream of its
// own with AutoReplay off, and the hub keeps the log, the ids and the
// replay window: a subscriber is a place in the hub's log, read by a
// pump goroutine of its own that publishes to its stream. The hub never
// waits for a subscriber: one that falls out of the window gets a fresh
// snapshot, and one whose connection takes no bytes for StallTimeout
// while the hub has some for it is closed (it reconnects and resumes,
// or gets a snapshot).

// newSSEServer is the r3labs server of the feed.
func newSSEServer(h *Hub) *sse.Server {
	s := sse.New()
	s.AutoReplay = false
	s.AutoStream = false
	s.BufferSize = 8
	s.Headers = map[string]string{"X-Accel-Buffering": "no"}
	s.OnSubscribe = func(id string, _ *sse.Subscriber) { h.subs.ready(id) }
	return s
}

// subscriber is one connection to the feed.
type subscriber struct {
	h      *Hub
	id     string // its r3labs stream
	op     *Operator
	ctx    context.Context
	cancel context.CancelFunc
	rc     *http.ResponseController
	readyc chan struct{}
	once   sync.Once
	// writing is when the write to the connection under way began (unix
	// ns), 0 while none is: a reader that takes no bytes keeps a write
	// under way.
	writing atomic.Int64
	// published and written count the bytes handed to the stream and the
	// bytes written to the connection: the pump waits while more than
	// maxInFlight are between them, so a slow reader holds at most that
	// much of the hub's memory (r3labs' buffers hold 72 events, whatever
	// their size).
	published, written atomic.Int64
	drained            chan struct{} // a write happened
	jsent              int           // the last journal line sent (the pump's)
}

// maxInFlight is how many bytes a connection may have published and not
// yet written.
const maxInFlight = 1 << 20

// subscribers are the connections to the feed. Safe for concurrent use.
type subscribers struct {
	mu   sync.Mutex
	byID map[string]*subscriber
}

func (ss *subscribers) add(s *subscriber) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.byID == nil {
		ss.byID = map[string]*subscriber{}
	}
	ss.byID[s.id] = s
}

func (ss *subscribers) remove(s *subscriber) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.byID, s.id)
}

// ready is r3labs' OnSubscribe: the connection's subscriber is
// registered with its stream, so what the pump publishes reaches it.
func (ss *subscribers) ready(id string) {
	ss.mu.Lock()
	s := ss.byID[id]
	ss.mu.Unlock()
	if s != nil {
		s.once.Do(func() { close(s.readyc) })
	}
}

// Len is the number of connections.
func (ss *subscribers) Len() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.byID)
}

func (ss *subscribers) all() []*subscriber {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	out := make([]*subscriber, 0, len(ss.byID))
	for _, s := range ss.byID {
		out = append(out, s)
	}
	return out
}

// closeStalled closes the connections where one write has been under
// way for longer than stall: their reader takes no bytes.
func (ss *subscribers) closeStalled(now time.Time, stall time.Duration, log *slog.Logger) {
	for _, s := range ss.all() {
		if b := s.writing.Load(); b != 0 && now.Sub(time.Unix(0, b)) > stall {
			log.Warn("feed: closing a connection that takes no bytes; it resumes or gets a snapshot when it reconnects",
				"operator", s.op.Name, "stalled", now.Sub(time.Unix(0, b)).Round(time.Millisecond).String())
			s.close()
		}
	}
}

func (ss *subscribers) closeAll() {
	for _, s := range ss.all() {
		s.close()
	}
}

// close ends the connection now, even while a write to it is stuck.
func (s *subscriber) close() {
	s.cancel()
	_ = s.rc.SetWriteDeadline(time.Now())
}

// Stats is what the feed is doing now.
type Stats struct {
	// Subscribers is how many connections the feed has.
	Subscribers int
	// Waiting is how many of them have a write under way now: a reader
	// that takes no bytes keeps one under way (it is closed after
	// StallTimeout).
	Waiting int
	// Position is the seq of the log's last event.
	Position uint64
	// Window and WindowBytes are the events the replay window holds and
	// their data (bounded by Options.Window and WindowBytes).
	Window, WindowBytes int
}

// Stats says what the feed is doing now.
func (h *Hub) Stats() Stats {
	st := Stats{Position: h.feed.position()}
	st.Window, st.WindowBytes = h.feed.held()
	for _, s := range h.subs.all() {
		st.Subscribers++
		if s.writing.Load() != 0 {
			st.Waiting++
		}
	}
	return st
}

func newStreamID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// continues reports whether a connection that followed the journal up
// to line n, whose hash it gives, continues this hub's journal. A line
// the hub has not read yet (another hub of the team wrote it to their
// shared journal since this hub last followed it) is read first, so that
// a dashboard that moves between the team's hubs is not taken for one
// following another journal. A shared record is first read to the end
// it has now (its consumer may still be delivering what another hub
// appended). When the record cannot be read to its end (unreachable, or
// its stream electing a leader) the answer is not known: err says why,
// and the connection is refused for now rather than answered from line
// 0, which the dashboard would take for another journal.
func (h *Hub) continues(n int, hash string) (bool, error) {
	if n <= 0 || h.feed.journalAfter(n, hash) {
		return n > 0, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), loopWait)
	defer cancel()
	if err := h.svc.RecordReachable(ctx); err != nil { // a shared record: read to its end first (its Read waits for nothing)
		h.log.Warn("journal: the team's record is not read to its end; a dashboard past this hub's journal is asked to come back", "err", err)
		return false, err
	}
	if _, err := h.svc.Refresh(); err != nil {
		h.log.Error("journal: following", "err", err)
		return false, err
	}
	return h.feed.journalAfter(n, hash), nil
}

// feedRetryAfter is the Retry-After of a feed refused while the hub
// cannot read the team's record to its end.
const feedRetryAfter = "2"

// serveFeed is GET /v1/feed.
func (h *Hub) serveFeed(w http.ResponseWriter, r *http.Request, op *Operator) {
	if !op.anywhere(RoleWatch) {
		writeError(w, http.StatusForbidden, "operator "+op.Name+" may not watch any agent; the hub's config gives roles in [[operator]] tables")
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	s := &subscriber{h: h, id: newStreamID(), op: op, ctx: ctx, cancel: cancel, rc: http.NewResponseController(w),
		readyc: make(chan struct{}), drained: make(chan struct{}, 1)}
	lastID := r.Header.Get("Last-Event-ID")
	from, resumed := h.feed.resumeFrom(lastID)
	q := r.URL.Query()
	if n, err := strconv.Atoi(q.Get("journal")); err == nil {
		ok, err := h.continues(n, q.Get("journal_hash"))
		if err != nil {
			w.Header().Set("Retry-After", feedRetryAfter)
			writeError(w, http.StatusServiceUnavailable, "this hub cannot read the team's record to its end now ("+err.Error()+
				"), so it cannot tell whether your dashboard's journal continues it; try another hub of the team, or again in a moment")
			return
		}
		if ok {
			s.jsent = n
		}
	}
	var across *crossResume
	reason := snapshotReason(lastID, h.feed.epoch)
	if !resumed && lastID != "" && (q.Get("journal") == "" || s.jsent > 0) { // another hub's id of the team (shared.go)
		var why string
		if across, why = h.feed.resumeAcross(ctx, lastID); across != nil {
			from, resumed = across.from, true
		} else if why != "" {
			reason = why
		}
	}
	h.sse.CreateStream(s.id)
	h.subs.add(s)
	defer h.subs.remove(s)
	// r3labs reads the stream from the query and would refuse our ids
	// in Last-Event-ID (it wants an integer): the hub has read it.
	r2 := r.Clone(ctx)
	r2.Header.Del("Last-Event-ID")
	q.Set("stream", s.id)
	r2.URL.RawQuery = q.Encode()
	h.log.Info("feed: connected", "operator", op.Name, "resumed", resumed, "from another hub", across != nil, "subscribers", h.subs.Len())

	pumped := make(chan struct{})
	go func() { defer close(pumped); s.pump(from, resumed, reason, across) }()
	h.sse.ServeHTTP(&timedWriter{ResponseWriter: w, s: s}, r2)
	cancel()
	h.sse.RemoveStream(s.id)
	<-pumped
	h.log.Info("feed: disconnected", "operator", op.Name)
}

// snapshotReason says why a connection that does not resume gets a
// snapshot.
func snapshotReason(lastID, epoch string) string {
	switch e, _, err := parseID(lastID); {
	case lastID == "":
		return "first"
	case err != nil || e != epoch:
		return "epoch"
	}
	return "window"
}

// pump publishes the connection's feed: hello, a snapshot unless it
// resumes, then every entry of the log from its place on, with a
// comment when the feed is idle. It ends with the connection.
func (s *subscriber) pump(pos uint64, resumed bool, reason string, across *crossResume) {
	select {
	case <-s.readyc:
	case <-s.ctx.Done():
		return
	}
	hbEvery := s.h.o.Heartbeat
	s.publish(EventHello, "", encode(Hello{Epoch: s.h.feed.epoch, Operator: s.op.Name, Resumed: resumed, HeartbeatMS: hbEvery.Milliseconds()}))
	if !resumed {
		pos = s.snapshot(reason)
	}
	if across != nil {
		s.resumeState(across)
	}
	hb := time.NewTimer(hbEvery)
	defer hb.Stop()
	for s.ctx.Err() == nil {
		es, ok, wake := s.h.feed.read(pos, 256)
		if !ok {
			s.publish(EventResync, "", encode(Resync{Reason: "this dashboard fell behind the hub's replay window; a fresh snapshot follows"}))
			pos = s.snapshot("resync")
			continue
		}
		if len(es) == 0 {
			select {
			case <-wake:
			case <-hb.C:
				s.publishEvent(&sse.Event{Comment: []byte("keepalive")})
				hb.Reset(hbEvery)
			case <-s.ctx.Done():
			}
			continue
		}
		skipped, last := false, entry{}
		for i := 0; i < len(es); i++ {
			if s.ctx.Err() != nil {
				return
			}
			e := es[i]
			pos = e.seq + 1
			last = e
			if skipped = !s.op.may(e.agent, RoleWatch) || across != nil && e.seq < across.boundary && e.name != EventEvents; skipped {
				continue // (what resumeState sent as it stands)
			}
			if e.name == EventJournal {
				s.jsent = max(s.jsent, e.jmax)
			}
			if e.name == EventEvents { // one feed event for a run of them
				n, data := s.mergeEvents(es[i:])
				i += n - 1
				e = es[i]
				pos = e.seq + 1
				last = e
				s.publish(e.name, s.h.feed.idOf(e), data)
				continue
			}
			s.publish(e.name, s.h.feed.idOf(e), e.data)
		}
		if skipped {
			s.publish(EventPosition, s.h.feed.idOf(last), []byte(`{}`))
		}
		hb.Reset(hbEvery)
	}
}

// snapshot publishes a snapshot, filtered by the operator's watch roles
// and in chunks, and returns the feed position it stands at. The journal
// lines the connection already has are not sent again.
func (s *subscriber) snapshot(reason string) uint64 {
	var snap *snapshot
	if err := s.h.call(s.ctx, func() { snap = s.h.snapshot() }); err != nil {
		s.close()
		return s.h.feed.position() + 1
	}
	may := func(agent string) bool { return s.op.may(agent, RoleWatch) }
	count := func(ps []piece) int {
		n := 0
		for _, p := range ps {
			if may(p.agent) {
				n++
			}
		}
		return n
	}
	agents, tasks := count(snap.agents), count(snap.tasks)
	var lines [][]byte
	from := s.jsent
	if from < snap.trimmed { // a line after it was let go: all held lines, from the start
		from = 0
	}
	for _, j := range snap.journal {
		if j.line.N > from && may(j.agent) {
			lines = append(lines, j.wire)
			s.jsent = j.line.N
		}
	}
	var claims Claims
	for _, c := range snap.claims {
		if may(c.Agent) {
			claims.Claims = append(claims.Claims, c)
		}
	}
	s.publish(EventSnapshotBegin, "", encode(SnapshotBegin{Epoch: s.h.feed.epoch, Agents: agents / 2, Tasks: tasks,
		Lines: len(lines), Claims: len(claims.Claims), Reason: reason, JournalFrom: from, JournalTrimmed: snap.trimmed, Record: snap.record}))
	s.pieces(EventAgents, snap.agents, may)
	s.pieces(EventTasks, snap.tasks, may)
	s.chunks(EventJournal, `{"lines":[`, lines, `]}`)
	s.publish(EventClaims, "", encode(claims))
	s.publish(EventSnapshotEnd, s.h.feed.idOf(entry{seq: snap.next - 1, src: snap.src}), encode(SnapshotEnd{Epoch: s.h.feed.epoch}))
	return snap.next
}

// mergeEvents joins the run of EventEvents entries at the start of es
// that the operator may watch into one, under ChunkBytes (the first
// alone may be more), and says how many it took.
func (s *subscriber) mergeEvents(es []entry) (int, []byte) {
	const head, tail = `{"events":[`, `]}`
	n, size := 1, len(es[0].data)
	for n < len(es) && es[n].name == EventEvents && s.op.may(es[n].agent, RoleWatch) && size+len(es[n].data) <= s.h.o.ChunkBytes {
		size += len(es[n].data)
		n++
	}
	if n == 1 {
		return 1, es[0].data
	}
	items := make([][]byte, n)
	for i := range n {
		items[i] = es[i].data[len(head) : len(es[i].data)-len(tail)]
	}
	return n, joinItems(head, items, tail)
}

// pieces publishes the pieces the operator may watch in events named
// name ({"events":[…]}), each under ChunkBytes, without copying the
// list (a snapshot's may hold every task of the fleet).
func (s *subscriber) pieces(name string, ps []piece, may func(string) bool) {
	var items [][]byte
	size := 0
	for _, p := range ps {
		if s.ctx.Err() != nil {
			return
		}
		if !may(p.agent) {
			continue
		}
		if len(items) > 0 && size+len(p.data)+1 > s.h.o.ChunkBytes {
			s.publish(name, "", joinItems(`{"events":[`, items, `]}`))
			items, size = items[:0], 0
		}
		items = append(items, p.data)
		size += len(p.data) + 1
	}
	if len(items) > 0 {
		s.publish(name, "", joinItems(`{"events":[`, items, `]}`))
	}
}

// chunks publishes items in events named name, each under ChunkBytes.
func (s *subscriber) chunks(name, head string, items [][]byte, tail string) {
	for len(items) > 0 && s.ctx.Err() == nil {
		n, size := 0, len(head)+len(tail)
		for n < len(items) && (n == 0 || size+len(items[n])+1 <= s.h.o.ChunkBytes) {
			size += len(items[n]) + 1
			n++
		}
		s.publish(name, "", joinItems(head, items[:n], tail))
		items = items[n:]
	}
}

func (s *subscriber) publish(name, id string, data []byte) {
	s.publishEvent(&sse.Event{ID: []byte(id), Event: []byte(name), Data: data})
}

// publishEvent hands one event to the connection's stream; it waits
// while the stream's buffers are full (the connection's writes are stuck,
// which closeStalled watches).
func (s *subscriber) publishEvent(ev *sse.Event) {
	for s.published.Load()-s.written.Load() > maxInFlight {
		select {
		case <-s.drained:
		case <-s.ctx.Done():
			return
		}
	}
	if s.ctx.Err() == nil {
		s.published.Add(int64(len(ev.Data)))
		s.h.sse.Publish(s.id, ev)
	}
}

// timedWriter is the connection as r3labs writes to it: each write and
// flush notes when it began, until it returns, and what was written.
type timedWriter struct {
	http.ResponseWriter
	s *subscriber
}

func (w *timedWriter) Write(p []byte) (int, error) {
	w.s.writing.Store(time.Now().UnixNano())
	defer w.s.writing.Store(0)
	n, err := w.ResponseWriter.Write(p)
	w.s.wrote(n)
	return n, err
}

func (w *timedWriter) Flush() {
	w.s.writing.Store(time.Now().UnixNano())
	defer w.s.writing.Store(0)
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// wrote counts n bytes written and wakes a pump that waits for room.
func (s *subscriber) wrote(n int) {
	s.written.Add(int64(n))
	select {
	case s.drained <- struct{}{}:
	default:
	}
}

func (w *timedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
