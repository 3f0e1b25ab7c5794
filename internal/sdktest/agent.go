package sdktest

import (
	"context"
	"net"
	"net/http"
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

// Kind names the four server flavours the tests run against.
type Kind string

// The kinds: the SDK's v1.0 servers over JSON-RPC, REST and gRPC, and
// its 0.3 servers over JSON-RPC and REST (a2av0).
const (
	JSONRPC Kind = "jsonrpc-1.0"
	REST    Kind = "rest-1.0"
	GRPC    Kind = "grpc-1.0"
	Legacy  Kind = "jsonrpc-0.3"
	// LegacyREST is the SDK's 0.3 REST server, which sends its errors
	// as application/problem+json.
	LegacyREST Kind = "rest-0.3"
)

// Agent is a real SDK server on loopback that can be stopped and
// started again on the same port, keeping its task store.
type Agent struct {
	T     testing.TB // the test that started it
	Kind  Kind
	Exec  *Exec                           // the executor: what its tasks do
	Icpt  *Interceptor                    // what it received
	Store *taskstore.InMemory             // its task store, kept across Stop and Start
	H     a2asrv.RequestHandler           // the SDK's handler its servers serve
	Addr  string                          // host:port of the HTTP server (card)
	GAddr string                          // host:port of the gRPC server
	Wrap  func(http.Handler) http.Handler // what its HTTP handler is seen through; nil for none
	GOpts []grpc.ServerOption             // options of the gRPC server (TLS credentials)
	// Extended is the extended card the handler serves; nil for none.
	Extended *a2a.AgentCard
	Card     *a2a.AgentCard // the card it serves
	mu       sync.Mutex
	hs       *http.Server
	gs       *grpc.Server
}

// Start runs a real SDK server of kind on loopback (streaming: its card
// says it streams), its handler seen through wrap (nil: as it is), and
// stops it when the test ends.
func Start(t testing.TB, kind Kind, streaming bool, wrap func(http.Handler) http.Handler) *Agent {
	t.Helper()
	return StartStore(t, kind, streaming, wrap, nil)
}

// StartStore is Start with the task store seen through
// wrapStore (nil: the in-memory store as it is), for agents whose store
// behaves in ways the SDK's does not.
func StartStore(t testing.TB, kind Kind, streaming bool, wrap func(http.Handler) http.Handler,
	wrapStore func(*taskstore.InMemory) taskstore.Store) *Agent {
	t.Helper()
	a := &Agent{T: t, Kind: kind, Exec: NewExec(), Icpt: &Interceptor{}, Wrap: wrap}
	a.Store = taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: a2asrv.NewTaskStoreAuthenticator()})
	var store taskstore.Store = a.Store
	if wrapStore != nil {
		store = wrapStore(a.Store)
	}
	a.H = a2asrv.NewHandler(a.Exec, a2asrv.WithTaskStore(store), a2asrv.WithCallInterceptors(a.Icpt),
		a2asrv.WithAgentInactivityTimeout(20*time.Second))
	a.Addr = FreeAddr(t)
	if kind == GRPC {
		a.GAddr = FreeAddr(t)
	}
	base := "http://" + a.Addr
	var iface *a2a.AgentInterface
	switch kind {
	case JSONRPC:
		iface = a2a.NewAgentInterface(base+"/invoke", a2a.TransportProtocolJSONRPC)
	case REST:
		iface = a2a.NewAgentInterface(base+"/rest", a2a.TransportProtocolHTTPJSON)
	case GRPC:
		iface = a2a.NewAgentInterface(a.GAddr, a2a.TransportProtocolGRPC)
	case Legacy:
		iface = &a2a.AgentInterface{URL: base + "/invoke", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version}
	case LegacyREST:
		iface = &a2a.AgentInterface{URL: base + "/rest03", ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2av0.Version}
	}
	a.Card = &a2a.AgentCard{
		Name: "test " + string(kind), Description: "a test agent", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{iface},
		Capabilities:        a2a.AgentCapabilities{Streaming: streaming},
		DefaultInputModes:   []string{"text"}, DefaultOutputModes: []string{"text"},
	}
	a.Start()
	t.Cleanup(a.Stop)
	return a
}

// FreeAddr is a loopback host:port nothing listens on (for now).
func FreeAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// URL is the agent's origin, where its card is served.
func (a *Agent) URL() string { return "http://" + a.Addr }

// Mux is the agent's HTTP handler: its card, JSON-RPC and REST routes
// for its kind, seen through Wrap.
func (a *Agent) Mux() http.Handler {
	mux := http.NewServeMux()
	switch a.Kind {
	case Legacy, LegacyREST:
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(a.Card)))
		mux.Handle("/invoke", a2av0.NewJSONRPCHandler(a.H))
		mux.Handle("/rest03/", http.StripPrefix("/rest03", a2av0.NewRESTHandler(a.H)))
	default:
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(a.Card))
		mux.Handle("/invoke", a2asrv.NewJSONRPCHandler(a.H))
		mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(a.H)))
	}
	if a.Wrap != nil {
		return a.Wrap(mux)
	}
	return mux
}

// Start listens on the agent's fixed address (again, after stop).
func (a *Agent) Start() {
	a.T.Helper()
	if a.Extended != nil {
		a.H = a2asrv.NewHandler(a.Exec, a2asrv.WithTaskStore(a.Store), a2asrv.WithCallInterceptors(a.Icpt),
			a2asrv.WithAgentInactivityTimeout(20*time.Second), a2asrv.WithExtendedAgentCard(a.Extended))
	}
	var l net.Listener
	var err error
	for i := 0; i < 50; i++ { // the port may linger briefly after stop
		if l, err = net.Listen("tcp", a.Addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		a.T.Fatalf("listen %s: %v", a.Addr, err)
	}
	hs := &http.Server{Handler: a.Mux()}
	go hs.Serve(l)
	a.mu.Lock()
	a.hs = hs
	a.mu.Unlock()
	if a.Kind == GRPC {
		var gl net.Listener
		for i := 0; i < 50; i++ { // as above: the port may linger after stop
			if gl, err = net.Listen("tcp", a.GAddr); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			a.T.Fatalf("listen %s: %v", a.GAddr, err)
		}
		gs := grpc.NewServer(a.GOpts...)
		grpcv1.NewHandler(a.H).RegisterWith(gs)
		go gs.Serve(gl)
		a.mu.Lock()
		a.gs = gs
		a.mu.Unlock()
	}
}

// Stop kills the servers and their open connections (streams drop).
func (a *Agent) Stop() {
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

// Other is "another client": a bare SDK client that creates tasks.
func (a *Agent) Other(t testing.TB) *sdk.Client { return a.Bare(t, nil) }

// Bare is the SDK's own client for the agent, on an http.Client whose
// Transport is rt (nil: net/http's default), with none of our layers: what
// the SDK does alone.
func (a *Agent) Bare(t testing.TB, rt http.RoundTripper) *sdk.Client {
	t.Helper()
	hc := &http.Client{Transport: rt}
	cl, err := sdk.NewFromCard(t.Context(), a.Card,
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

// Send creates a task from text with another client and returns its id.
func (a *Agent) Send(t testing.TB, text string) a2a.TaskID {
	t.Helper()
	cl := a.Other(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := cl.SendMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)),
		Config:  &a2a.SendMessageConfig{ReturnImmediately: true},
	})
	if err != nil {
		t.Fatalf("%s: send %q: %v", a.Kind, text, err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("send %q: got %T", text, res)
	}
	return task.ID
}

// Stored waits until the agent holds task id in state st, as another
// client reads it with GetTask, and returns the task.
func (a *Agent) Stored(t testing.TB, id a2a.TaskID, st a2a.TaskState) *a2a.Task {
	t.Helper()
	cl := a.Other(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := cl.GetTask(t.Context(), &a2a.GetTaskRequest{ID: id})
		if err == nil && got.Status.State == st {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: task %s is %v (%v), want %s", a.Kind, id, got, err, st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// CreateInStore adds a task straight into the store (while the server is
// down, for instance), as the agent's user.
func (a *Agent) CreateInStore(t testing.TB, st a2a.TaskState) a2a.TaskID {
	t.Helper()
	ctx, cc := a2asrv.NewCallContext(t.Context(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	now := time.Now()
	task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: a2a.NewContextID(), Status: a2a.TaskStatus{State: st, Timestamp: &now}}
	if _, err := a.Store.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	return task.ID
}
