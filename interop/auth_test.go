package interop

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/model"
)

// TestManagerUnauthorized: a JS peer that requires a bearer token answers
// a wrong one with HTTP 401 (JSON-RPC, REST) or UNAUTHENTICATED (gRPC);
// a2aclient shows the agent as unauthorized, and the right token works.
func TestManagerUnauthorized(t *testing.T) {
	if !haveNode(t) {
		t.Skip("needs the JS peer")
	}
	peer := startPeer(t, "--grpc", "--token=s3cret", "--step-ms=5")
	grpcAddr := interfaceURL(t, peer.URL, a2a.TransportProtocolGRPC, "1.0")
	for _, binding := range []string{"jsonrpc", "rest", "grpc"} {
		t.Run(binding, func(t *testing.T) {
			opt := func(name, token string) a2aclient.AgentOptions {
				return a2aclient.AgentOptions{Name: name, URL: peer.URL, Binding: binding, Protocol: "1.0",
					Headers:       []a2aclient.Header{{Name: "Authorization", Value: "Bearer " + token}},
					AllowedHosts:  []string{grpcAddr},
					SweepInterval: 150e6}
			}
			c := runManager(t, opt("wrong", "nope"), opt("right", "s3cret"))
			c.wait(t, "the wrong token unauthorized, the right one up", func() bool {
				return c.health["wrong"].State == model.HealthUnauthorized && c.health["right"].State.Up()
			})
		})
	}
}
