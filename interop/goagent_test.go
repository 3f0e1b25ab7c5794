package interop

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// goAgent is a Go SDK agent with the JS peer's vocabulary (see
// jspeer/server.mjs: ask, approve-me, run, fail, reject, long, echo),
// served over JSON-RPC, HTTP+JSON, gRPC, and 0.3 JSON-RPC and HTTP+JSON at
// once. It is
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
	return startGoAgentWith(t, goAgentOptions{Handoff: handoff})
}

// goAgentOptions are the variants of the Go agent.
type goAgentOptions struct {
	// Handoff resumes AUTH_REQUIRED by message (see startGoAgent).
	Handoff bool
	// Push offers push notifications on the card and sends them with the
	// SDK's HTTP push sender (its guard against private addresses off:
	// the webhook is on loopback).
	Push bool
	// PushCardOnly offers push on the card but configures none: the
	// agent refuses every push config.
	PushCardOnly bool
	// Step is the pause between the agent's steps; 0 = 15ms.
	Step time.Duration
}

// startGoAgentWith starts the agent as o says.
func startGoAgentWith(t *testing.T, o goAgentOptions) *goAgent {
	t.Helper()
	if o.Step == 0 {
		o.Step = 15 * time.Millisecond
	}
	ga := &goAgent{step: o.Step,
		store: taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: a2asrv.NewTaskStoreAuthenticator()})}
	card := &a2a.AgentCard{Name: "go-peer", Description: "Go SDK agent with the JS peer's vocabulary", Version: "2.4.0",
		Capabilities:      a2a.AgentCapabilities{Streaming: true, PushNotifications: o.Push || o.PushCardOnly},
		DefaultInputModes: []string{"text/plain", "application/json"}, DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills: []a2a.AgentSkill{{ID: "ask", Name: "ask", Description: "goes INPUT_REQUIRED", Tags: []string{"interop"}}}}
	interceptors := []a2asrv.CallInterceptor{bearerUser{}}
	if o.Handoff {
		interceptors = append(interceptors, &goHandoff{ga: ga})
	}
	opts := []a2asrv.RequestHandlerOption{
		a2asrv.WithTaskStore(ga.store),
		a2asrv.WithCallInterceptors(interceptors...),
		a2asrv.WithAgentInactivityTimeout(time.Minute),
		a2asrv.WithCapabilityChecks(&card.Capabilities),
	}
	if o.Push {
		opts = append(opts, a2asrv.WithPushNotifications(push.NewInMemoryStore(),
			push.NewHTTPPushSender(&push.HTTPSenderConfig{Timeout: 5 * time.Second, AllowPrivateNetworks: true})))
	}
	h := a2asrv.NewHandler(ga, opts...)
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
		{URL: ga.URL + "/a2a/v03rest", ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2av0.Version},
	}
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/a2a/jsonrpc", a2asrv.NewJSONRPCHandler(h))
	mux.Handle("/a2a/rest/", http.StripPrefix("/a2a/rest", a2asrv.NewRESTHandler(h)))
	mux.Handle("/a2a/v03", a2av0.NewJSONRPCHandler(h))
	mux.Handle("/a2a/v03rest/", http.StripPrefix("/a2a/v03rest", a2av0.NewRESTHandler(h)))
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
		mk("go-0.3/rest", "rest", "0.3", a2a.TransportProtocolHTTPJSON, a2av0.Version, true),
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
