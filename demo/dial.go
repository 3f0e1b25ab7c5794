package demo

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
)

// dial resolves the card at baseURL and builds an SDK client for it, with
// 1.0 JSON-RPC and REST and 0.3 JSON-RPC transports. The HTTP client has no
// Timeout (the SDK's default would cut long calls); callers bound calls
// with their contexts.
func dial(ctx context.Context, baseURL string) (*a2aclient.Client, error) {
	hc := &http.Client{}
	resolver := &agentcard.Resolver{Client: hc, CardParser: a2av0.NewAgentCardParser()}
	card, err := resolver.Resolve(ctx, baseURL)
	if err != nil {
		return nil, fmt.Errorf("agent card at %s: %w", baseURL, err)
	}
	c, err := a2aclient.NewFromCard(ctx, card,
		a2aclient.WithJSONRPCTransport(hc),
		a2aclient.WithRESTTransport(hc),
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: hc}),
	)
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", baseURL, err)
	}
	return c, nil
}

// lazyClient dials once it is first needed and again after a failure, so
// an agent that starts later or restarts is picked up.
type lazyClient struct {
	url string
	mu  sync.Mutex
	c   *a2aclient.Client
}

func (l *lazyClient) get(ctx context.Context) (*a2aclient.Client, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c != nil {
		return l.c, nil
	}
	c, err := dial(ctx, l.url)
	if err != nil {
		return nil, err
	}
	l.c = c
	return c, nil
}
