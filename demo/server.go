package demo

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// demoUser is the one user every caller of a demo agent becomes, so the
// SDK's task store (which scopes tasks per user and refuses ListTasks to the
// anonymous user) lists every task to every dashboard.
const demoUser = "demo"

// busyInactivity is the a2asrv.WithAgentInactivityTimeout of agents that
// only work: they write an event at least every few seconds. Agents that
// wait for a person write nothing while they wait; theirs is
// waitingInactivity, a backstop behind Timings.ApprovalExpiry.
const busyInactivity = 2 * time.Minute

func (e *env) waitingInactivity() time.Duration { return e.t.ApprovalExpiry + 5*time.Minute }

// env is what every agent constructor gets: the fleet's logger, timings,
// lifetime and the URLs of all agents (the planner calls the deployer).
type env struct {
	log  *slog.Logger
	t    Timings
	life context.Context
	urls map[string]string
	push bool // the 1.0 agents offer push notifications
}

// userInterceptor authenticates every call as demoUser.
type userInterceptor struct {
	a2asrv.PassthroughCallInterceptor
}

// Before implements a2asrv.CallInterceptor.
func (userInterceptor) Before(ctx context.Context, cc *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	cc.User = a2asrv.NewAuthenticatedUser(demoUser, nil)
	return ctx, nil, nil
}

// newStore is the SDK's in-memory task store, scoped per authenticated user.
func newStore() *taskstore.InMemory {
	return taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: a2asrv.NewTaskStoreAuthenticator()})
}

// agentParts is what an agent constructor hands to mount.
type agentParts struct {
	exec       a2asrv.AgentExecutor
	store      taskstore.Store
	card       *a2a.AgentCard
	inactivity time.Duration
	extra      []a2asrv.CallInterceptor // run after userInterceptor
}

// mount builds the SDK request handler and the HTTP routes: the agent card
// at the well-known path and the protocol binding the card names at "/".
func mount(e *env, p agentParts) http.Handler {
	interceptors := append([]a2asrv.CallInterceptor{userInterceptor{}}, p.extra...)
	iface := p.card.SupportedInterfaces[0]
	opts := []a2asrv.RequestHandlerOption{
		a2asrv.WithTaskStore(p.store),
		a2asrv.WithLogger(e.log.With("agent", p.card.Name)),
		a2asrv.WithCallInterceptors(interceptors...),
		a2asrv.WithAgentInactivityTimeout(p.inactivity),
		a2asrv.WithCapabilityChecks(&p.card.Capabilities),
	}
	if e.push && iface.ProtocolVersion != a2av0.Version {
		p.card.Capabilities.PushNotifications = true
		opts = append(opts, a2asrv.WithPushNotifications(push.NewInMemoryStore(),
			push.NewHTTPPushSender(&push.HTTPSenderConfig{Timeout: 10 * time.Second, AllowPrivateNetworks: true})))
	}
	h := a2asrv.NewHandler(p.exec, opts...)
	mux := http.NewServeMux()
	switch {
	case iface.ProtocolVersion == a2av0.Version:
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(p.card)))
		mux.Handle("/", a2av0.NewJSONRPCHandler(h))
	case iface.ProtocolBinding == a2a.TransportProtocolHTTPJSON:
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(p.card))
		mux.Handle("/", a2asrv.NewRESTHandler(h))
	default:
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(p.card))
		mux.Handle("/", a2asrv.NewJSONRPCHandler(h))
	}
	return mux
}

// newCard describes one demo agent with a single interface at its base URL.
func newCard(name, description, url string, binding a2a.TransportProtocol, version a2a.ProtocolVersion, streaming bool, skills ...a2a.AgentSkill) *a2a.AgentCard {
	return &a2a.AgentCard{
		Name:        name,
		Description: description,
		Version:     "0.1.0",
		Provider:    &a2a.AgentProvider{Org: "a2atop demo fleet", URL: url},
		SupportedInterfaces: []*a2a.AgentInterface{
			{URL: url, ProtocolBinding: binding, ProtocolVersion: version},
		},
		Capabilities:       a2a.AgentCapabilities{Streaming: streaming},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills:             skills,
	}
}
