package a2aclient

import (
	"context"
	"errors"
	"iter"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// testExec is a small agent. The first word of the message decides:
//
//	done        working, a summary.json artifact, completed
//	ask         input-required (the execution ends)
//	hold        working, then waits for release(), then completed
//	at:NANOS    input-required with status timestamp NANOS on every event
//	chatty:N    N working updates, then completed
//	big:N       input-required with an N-byte status message
//	bigwork:N   working with an N-byte status message, waits for release(),
//	            then completed
//	ref:ID      auth-required, its status message naming task ID in referenceTaskIds
//	chain:ID    working naming task ID in referenceTaskIds, waits for
//	            release(), then input-required naming it again
//	answer      (a reply on an input-required task) completed
type testExec struct {
	mu      sync.Mutex
	gate    chan struct{}
	started chan a2a.TaskID
	refs    map[string][]a2a.TaskID // messageId -> referenceTaskIds of the messages it sent
}

// withRefs sets msg's referenceTaskIds and remembers them by messageId.
func (e *testExec) withRefs(msg *a2a.Message, ids ...a2a.TaskID) {
	msg.ReferenceTasks = ids
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.refs == nil {
		e.refs = map[string][]a2a.TaskID{}
	}
	e.refs[msg.ID] = ids
}

func (e *testExec) refsOf(id string) []a2a.TaskID {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.refs[id]
}

func newTestExec() *testExec {
	return &testExec{gate: make(chan struct{}), started: make(chan a2a.TaskID, 100)}
}

func (e *testExec) release() {
	e.mu.Lock()
	defer e.mu.Unlock()
	close(e.gate)
	e.gate = make(chan struct{})
}

func (e *testExec) gateCh() chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.gate
}

func msgText(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

func statusEv(ec *a2asrv.ExecutorContext, st a2a.TaskState, at time.Time, text string) *a2a.TaskStatusUpdateEvent {
	var msg *a2a.Message
	if text != "" {
		msg = a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(text))
	}
	ev := a2a.NewStatusUpdateEvent(ec, st, msg)
	ev.Status.Timestamp = &at
	return ev
}

func (e *testExec) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		word := strings.Fields(msgText(ec.Message) + " _")[0]
		gate := e.gateCh() // taken before the task exists, so no release is missed
		at := time.Now()
		if n, ok := strings.CutPrefix(word, "at:"); ok {
			v, _ := strconv.ParseInt(n, 10, 64)
			at = time.Unix(0, v).UTC()
		}
		if ec.StoredTask == nil {
			t := a2a.NewSubmittedTask(ec, ec.Message)
			t.Status.Timestamp = &at
			if !yield(t, nil) {
				return
			}
		}
		select {
		case e.started <- ec.TaskID:
		default:
		}
		switch {
		case strings.HasPrefix(word, "bigwork:"):
			n, _ := strconv.Atoi(strings.TrimPrefix(word, "bigwork:"))
			if !yield(statusEv(ec, a2a.TaskStateWorking, time.Now(), strings.Repeat("w", n)), nil) {
				return
			}
			select {
			case <-gate:
			case <-ctx.Done():
				return
			}
			yield(statusEv(ec, a2a.TaskStateCompleted, time.Now(), "done"), nil)
		case strings.HasPrefix(word, "big:"):
			n, _ := strconv.Atoi(strings.TrimPrefix(word, "big:"))
			yield(statusEv(ec, a2a.TaskStateInputRequired, time.Now(), strings.Repeat("y", n)), nil)
		case word == "ask":
			yield(statusEv(ec, a2a.TaskStateInputRequired, time.Now(), "Which branch?"), nil)
		case strings.HasPrefix(word, "ref:"):
			ev := statusEv(ec, a2a.TaskStateAuthRequired, time.Now(), "waiting on another task")
			e.withRefs(ev.Status.Message, a2a.TaskID(strings.TrimPrefix(word, "ref:")))
			yield(ev, nil)
		case strings.HasPrefix(word, "chain:"):
			ref := a2a.TaskID(strings.TrimPrefix(word, "chain:"))
			ev := statusEv(ec, a2a.TaskStateWorking, time.Now(), "waiting on another task")
			e.withRefs(ev.Status.Message, ref)
			if !yield(ev, nil) {
				return
			}
			select {
			case <-gate:
			case <-ctx.Done():
				return
			}
			ev = statusEv(ec, a2a.TaskStateInputRequired, time.Now(), "look at the other task first")
			e.withRefs(ev.Status.Message, ref)
			yield(ev, nil)
		case strings.HasPrefix(word, "at:"):
			yield(statusEv(ec, a2a.TaskStateInputRequired, at, "same time"), nil)
		case word == "hold":
			if !yield(statusEv(ec, a2a.TaskStateWorking, time.Now(), "holding"), nil) {
				return
			}
			select {
			case <-gate:
			case <-ctx.Done():
				return
			}
			yield(statusEv(ec, a2a.TaskStateCompleted, time.Now(), "released"), nil)
		case strings.HasPrefix(word, "chatty:"):
			n, _ := strconv.Atoi(strings.TrimPrefix(word, "chatty:"))
			select {
			case <-gate:
			case <-ctx.Done():
				return
			}
			for i := 0; i < n; i++ {
				if !yield(statusEv(ec, a2a.TaskStateWorking, time.Now(), ""), nil) {
					return
				}
			}
			yield(statusEv(ec, a2a.TaskStateCompleted, time.Now(), ""), nil)
		default: // done, answer
			if !yield(statusEv(ec, a2a.TaskStateWorking, time.Now(), "running"), nil) {
				return
			}
			art := a2a.NewArtifactEvent(ec, a2a.NewDataPart(map[string]any{"passed": 11, "failed": 1}))
			art.Artifact.Name = "summary.json"
			if !yield(art, nil) {
				return
			}
			yield(statusEv(ec, a2a.TaskStateCompleted, time.Now(), "done"), nil)
		}
	}
}

func (e *testExec) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(statusEv(ec, a2a.TaskStateCanceled, time.Now(), "canceled"), nil)
	}
}

// userInterceptor authenticates every caller as one user, so ListTasks is
// allowed (the in-memory store refuses the anonymous user), and records
// the A2A-Version it saw.
type userInterceptor struct {
	a2asrv.PassthroughCallInterceptor
	mu       sync.Mutex
	versions []string
	anon     bool                   // leave the caller anonymous (ListTasks is then refused)
	denySub  bool                   // refuse SubscribeToTask with ErrUnauthenticated
	noList   bool                   // refuse ListTasks with ErrUnsupportedOperation
	lists    []bool                 // per ListTasks call: was it a full listing (no statusTimestampAfter)?
	tenants  []string               // the tenant of every ListTasks and GetTask request
	secrets  []string               // the authorization and x-api-key values of every call, "" when none
	listReqs []a2a.ListTasksRequest // every ListTasks request, in order
	gets     []a2a.TaskID           // the task of every GetTask request, in order
}

// seen returns the authorization and x-api-key values of every call so far.
func (u *userInterceptor) seen() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.secrets...)
}

// listRequests returns the ListTasks requests so far.
func (u *userInterceptor) listRequests() []a2a.ListTasksRequest {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]a2a.ListTasksRequest(nil), u.listReqs...)
}

// got reports whether GetTask was asked for id.
func (u *userInterceptor) got(id a2a.TaskID) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Contains(u.gets, id)
}

func (u *userInterceptor) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	if !u.anon {
		cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	}
	if u.denySub && cc.Method() == "SubscribeToTask" {
		return ctx, nil, a2a.ErrUnauthenticated
	}
	if u.noList && cc.Method() == "ListTasks" {
		return ctx, nil, a2a.ErrUnsupportedOperation
	}
	switch p := req.Payload.(type) {
	case *a2a.ListTasksRequest:
		u.mu.Lock()
		u.lists = append(u.lists, p.StatusTimestampAfter == nil)
		u.tenants = append(u.tenants, p.Tenant)
		u.listReqs = append(u.listReqs, *p)
		u.mu.Unlock()
	case *a2a.GetTaskRequest:
		u.mu.Lock()
		u.tenants = append(u.tenants, p.Tenant)
		u.gets = append(u.gets, p.ID)
		u.mu.Unlock()
	}
	if p := cc.ServiceParams(); p != nil {
		v, _ := p.Get(strings.ToLower(a2a.SvcParamVersion))
		auth, _ := p.Get("authorization")
		key, _ := p.Get("x-api-key")
		u.mu.Lock()
		u.versions = append(u.versions, strings.Join(v, ","))
		u.secrets = append(u.secrets, strings.Join(auth, ",")+strings.Join(key, ","))
		u.mu.Unlock()
	}
	return ctx, nil, nil
}

// agentKind names the four server flavours the tests run against.
type agentKind string

const (
	kindJSONRPC agentKind = "jsonrpc-1.0"
	kindREST    agentKind = "rest-1.0"
	kindGRPC    agentKind = "grpc-1.0"
	kindLegacy  agentKind = "jsonrpc-0.3"
	// kindLegacyREST is the SDK's 0.3 REST server, which sends its errors
	// as application/problem+json.
	kindLegacyREST agentKind = "rest-0.3"
)

// testAgent is a real SDK server on loopback that can be stopped and
// started again on the same port, keeping its task store.
type testAgent struct {
	t     testing.TB
	kind  agentKind
	exec  *testExec
	icpt  *userInterceptor
	store *taskstore.InMemory
	h     a2asrv.RequestHandler
	addr  string // host:port of the HTTP server (card)
	gaddr string // host:port of the gRPC server
	wrap  func(http.Handler) http.Handler
	gopts []grpc.ServerOption // options of the gRPC server (TLS credentials)
	// extended is the extended card the handler serves; nil for none.
	extended *a2a.AgentCard
	card     *a2a.AgentCard
	mu       sync.Mutex
	hs       *http.Server
	gs       *grpc.Server
}

func startAgent(t testing.TB, kind agentKind, streaming bool, wrap func(http.Handler) http.Handler) *testAgent {
	t.Helper()
	return startAgentStore(t, kind, streaming, wrap, nil)
}

// startAgentStore is startAgent with the task store seen through
// wrapStore (nil: the in-memory store as it is), for agents whose store
// behaves in ways the SDK's does not.
func startAgentStore(t testing.TB, kind agentKind, streaming bool, wrap func(http.Handler) http.Handler,
	wrapStore func(*taskstore.InMemory) taskstore.Store) *testAgent {
	t.Helper()
	a := &testAgent{t: t, kind: kind, exec: newTestExec(), icpt: &userInterceptor{}, wrap: wrap}
	a.store = taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: a2asrv.NewTaskStoreAuthenticator()})
	var store taskstore.Store = a.store
	if wrapStore != nil {
		store = wrapStore(a.store)
	}
	a.h = a2asrv.NewHandler(a.exec, a2asrv.WithTaskStore(store), a2asrv.WithCallInterceptors(a.icpt),
		a2asrv.WithAgentInactivityTimeout(20*time.Second))
	a.addr = freeAddr(t)
	if kind == kindGRPC {
		a.gaddr = freeAddr(t)
	}
	base := "http://" + a.addr
	var iface *a2a.AgentInterface
	switch kind {
	case kindJSONRPC:
		iface = a2a.NewAgentInterface(base+"/invoke", a2a.TransportProtocolJSONRPC)
	case kindREST:
		iface = a2a.NewAgentInterface(base+"/rest", a2a.TransportProtocolHTTPJSON)
	case kindGRPC:
		iface = a2a.NewAgentInterface(a.gaddr, a2a.TransportProtocolGRPC)
	case kindLegacy:
		iface = &a2a.AgentInterface{URL: base + "/invoke", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version}
	case kindLegacyREST:
		iface = &a2a.AgentInterface{URL: base + "/rest03", ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2av0.Version}
	}
	a.card = &a2a.AgentCard{
		Name: "test " + string(kind), Description: "a test agent", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{iface},
		Capabilities:        a2a.AgentCapabilities{Streaming: streaming},
		DefaultInputModes:   []string{"text"}, DefaultOutputModes: []string{"text"},
	}
	a.start()
	t.Cleanup(a.stop)
	return a
}

func freeAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func (a *testAgent) url() string { return "http://" + a.addr }

func (a *testAgent) mux() http.Handler {
	mux := http.NewServeMux()
	switch a.kind {
	case kindLegacy, kindLegacyREST:
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(a.card)))
		mux.Handle("/invoke", a2av0.NewJSONRPCHandler(a.h))
		mux.Handle("/rest03/", http.StripPrefix("/rest03", a2av0.NewRESTHandler(a.h)))
	default:
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(a.card))
		mux.Handle("/invoke", a2asrv.NewJSONRPCHandler(a.h))
		mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(a.h)))
	}
	if a.wrap != nil {
		return a.wrap(mux)
	}
	return mux
}

// start listens on the agent's fixed address (again, after stop).
func (a *testAgent) start() {
	a.t.Helper()
	if a.extended != nil {
		a.h = a2asrv.NewHandler(a.exec, a2asrv.WithTaskStore(a.store), a2asrv.WithCallInterceptors(a.icpt),
			a2asrv.WithAgentInactivityTimeout(20*time.Second), a2asrv.WithExtendedAgentCard(a.extended))
	}
	var l net.Listener
	var err error
	for i := 0; i < 50; i++ { // the port may linger briefly after stop
		if l, err = net.Listen("tcp", a.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		a.t.Fatalf("listen %s: %v", a.addr, err)
	}
	hs := &http.Server{Handler: a.mux()}
	go hs.Serve(l)
	a.mu.Lock()
	a.hs = hs
	a.mu.Unlock()
	if a.kind == kindGRPC {
		var gl net.Listener
		for i := 0; i < 50; i++ { // as above: the port may linger after stop
			if gl, err = net.Listen("tcp", a.gaddr); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			a.t.Fatalf("listen %s: %v", a.gaddr, err)
		}
		gs := grpc.NewServer(a.gopts...)
		grpcv1.NewHandler(a.h).RegisterWith(gs)
		go gs.Serve(gl)
		a.mu.Lock()
		a.gs = gs
		a.mu.Unlock()
	}
}

// stop kills the servers and their open connections (streams drop).
func (a *testAgent) stop() {
	a.mu.Lock()
	hs, gs := a.hs, a.gs
	a.hs, a.gs = nil, nil
	a.mu.Unlock()
	if hs != nil {
		hs.Close()
	}
	if gs != nil {
		gs.Stop()
	}
}

// other is "another client": a bare SDK client that creates tasks.
func (a *testAgent) other(t testing.TB) *sdk.Client { return a.bare(t, nil) }

// bare is the SDK's own client for the agent, on an http.Client whose
// Transport is rt (nil: net/http's default), with none of our layers: what
// the SDK does alone.
func (a *testAgent) bare(t testing.TB, rt http.RoundTripper) *sdk.Client {
	t.Helper()
	hc := &http.Client{Transport: rt}
	cl, err := sdk.NewFromCard(t.Context(), a.card,
		sdk.WithJSONRPCTransport(hc), sdk.WithRESTTransport(hc),
		grpcv1.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials())),
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: hc}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{Client: hc}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Destroy() })
	return cl
}

// requestLog is a RoundTripper over net/http's default that keeps every
// request it sends.
type requestLog struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (l *requestLog) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.reqs = append(l.reqs, r.Clone(r.Context()))
	l.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// last returns the last request whose URL path ends in suffix.
func (l *requestLog) last(suffix string) *http.Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.reqs) - 1; i >= 0; i-- {
		if strings.HasSuffix(l.reqs[i].URL.Path, suffix) {
			return l.reqs[i]
		}
	}
	return nil
}

// send creates a task from text with another client and returns its id.
func (a *testAgent) send(t testing.TB, text string) a2a.TaskID {
	t.Helper()
	cl := a.other(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := cl.SendMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)),
		Config:  &a2a.SendMessageConfig{ReturnImmediately: true},
	})
	if err != nil {
		t.Fatalf("%s: send %q: %v", a.kind, text, err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("send %q: got %T", text, res)
	}
	return task.ID
}

// stored waits until the agent holds task id in state st, as another
// client reads it with GetTask, and returns the task.
func (a *testAgent) stored(t testing.TB, id a2a.TaskID, st a2a.TaskState) *a2a.Task {
	t.Helper()
	cl := a.other(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := cl.GetTask(t.Context(), &a2a.GetTaskRequest{ID: id})
		if err == nil && got.Status.State == st {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: task %s is %v (%v), want %s", a.kind, id, got, err, st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// createInStore adds a task straight into the store (while the server is
// down, for instance), as the agent's user.
func (a *testAgent) createInStore(t testing.TB, st a2a.TaskState) a2a.TaskID {
	t.Helper()
	ctx, cc := a2asrv.NewCallContext(t.Context(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	now := time.Now()
	task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: a2a.NewContextID(), Status: a2a.TaskStatus{State: st, Timestamp: &now}}
	if _, err := a.store.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	return task.ID
}

var errTimeout = errors.New("timed out waiting")
