package main

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"a2atop/model"
)

// fleetSpec is the agents one agents process serves.
type fleetSpec struct {
	Agents      int // how many agents
	Tasks       int // tasks per agent, in all
	Active      int // of them running (real executions when Live, else stored WORKING)
	Interrupted int // of them waiting for a person (input-required, or auth-required for Auth of them)
	Auth        int // of Interrupted, auth-required; 0: half of them
	Submitted   int // open tasks stored SUBMITTED without a status timestamp, as the SDK's store emits them
	Live        bool
	Keep        int // terminal tasks a2atop keeps per agent, for the expected picture
}

// agentInfo is what the agents process tells about one agent: where it
// is and what a complete picture of it holds.
type agentInfo struct {
	Name        string       `json:"name"`
	URL         string       `json:"url"`
	Interrupted []a2a.TaskID `json:"interrupted"`
	Open        int          `json:"open"`
	Terminal    int          `json:"terminal"`
	Newest      []a2a.TaskID `json:"newest"` // the newest Keep terminal tasks

	terminalIDs []a2a.TaskID
}

// readyMsg is the agents process's first line on stdout.
type readyMsg struct {
	Agents  []agentInfo `json:"agents"`
	Control string      `json:"control"` // base URL of /churn and /stats
	Seeded  string      `json:"seeded"`  // how long seeding took
}

// statsMsg is what /stats answers: requests each agent received, and
// the events the agents sent.
type statsMsg struct {
	ListTasks map[string]int64 `json:"listTasks"`
	GetTask   map[string]int64 `json:"getTask"`
	Subscribe map[string]int64 `json:"subscribe"`
	Events    int64            `json:"events"`
	Status    int64            `json:"status"`
}

// agentsMain serves spec's agents on loopback until stdin closes.
func agentsMain(spec fleetSpec) error {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	f := &fleetServer{spec: spec, churn: newChurn()}
	start := time.Now()
	infos := make([]agentInfo, spec.Agents)
	var wg sync.WaitGroup
	errs := make(chan error, spec.Agents)
	for i := range spec.Agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			info, err := f.startAgent(i)
			if err != nil {
				errs <- err
				return
			}
			infos[i] = info
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	ctl, err := f.serveControl()
	if err != nil {
		return err
	}
	if spec.Live {
		if err := f.startExecutions(); err != nil {
			return err
		}
	}
	out, _ := json.Marshal(readyMsg{Agents: infos, Control: ctl, Seeded: time.Since(start).Round(time.Millisecond).String()})
	fmt.Println(string(out))
	buf := make([]byte, 1)
	for { // the parent closes stdin (or dies): stop
		if _, err := os.Stdin.Read(buf); err != nil {
			return nil
		}
	}
}

// fleetServer is every agent of one agents process.
type fleetServer struct {
	spec   fleetSpec
	churn  *churn
	mu     sync.Mutex
	agents []*benchAgent
	events atomic.Int64
	status atomic.Int64
}

// benchAgent is one SDK server: JSON-RPC, streaming, in-memory store.
type benchAgent struct {
	name      string
	url       string
	card      *a2a.AgentCard
	exec      *churnExec
	store     *taskstore.InMemory
	untimed   []a2a.TaskID // SUBMITTED tasks without a status timestamp, not yet touched
	listTasks atomic.Int64
	getTask   atomic.Int64
	subscribe atomic.Int64
}

// startAgent seeds agent i's store and starts its server.
func (f *fleetServer) startAgent(i int) (agentInfo, error) {
	name := fmt.Sprintf("a%02d", i)
	if f.spec.Agents == 1 {
		name = "big"
	}
	a := &benchAgent{name: name}
	a.exec = &churnExec{f: f, churn: f.churn}
	store := taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: a2asrv.NewTaskStoreAuthenticator()})
	a.store = store
	info, err := f.seed(a, store)
	if err != nil {
		return info, err
	}
	h := a2asrv.NewHandler(a.exec, a2asrv.WithTaskStore(store), a2asrv.WithCallInterceptors(&counter{a: a}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return info, err
	}
	a.url = "http://" + l.Addr().String()
	a.card = &a2a.AgentCard{Name: name, Description: "a benchmark agent", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(a.url+"/invoke", a2a.TransportProtocolJSONRPC)},
		Capabilities:        a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:   []string{"text"}, DefaultOutputModes: []string{"text"}}
	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(a.card))
	mux.Handle("/invoke", a2asrv.NewJSONRPCHandler(h))
	go http.Serve(l, mux)
	info.Name, info.URL = name, a.url
	f.mu.Lock()
	f.agents = append(f.agents, a)
	f.mu.Unlock()
	return info, nil
}

// counter authenticates every caller as one user (the in-memory store
// refuses ListTasks to the anonymous user) and counts what they ask.
type counter struct {
	a2asrv.PassthroughCallInterceptor
	a *benchAgent
}

func (c *counter) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	cc.User = a2asrv.NewAuthenticatedUser("bench", nil)
	switch cc.Method() {
	case "ListTasks":
		c.a.listTasks.Add(1)
	case "GetTask":
		c.a.getTask.Add(1)
	case "SubscribeToTask":
		c.a.subscribe.Add(1)
	}
	return ctx, nil, nil
}

// seed stores the agent's history: a task every 10 s going back from an
// hour ago, most of them finished (completed, failed, canceled,
// rejected), with the interrupted ones, the SUBMITTED ones without a
// status timestamp and (without Live) the working ones spread among
// them, as on an agent whose oldest open tasks have waited for days.
// They are stored oldest first, so the store's order (it sorts by when
// it stored a task) is their status timestamps' order.
func (f *fleetServer) seed(a *benchAgent, store *taskstore.InMemory) (agentInfo, error) {
	spec := f.spec
	ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("bench", nil)
	kinds := openKinds(spec)
	stored := len(kinds)
	n := spec.Tasks - spec.Active + stored - spec.Interrupted - spec.Submitted // tasks in the store at the start
	info := agentInfo{}
	now := time.Now()
	every := max(n/max(stored, 1), 1) // one open task every so many
	k := 0                            // open tasks stored so far
	for i := n - 1; i >= 0; i-- {     // i = 0 is the newest
		ts := now.Add(-time.Hour - time.Duration(i)*10*time.Second)
		stamp := &ts
		st, text := a2a.TaskStateCompleted, "finished run "+strconv.Itoa(i)
		switch {
		case i%every == every/2 && k < stored:
			st = kinds[k]
			switch st {
			case a2a.TaskStateInputRequired:
				text = "Which branch should I compare against?"
			case a2a.TaskStateAuthRequired:
				text = "approve deploy of 9f3c2e1 to staging?"
			case a2a.TaskStateSubmitted:
				text, stamp = "queued", nil
			default:
				text = "step 1 of 40"
			}
			k++
		case i%20 == 3 || i%20 == 9:
			st = a2a.TaskStateFailed
		case i%20 == 13:
			st = a2a.TaskStateCanceled
		case i%20 == 17:
			st = a2a.TaskStateRejected
		}
		t := &a2a.Task{ID: a2a.NewTaskID(), ContextID: a2a.NewContextID(), Status: a2a.TaskStatus{State: st, Timestamp: stamp,
			Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(text))}}
		if _, err := store.Create(ctx, t); err != nil {
			return info, err
		}
		switch {
		case model.ClassOf(st) == model.ClassInterrupted:
			info.Interrupted = append(info.Interrupted, t.ID)
		case model.ClassOf(st) == model.ClassTerminal:
			info.terminalIDs = append(info.terminalIDs, t.ID) // oldest first
		case st == a2a.TaskStateSubmitted:
			a.untimed = append(a.untimed, t.ID)
		}
	}
	info.Terminal = len(info.terminalIDs)
	info.Open = spec.Active + len(info.Interrupted) + len(a.untimed)
	if k := min(spec.Keep, len(info.terminalIDs)); k > 0 {
		info.Newest = info.terminalIDs[len(info.terminalIDs)-k:]
	}
	info.terminalIDs = nil
	return info, nil
}

// openKinds is the state of each open task seeding stores, spread
// evenly: the interrupted ones (Auth of them auth-required, else half),
// the SUBMITTED ones, and (without Live) the working ones.
func openKinds(spec fleetSpec) []a2a.TaskState {
	auth := spec.Auth
	if auth == 0 {
		auth = spec.Interrupted / 2
	}
	var kinds []a2a.TaskState
	add := func(st a2a.TaskState, n int) {
		for range n {
			kinds = append(kinds, st)
		}
	}
	add(a2a.TaskStateInputRequired, spec.Interrupted-auth)
	add(a2a.TaskStateAuthRequired, auth)
	add(a2a.TaskStateSubmitted, spec.Submitted)
	if !spec.Live {
		add(a2a.TaskStateWorking, spec.Active)
	}
	r := rand.New(rand.NewPCG(1, 2)) // the same spread every run
	r.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	return kinds
}

// touch moves the first agent's next SUBMITTED task without a status
// timestamp to WORKING, still without one, as an agent that starts it
// would, and says which task and when.
func (f *fleetServer) touch() (touchMsg, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.agents) == 0 || len(f.agents[0].untimed) == 0 {
		return touchMsg{}, fmt.Errorf("no SUBMITTED task without a timestamp left")
	}
	a := f.agents[0]
	id := a.untimed[0]
	a.untimed = a.untimed[1:]
	ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("bench", nil)
	cur, err := a.store.Get(ctx, id)
	if err != nil {
		return touchMsg{}, err
	}
	next := *cur.Task
	next.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("started"))}
	at := time.Now()
	if _, err := a.store.Update(ctx, &taskstore.UpdateRequest{Task: &next, PrevTask: cur.Task, PrevVersion: cur.Version,
		Event: a2a.NewStatusUpdateEvent(&next, next.Status.State, next.Status.Message)}); err != nil {
		return touchMsg{}, err
	}
	return touchMsg{Agent: a.name, ID: id, At: at}, nil
}

// touchMsg is what /touch answers.
type touchMsg struct {
	Agent string     `json:"agent"`
	ID    a2a.TaskID `json:"id"`
	At    time.Time  `json:"at"`
}

// startExecutions starts every agent's active tasks as real executions,
// sent by a bare SDK client as any client would.
func (f *fleetServer) startExecutions() error {
	f.mu.Lock()
	agents := append([]*benchAgent(nil), f.agents...)
	f.mu.Unlock()
	for _, a := range agents {
		cl, err := sdk.NewFromCard(context.Background(), a.card)
		if err != nil {
			return err
		}
		a.exec.cl = cl
		for range f.spec.Active {
			if err := a.exec.start(); err != nil {
				return err
			}
		}
	}
	return nil
}

// churn is the rate at which the executions emit events: off, or a
// period per execution. Safe for concurrent use.
type churn struct {
	mu     sync.Mutex
	period time.Duration // 0: off
	on     chan struct{} // closed while churning
}

func newChurn() *churn { return &churn{on: make(chan struct{})} }

func (c *churn) set(period time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	was := c.period > 0
	c.period = period
	switch {
	case period > 0 && !was:
		close(c.on)
	case period <= 0 && was:
		c.on = make(chan struct{})
	}
}

// wait blocks until churning, and returns the period.
func (c *churn) wait(ctx context.Context) (time.Duration, bool) {
	for {
		c.mu.Lock()
		p, on := c.period, c.on
		c.mu.Unlock()
		if p > 0 {
			return p, true
		}
		select {
		case <-on:
		case <-ctx.Done():
			return 0, false
		}
	}
}

// churnExec runs the benchmark's tasks. Each emits, one event per period
// (jittered): a WORKING status with a new step, an artifact chunk, and
// every tenth event a status that moves it to AUTH_REQUIRED or back to
// WORKING (the execution keeps running, as the Go SDK does for
// AUTH_REQUIRED). After 300 to 600 events it completes and a new task
// takes its place.
type churnExec struct {
	f     *fleetServer
	churn *churn
	cl    *sdk.Client
}

func (e *churnExec) start() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := e.cl.SendMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("run the suite")),
		Config:  &a2a.SendMessageConfig{ReturnImmediately: true}})
	return err
}

func (e *churnExec) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		status := func(st a2a.TaskState, text string) bool {
			e.f.events.Add(1)
			e.f.status.Add(1)
			return yield(a2a.NewStatusUpdateEvent(ec, st, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(text))), nil)
		}
		if ec.StoredTask == nil {
			t := a2a.NewSubmittedTask(ec, ec.Message)
			now := time.Now()
			t.Status.Timestamp = &now
			if !yield(t, nil) {
				return
			}
		}
		if !status(a2a.TaskStateWorking, "starting") {
			return
		}
		// A new task is found by the next sweep; it starts changing after.
		select {
		case <-time.After(6 * time.Second):
		case <-ctx.Done():
			return
		}
		art := a2a.NewArtifactID()
		life := 300 + rand.N(300)
		state := a2a.TaskStateWorking
		for i := 1; i <= life; i++ {
			p, ok := e.churn.wait(ctx)
			if !ok {
				return
			}
			select {
			case <-time.After(p/2 + rand.N(p)):
			case <-ctx.Done():
				return
			}
			switch {
			case i%10 == 0:
				state = map[a2a.TaskState]a2a.TaskState{a2a.TaskStateWorking: a2a.TaskStateAuthRequired, a2a.TaskStateAuthRequired: a2a.TaskStateWorking}[state]
				if !status(state, "step "+strconv.Itoa(i)+": "+strings.ToLower(string(state))) {
					return
				}
			case i%2 == 0:
				if !status(state, "step "+strconv.Itoa(i)+" of "+strconv.Itoa(life)) {
					return
				}
			default:
				e.f.events.Add(1)
				ev := a2a.NewArtifactUpdateEvent(ec, art, a2a.NewTextPart(fmt.Sprintf("line %d: ok\n", i)))
				ev.Append = i > 1
				if !yield(ev, nil) {
					return
				}
			}
		}
		status(a2a.TaskStateCompleted, "passed")
		go e.start() // keep the number of running tasks
	}
}

func (e *churnExec) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// serveControl serves /churn?rate=N (events per second over every
// execution; 0 stops), /touch (see touch) and /stats.
func (f *fleetServer) serveControl() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/churn", func(w http.ResponseWriter, r *http.Request) {
		rate, _ := strconv.ParseFloat(r.URL.Query().Get("rate"), 64)
		var period time.Duration
		if n := f.spec.Agents * f.spec.Active; rate > 0 && n > 0 {
			period = time.Duration(float64(n) / rate * float64(time.Second))
		}
		f.churn.set(period)
		fmt.Fprintf(w, "period %s\n", period)
	})
	mux.HandleFunc("/touch", func(w http.ResponseWriter, _ *http.Request) {
		m, err := f.touch()
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		json.NewEncoder(w).Encode(m)
	})
	mux.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		s := statsMsg{ListTasks: map[string]int64{}, GetTask: map[string]int64{}, Subscribe: map[string]int64{},
			Events: f.events.Load(), Status: f.status.Load()}
		f.mu.Lock()
		for _, a := range f.agents {
			s.ListTasks[a.name] = a.listTasks.Load()
			s.GetTask[a.name] = a.getTask.Load()
			s.Subscribe[a.name] = a.subscribe.Load()
		}
		f.mu.Unlock()
		json.NewEncoder(w).Encode(s)
	})
	go http.Serve(l, mux)
	return "http://" + l.Addr().String(), nil
}
