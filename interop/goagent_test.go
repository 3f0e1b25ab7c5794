package interop

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// goAgent is a Go SDK agent with the JS peer's vocabulary (see
// jspeer/server.mjs: ask, approve-me, run, fail, reject, long, echo),
// served over JSON-RPC, HTTP+JSON, gRPC and 0.3 JSON-RPC at once. It is
// what a careful Go agent looks like: tasks scoped per bearer token (the
// anonymous caller may not list), AUTH_REQUIRED resumed by a message
// through a server CallInterceptor (the SDK alone refuses messages to a
// task whose execution still runs: -32603).
type goAgent struct {
	URL, GRPC string
	step      time.Duration
	store     *taskstore.InMemory
	gates     sync.Map // a2a.TaskID -> chan *a2a.Message (buffered 1)

	mu   sync.Mutex
	seen []peerRequest // every request received, with its A2A-Version
}

func (ga *goAgent) note(kind, what, version string) {
	ga.mu.Lock()
	ga.seen = append(ga.seen, peerRequest{Kind: kind, What: what, Version: version})
	ga.mu.Unlock()
}

func (ga *goAgent) requests() []peerRequest {
	ga.mu.Lock()
	defer ga.mu.Unlock()
	return append([]peerRequest(nil), ga.seen...)
}

func (ga *goAgent) grpcVersion(ctx context.Context, method string) {
	md, _ := metadata.FromIncomingContext(ctx)
	ga.note("grpc", method, strings.Join(md.Get("a2a-version"), ","))
}

// startGoAgent starts the agent; handoff false leaves out the interceptor
// that resumes AUTH_REQUIRED by message (the SDK's own behaviour).
func startGoAgent(t *testing.T, handoff bool) *goAgent {
	t.Helper()
	ga := &goAgent{step: 15 * time.Millisecond,
		store: taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: a2asrv.NewTaskStoreAuthenticator()})}
	card := &a2a.AgentCard{Name: "go-peer", Description: "Go SDK agent with the JS peer's vocabulary", Version: "2.4.0",
		Capabilities:      a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes: []string{"text/plain", "application/json"}, DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills: []a2a.AgentSkill{{ID: "ask", Name: "ask", Description: "goes INPUT_REQUIRED", Tags: []string{"interop"}}}}
	interceptors := []a2asrv.CallInterceptor{bearerUser{}}
	if handoff {
		interceptors = append(interceptors, &goHandoff{ga: ga})
	}
	h := a2asrv.NewHandler(ga,
		a2asrv.WithTaskStore(ga.store),
		a2asrv.WithCallInterceptors(interceptors...),
		a2asrv.WithAgentInactivityTimeout(time.Minute),
		a2asrv.WithCapabilityChecks(&card.Capabilities),
	)
	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ga.note("http", r.Method+" "+r.URL.Path, r.Header.Get("A2A-Version"))
		mux.ServeHTTP(w, r)
	}))
	srv.Start()
	t.Cleanup(srv.Close)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(
		grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			ga.grpcVersion(ctx, info.FullMethod)
			return h(ctx, req)
		}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			ga.grpcVersion(ss.Context(), info.FullMethod)
			return h(srv, ss)
		}),
	)
	a2agrpc.NewHandler(h).RegisterWith(gs)
	go gs.Serve(lis) //nolint:errcheck // ends with Stop
	t.Cleanup(gs.Stop)
	ga.URL, ga.GRPC = srv.URL, lis.Addr().String()
	card.SupportedInterfaces = []*a2a.AgentInterface{
		{URL: ga.URL + "/a2a/jsonrpc", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version},
		{URL: ga.URL + "/a2a/rest", ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2a.Version},
		{URL: ga.GRPC, ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.Version},
		{URL: ga.URL + "/a2a/v03", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version},
	}
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/a2a/jsonrpc", a2asrv.NewJSONRPCHandler(h))
	mux.Handle("/a2a/rest/", http.StripPrefix("/a2a/rest", a2asrv.NewRESTHandler(h)))
	mux.Handle("/a2a/v03", a2av0.NewJSONRPCHandler(h))
	return ga
}

// goTargets lists every interface of one Go SDK agent.
func goTargets(t *testing.T) []target {
	ga := startGoAgent(t, true)
	mk := func(name, binding, protocol string, b a2a.TransportProtocol, v a2a.ProtocolVersion, listing bool) target {
		return target{Name: name, URL: ga.URL, Binding: binding, Protocol: protocol, SDK: b, Version: v, Listing: listing, requests: ga.requests}
	}
	g := mk("go/grpc", "grpc", "1.0", a2a.TransportProtocolGRPC, a2a.Version, true)
	g.AllowedHosts = []string{ga.GRPC}
	return []target{
		mk("go/jsonrpc", "jsonrpc", "1.0", a2a.TransportProtocolJSONRPC, a2a.Version, true),
		mk("go/rest", "rest", "1.0", a2a.TransportProtocolHTTPJSON, a2a.Version, true),
		g,
		mk("go-0.3/jsonrpc", "jsonrpc", "0.3", a2a.TransportProtocolJSONRPC, a2av0.Version, false),
	}
}

// bearerUser makes "Authorization: Bearer X" the authenticated user X.
type bearerUser struct {
	a2asrv.PassthroughCallInterceptor
}

func (bearerUser) Before(ctx context.Context, cc *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	if v, ok := cc.ServiceParams().Get("authorization"); ok && len(v) > 0 {
		if tok, ok := strings.CutPrefix(v[0], "Bearer "); ok && tok != "" {
			cc.User = a2asrv.NewAuthenticatedUser("bearer:"+tok, nil)
		}
	}
	return ctx, nil, nil
}

var firstWord = regexp.MustCompile(`^\s*([A-Za-z-]+)`)

func textOf(m *a2a.Message) string {
	var parts []string
	for _, p := range m.Parts {
		if s := p.Text(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

func first(m *a2a.Message) string {
	w := firstWord.FindStringSubmatch(textOf(m))
	if w == nil {
		return ""
	}
	return strings.ToLower(w[1])
}

// Execute implements a2asrv.AgentExecutor.
func (ga *goAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		say := func(s a2a.TaskState, text string) bool {
			return yield(a2a.NewStatusUpdateEvent(ec, s, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(text))), nil)
		}
		if ec.StoredTask != nil { // a reply to INPUT_REQUIRED
			if !say(a2a.TaskStateWorking, "deploying to "+textOf(ec.Message)) || !ga.sleep(ctx) {
				return
			}
			if !yield(a2a.NewArtifactEvent(ec, a2a.NewTextPart(textOf(ec.Message))), nil) {
				return
			}
			say(a2a.TaskStateCompleted, "deployed to "+textOf(ec.Message))
			return
		}
		word := first(ec.Message)
		if !slices.Contains([]string{"ask", "approve-me", "run", "fail", "reject", "long"}, word) {
			yield(a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("echo: "+textOf(ec.Message))), nil)
			return
		}
		if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) || !ga.sleep(ctx) {
			return
		}
		switch word {
		case "ask":
			say(a2a.TaskStateInputRequired, "Which environment should I deploy to?")
		case "reject":
			say(a2a.TaskStateRejected, "This agent does not deploy on Fridays.")
		case "fail":
			if say(a2a.TaskStateWorking, "Building...") && ga.sleep(ctx) {
				say(a2a.TaskStateFailed, "build failed: exit status 2")
			}
		case "run":
			ga.run(ctx, ec, yield, say)
		case "long":
			ga.long(ctx, ec, yield, say)
		case "approve-me":
			ga.approval(ctx, ec, yield, say)
		}
	}
}

func (ga *goAgent) sleep(ctx context.Context) bool { return sleepCtx(ctx, ga.step) }

func sleepCtx(ctx context.Context, d time.Duration) bool {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-tm.C:
		return true
	}
}

type yieldFn = func(a2a.Event, error) bool

func (ga *goAgent) run(ctx context.Context, ec *a2asrv.ExecutorContext, yield yieldFn, say func(a2a.TaskState, string) bool) {
	n := map[string]int{"passed": 12, "failed": 0}
	for _, m := range regexp.MustCompile(`(passed|failed)=(\d+)`).FindAllStringSubmatch(textOf(ec.Message), -1) {
		n[m[1]], _ = strconv.Atoi(m[2])
	}
	if !say(a2a.TaskStateWorking, "Running tests...") || !ga.sleep(ctx) {
		return
	}
	sum := a2a.NewArtifactEvent(ec, a2a.NewDataPart(map[string]any{"passed": n["passed"], "failed": n["failed"]}))
	sum.Artifact.Name = "summary.json"
	rep := a2a.NewArtifactEvent(ec, a2a.NewTextPart(fmt.Sprintf("%d failed / %d passed\n", n["failed"], n["passed"])))
	rep.Artifact.Name = "report.txt"
	if yield(sum, nil) && yield(rep, nil) {
		say(a2a.TaskStateCompleted, fmt.Sprintf("%d failed / %d passed", n["failed"], n["passed"]))
	}
}

func (ga *goAgent) long(ctx context.Context, ec *a2asrv.ExecutorContext, yield yieldFn, say func(a2a.TaskState, string) bool) {
	if !say(a2a.TaskStateWorking, "streaming log chunks...") {
		return
	}
	var id a2a.ArtifactID
	for i := 0; i < 4000; i++ {
		if !ga.sleep(ctx) {
			return // canceled: Cancel writes CANCELED
		}
		var ev *a2a.TaskArtifactUpdateEvent
		if i == 0 {
			ev = a2a.NewArtifactEvent(ec, a2a.NewTextPart(fmt.Sprintf("line %d\n", i+1)))
			ev.Artifact.Name = "log.txt"
			id = ev.Artifact.ID
		} else {
			ev = a2a.NewArtifactUpdateEvent(ec, id, a2a.NewTextPart(fmt.Sprintf("line %d\n", i+1)))
		}
		if !yield(ev, nil) {
			return
		}
	}
	say(a2a.TaskStateCompleted, "streamed 4000 chunks")
}

// approval goes AUTH_REQUIRED and waits (the execution keeps running) for
// the decision goHandoff delivers, then records it in the history.
func (ga *goAgent) approval(ctx context.Context, ec *a2asrv.ExecutorContext, yield yieldFn, say func(a2a.TaskState, string) bool) {
	gate := make(chan *a2a.Message, 1)
	ga.gates.Store(ec.TaskID, gate)
	defer ga.gates.Delete(ec.TaskID)
	if !say(a2a.TaskStateAuthRequired, "Approve deploy to prod? Reply approve or deny.") {
		return
	}
	var msg *a2a.Message
	select {
	case <-ctx.Done():
		return
	case msg = <-gate:
	}
	approve := decisionOf(msg)
	st, err := ga.store.Get(ctx, ec.TaskID)
	if err != nil {
		yield(nil, fmt.Errorf("read task after decision: %w", err))
		return
	}
	task := st.Task
	if task.Status.Message != nil {
		task.History = append(task.History, task.Status.Message)
	}
	m := *msg
	m.TaskID, m.ContextID = task.ID, task.ContextID
	task.History = append(task.History, &m)
	now := time.Now()
	if !approve {
		task.Status = a2a.TaskStatus{State: a2a.TaskStateFailed, Timestamp: &now,
			Message: a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Denied: "+textOf(msg)))}
		yield(task, nil)
		return
	}
	task.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &now,
		Message: a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Approved; deploying..."))}
	if yield(task, nil) && ga.sleep(ctx) {
		say(a2a.TaskStateCompleted, "Deployed to prod after approval.")
	}
}

// decisionOf: a data part {"decision": "approve"|"deny"} wins, else the
// first word of the text (approve/approved/yes vs anything else = deny).
func decisionOf(m *a2a.Message) bool {
	for _, p := range m.Parts {
		if obj, ok := p.Data().(map[string]any); ok {
			if d, ok := obj["decision"].(string); ok {
				return strings.HasPrefix(strings.ToLower(d), "approve")
			}
		}
	}
	switch first(m) {
	case "approve", "approved", "yes":
		return true
	}
	return false
}

// Cancel implements a2asrv.AgentExecutor.
func (ga *goAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// goHandoff hands a message sent to a task waiting in AUTH_REQUIRED to its
// running execution and answers with the task once the decision is in
// its history.
type goHandoff struct {
	a2asrv.PassthroughCallInterceptor
	ga *goAgent
}

func (h *goHandoff) Before(ctx context.Context, _ *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	sm, ok := req.Payload.(*a2a.SendMessageRequest)
	if !ok || sm.Message == nil || sm.Message.TaskID == "" {
		return ctx, nil, nil
	}
	g, ok := h.ga.gates.Load(sm.Message.TaskID)
	if !ok {
		return ctx, nil, nil
	}
	select {
	case g.(chan *a2a.Message) <- sm.Message:
	default:
		return ctx, nil, nil // a decision is already on its way: the SDK answers
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		st, err := h.ga.store.Get(ctx, sm.Message.TaskID)
		if err == nil && slices.ContainsFunc(st.Task.History, func(m *a2a.Message) bool { return m.ID == sm.Message.ID }) {
			if sm.Config != nil && sm.Config.ReturnImmediately || st.Task.Status.State.Terminal() {
				return ctx, st.Task, nil
			}
		}
		if !sleepCtx(ctx, 5*time.Millisecond) {
			return ctx, nil, ctx.Err()
		}
	}
	return ctx, nil, errors.New("the decision was handed over but not recorded within 20s")
}
