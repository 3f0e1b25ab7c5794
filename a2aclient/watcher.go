package a2aclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"a2atop/a2aclient/a2aerr"
	"a2atop/a2aclient/credential"
	"a2atop/a2aclient/edge"
	"a2atop/model"
)

// watcher watches one agent: card, sweeps, polls, streams, health.
type watcher struct {
	o    AgentOptions
	c    *conn
	em   *emitter
	log  *slog.Logger
	ctxp atomic.Pointer[context.Context] // Run's context, for emit; nil before Run

	connMu sync.Mutex // serializes connect

	mu           sync.Mutex
	client       *sdk.Client
	info         *model.AgentInfo
	streamOK     bool
	listing      bool   // the agent can list tasks at all (not 0.3 JSON-RPC)
	noListing    string // why not, when !listing
	listDenied   bool   // our credentials may not list
	tasks        memos
	notHere      map[a2a.TaskID]bool // referenced ids this agent said it does not hold
	badIDs       map[a2a.TaskID]bool // ids it named that a2atop cannot send, logged (edge/task_id_segment.go)
	refs         func(*a2a.Task)     // Manager.followRefs for this agent's chain key; nil in tests
	hwm          time.Time           // the newest status timestamp a sweep listed (the agent's clock)
	hwmAt        time.Time           // when the sweep that moved it began (ours)
	hwmSettled   bool                // swept with the overlap long enough after it moved (sweep.go)
	whole        wholeListing        // the complete incremental listing owed after sweeps that stopped early (sweep_whole.go)
	lastFull     time.Time
	forceFull    bool
	fullOwed     bool    // the next sweep is a full one (not forced): a task was gone
	listed       listing // what full sweeps learned of the agent's ListTasks (sweep_full.go)
	openCapped   bool    // MaxOpenTasks dropped new open tasks (since the last full sweep)
	epoch        uint64  // bumped after an overflow: everything is news again
	streams      int
	budget       *streamBudget // the fleet's streams, shared with the other watchers; nil for no budget
	streamsShort int           // open tasks past the agent's share of them, followed by sweeps
	order        int           // the agent's place in the configuration, for the budget's ties
	health       model.HealthUpdate
	failures     int
	streamErr    string
	streamErrAt  time.Time
	push         pushState // push notifications (push.go)

	running atomic.Bool // run is under way (RunAgent)
	ran     atomic.Bool // run has been called (RunAgent)
	calls   callCounts  // the requests made, by operation (Manager.Calls)

	overflow      atomic.Bool
	overflowed    chan struct{} // signalled when overflow is set, to wake sleep
	dirty         map[a2a.TaskID]struct{}
	dirtyAll      bool
	pendingHealth *model.HealthUpdate
	pendingInfo   *model.AgentInfo

	kick  chan struct{}
	wg    sync.WaitGroup
	fetch chan struct{} // semaphore for GetTask fan-out
}

func newWatcher(o AgentOptions, em *emitter, log *slog.Logger, captureN int) *watcher {
	log = log.With("agent", o.Name)
	w := &watcher{
		o: o, c: newConn(o, captureN, log), em: em, log: log,
		tasks: newMemos(o.MaxOpenTasks, o.TerminalPerAgent), dirty: map[a2a.TaskID]struct{}{}, notHere: map[a2a.TaskID]bool{},
		kick: make(chan struct{}, 1), fetch: make(chan struct{}, 4), overflowed: make(chan struct{}, 1),
	}
	for _, id := range o.Tasks {
		if w.sendable(id) {
			w.tasks.watch(id, false)
		}
	}
	return w
}

// run is the watcher's loop; it returns when ctx is done and every
// goroutine it started has stopped.
func (w *watcher) run(ctx context.Context) {
	w.ctxp.Store(&ctx)
	defer w.wg.Wait()
	defer w.budget.forget(w)
	w.setHealth(model.HealthUpdate{State: model.HealthConnecting})
	w.startPush(ctx)
	for ctx.Err() == nil {
		if w.getClient() == nil {
			if err := w.connect(ctx); err != nil {
				if !w.sleep(ctx, w.fail(err)) {
					return
				}
				continue
			}
		}
		err := w.round(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if c := a2aerr.Classify(err); c.Network() || c == a2aerr.Version || away(err) {
				w.dropClient() // re-resolve the card when it comes back
			}
			if !w.sleep(ctx, w.fail(err)) {
				return
			}
			continue
		}
		w.succeed()
		if !w.sleep(ctx, sweepWait(time.Now(), w.o.SweepInterval)) {
			return
		}
	}
}

// sleep waits d, waking early for Watch() and for overflow recovery.
// Only while events are being dropped does it look, every 25 ms, for
// room in the channel: an idle watcher does not wake.
func (w *watcher) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	var tick <-chan time.Time
	for {
		if tick == nil && w.overflow.Load() {
			tk := time.NewTicker(25 * time.Millisecond)
			defer tk.Stop()
			tick = tk.C
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		case <-w.kick:
			return true
		case <-w.overflowed:
		case <-tick:
			if ids, ok := w.recoverOverflow(); ok {
				w.refetch(ctx, ids)
				return true
			}
		}
	}
}

func jitter(d time.Duration) time.Duration {
	return d*9/10 + rand.N(d/5+1)
}

// sweepWait is how long a watcher that just swept waits for its next
// sweep: until the next tick of a grid of the sweep interval that every
// watcher of the process shares, at least half an interval away, so
// that the watchers of an idle fleet wake together, once an interval,
// and the process sleeps in between (one timer per agent at its own
// jittered instant woke it ten times a second for fifty agents). The
// grid's phase is the process's own (sweepPhase), so that two processes
// watching one agent do not sweep it at the same instants.
func sweepWait(now time.Time, d time.Duration) time.Duration {
	next := now.Add(-sweepPhase).Truncate(d).Add(d + sweepPhase)
	if next.Sub(now) < d/2 {
		next = next.Add(d)
	}
	return next.Sub(now)
}

// sweepPhase is where this process's sweep grid starts; chosen at
// random once, read only.
var sweepPhase = rand.N(time.Hour)

// backoff is how long to wait after w.failures failed attempts in a row:
// doubling from a second (or the sweep interval, if shorter) up to
// maxBackoff, the second half of it at random. After an attempt that did
// not reach the agent (see away), it stops doubling at maxAwayWait, or at
// the sweep interval if shorter: the next attempt is a card fetch that
// costs a process that is not there nothing, and an agent that restarts
// is seen answering again within that long (it used to wait out a
// doubling that had reached 16 to 32 s after half a minute away).
func (w *watcher) backoff(away bool) time.Duration {
	base := min(time.Second, w.o.SweepInterval)
	d := base << min(w.failures-1, 16)
	limit := maxBackoff
	if away {
		limit = min(maxAwayWait, w.o.SweepInterval)
	}
	d = min(d, limit)
	return d/2 + rand.N(d/2+1)
}

// away reports whether err says the agent is not there to answer: the
// request did not reach it, the connection broke or timed out
// (a2aerr.Unreachable, NoAnswer, Timeout), or a gateway in front of it
// said so (HTTP 502, 503, 504), as while an agent restarts.
func away(err error) bool {
	switch a2aerr.Classify(err) {
	case a2aerr.Unreachable, a2aerr.NoAnswer, a2aerr.Timeout:
		return true
	}
	switch a2aerr.Status(err) {
	case 502, 503, 504:
		return true
	}
	return false
}

func (w *watcher) getClient() *sdk.Client {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.client
}

func (w *watcher) dropClient() {
	w.mu.Lock()
	cl := w.client
	w.client = nil
	w.mu.Unlock()
	if cl != nil {
		_ = cl.Destroy()
	}
}

// connect resolves the card and builds the SDK client.
func (w *watcher) connect(ctx context.Context) error {
	w.connMu.Lock()
	defer w.connMu.Unlock()
	if w.getClient() != nil {
		return nil
	}
	pctx, pr := edge.WithProbe(ctx)
	card, raw, cardURL, err := w.c.resolveCardRaw(pctx)
	if err != nil {
		return w.wrap("card", cardURL, pr, err)
	}
	sig := w.c.trust.check(ctx, raw, card)
	if w.o.Auth.CardKeys.Require && sig.state != sigValid {
		return w.wrap("card", cardURL, nil, fmt.Errorf("%w: the card's signature does not verify (%s) and require_signed_card is set: "+
			"a2atop does not talk to this agent", errUntrustedCard, sig.words()))
	}
	if w.c.auth != nil {
		w.c.auth.Bind(card)
	}
	cl, iface, err := w.c.newClient(ctx, card)
	if err != nil {
		return w.wrap("connect", w.o.URL, nil, err)
	}
	info := agentInfo(w.o, card, iface)
	w.c.authInfo(info, card)
	if sig.state != sigUnsigned || w.c.trust.pinned() {
		info.Signature, info.SignatureOK = sig.words(), sig.state == sigValid
	}
	w.extendedCard(ctx, cl, card, info)
	if o := w.c.interfaceOrigin(iface); w.c.secretsConfigured() && !w.c.allowed(o) {
		w.log.Warn("the card's interface is on another origin: our credentials are not sent there; name it in allowed_hosts to send them",
			"interface", o.String())
	}
	v03 := strings.TrimPrefix(string(iface.ProtocolVersion), "v") == string(a2av0.Version)
	legacyRPC := v03 && iface.ProtocolBinding == a2a.TransportProtocolJSONRPC
	w.c.legacyREST.Store(v03 && iface.ProtocolBinding == a2a.TransportProtocolHTTPJSON)
	w.c.restPaths.Store(iface.ProtocolBinding == a2a.TransportProtocolHTTPJSON)
	w.mu.Lock()
	if w.info != nil && w.listed.terminalDone {
		// Connected again after the agent was out of reach: it may have
		// restarted on an empty store. The next sweep lists everything it
		// keeps again, finished tasks too, and asks after what it misses.
		w.listed.terminalOwed, w.forceFull = true, true
	}
	w.client, w.info = cl, info
	w.streamOK = card.Capabilities.Streaming && w.o.Subscribe
	w.listing, w.noListing = !legacyRPC, ""
	if legacyRPC {
		w.noListing = noListing03
	}
	w.mu.Unlock()
	w.emit(model.Event{Kind: model.EventAgent, Info: info})
	return nil
}

// wrap builds our *Error from an SDK error and the call's probe.
func (w *watcher) wrap(op, url string, pr *edge.Probe, err error) error {
	if err == nil {
		return nil
	}
	e := &Error{Agent: w.o.Name, Op: op, URL: url, Err: err, red: w.c.red, certAsked: w.c.cert.Asked(), certNote: w.c.cert.Note()}
	if pr != nil {
		s, c, u, g := pr.Get()
		e.Status, e.Code, e.GRPC = s, c, g
		if u != "" {
			e.URL = u
		}
	}
	var prev *Error
	if errors.As(err, &prev) && prev != e {
		return prev
	}
	info := w.currentInfo()
	if e.URL == "" && info != nil {
		e.URL = info.InterfaceURL
	}
	if op != "card" && info != nil && w.c.secretsConfigured() {
		if o := w.c.interfaceOrigin(&a2a.AgentInterface{URL: info.InterfaceURL, ProtocolBinding: a2a.TransportProtocol(info.Binding)}); !w.c.allowed(o) {
			e.withheld, e.downgrade = o, w.c.origin.Scheme == "https" && o.Scheme != "https"
		}
	}
	return e
}

func (w *watcher) currentInfo() *model.AgentInfo {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.info
}

// idempotentOps are the calls the watcher marks idempotent (see call):
// a read refused 401 is sent once more (credential.Retry).
var idempotentOps = map[string]bool{"GetTask": true, "ListTasks": true, "SubscribeToTask": true, "card": true}

// call runs one unary SDK call with a deadline and a probe, and wraps its error.
func (w *watcher) call(ctx context.Context, op string, f func(ctx context.Context, cl *sdk.Client) error) error {
	cl := w.getClient()
	if cl == nil {
		return &Error{Agent: w.o.Name, Op: op, URL: w.o.URL, Err: errNotConnected, red: w.c.red}
	}
	w.calls.add(op)
	ctx, cancel := context.WithTimeout(ctx, w.o.CallTimeout)
	defer cancel()
	ctx, pr := edge.WithProbe(ctx)
	if idempotentOps[op] {
		ctx = credential.Idempotent(ctx)
	}
	return w.wrap(op, "", pr, f(ctx, cl))
}

// The listing notes of agents that cannot list tasks at all. A2A 0.3
// JSON-RPC has no ListTasks (the SDK answers ErrUnsupportedOperation
// without a request): such agents are polled over the tasks we know
// (AgentOptions.Tasks, Watch, replies, streams, and the tasks other tasks
// say they wait on, chain_follow.go).
const (
	noListing03          = "no task listing (A2A 0.3)"
	noListingUnsupported = "no task listing (the agent does not support ListTasks)"
)

var errNotConnected = errors.New("not connected yet (the card has not been resolved)")

// errUntrustedCard is wrapped by the refusal of a card that does not
// verify while require_signed_card is set.
var errUntrustedCard = errors.New("untrusted card")

// runCtx is Run's context (Background before Run), which bounds how long
// emit waits for room.
func (w *watcher) runCtx() context.Context {
	if p := w.ctxp.Load(); p != nil {
		return *p
	}
	return context.Background()
}
