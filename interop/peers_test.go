package interop

import (
	"encoding/json"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"

	"a2atop/a2aclient"
)

// target is one agent a2atop is tested against: an implementation, a
// binding and a protocol version, plus what is known about its habits.
type target struct {
	Name     string                // "js/jsonrpc", "go/grpc", "js-0.3/rest", ...
	URL      string                // base URL (serves the card)
	Binding  string                // a2aclient AgentOptions.Binding
	Protocol string                // a2aclient AgentOptions.Protocol
	SDK      a2a.TransportProtocol // the same binding for the raw SDK client
	Version  a2a.ProtocolVersion
	// Listing is false where ListTasks does not exist (0.3 JSON-RPC).
	Listing bool
	// StreamsInterrupted: SubscribeToTask on an INPUT_REQUIRED or
	// AUTH_REQUIRED task returns a snapshot and stays open (JS) rather than
	// failing (Go: -32001 "no active execution").
	StreamsInterrupted bool
	// AllowedHosts are extra host:port that may receive the token: a card
	// whose gRPC interface listens on another port than the card's origin.
	AllowedHosts []string
	// requests lists what the server received, when it can tell.
	requests func() []peerRequest
}

// agent is the a2aclient configuration for the target with a bearer
// token (each test uses its own token, hence its own task scope).
func (tg target) agent(name, token string) a2aclient.AgentOptions {
	return a2aclient.AgentOptions{
		Name: name, URL: tg.URL, Binding: tg.Binding, Protocol: tg.Protocol,
		Headers:       []a2aclient.Header{{Name: "Authorization", Value: "Bearer " + token}},
		AllowedHosts:  tg.AllowedHosts,
		SweepInterval: 150e6, // 150ms: tests wait on events, never on clocks
	}
}

// client is a raw SDK client for the same interface and token.
func (tg target) client(t *testing.T, token string) (*sdk.Client, *recorder) {
	return sdkClient(t, tg.URL, clientOpts{Binding: tg.SDK, Version: tg.Version, Token: token})
}

// jsTargets starts one 1.0 JS peer (with gRPC) and one with the 0.3 layer,
// and returns every interface they offer.
func jsTargets(t *testing.T) []target {
	if !haveNode(t) {
		return nil
	}
	v1 := startPeer(t, "--grpc", "--step-ms=15", "--name=js-peer")
	legacy := startPeer(t, "--legacy", "--step-ms=15", "--name=js-peer-0.3")
	mk := func(p *jsPeer, name, binding, protocol string, sdkB a2a.TransportProtocol, v a2a.ProtocolVersion, listing bool) target {
		return target{Name: name, URL: p.URL, Binding: binding, Protocol: protocol, SDK: sdkB, Version: v,
			Listing: listing, StreamsInterrupted: true, requests: p.requests}
	}
	grpc := mk(v1, "js/grpc", "grpc", "1.0", a2a.TransportProtocolGRPC, "1.0", true)
	grpc.AllowedHosts = []string{interfaceURL(t, v1.URL, a2a.TransportProtocolGRPC, "1.0")}
	// Not listed: 0.3 over HTTP+JSON. The JS SDK answers v1/message:send
	// with 201 Created, which the Go SDK's 0.3 REST client takes for an
	// error (TestJS03RESTSendIsCreated); a2atop cannot use that interface.
	return []target{
		mk(v1, "js/jsonrpc", "jsonrpc", "1.0", a2a.TransportProtocolJSONRPC, "1.0", true),
		mk(v1, "js/rest", "rest", "1.0", a2a.TransportProtocolHTTPJSON, "1.0", true),
		grpc,
		mk(legacy, "js-0.3/jsonrpc", "jsonrpc", "0.3", a2a.TransportProtocolJSONRPC, "0.3", false),
	}
}

// interfaceURL reads the card at base and returns the URL of its interface
// with that binding and version.
func interfaceURL(t *testing.T, base string, b a2a.TransportProtocol, v a2a.ProtocolVersion) string {
	t.Helper()
	_, _, body := rawCall(t, "GET", base+"/.well-known/agent-card.json", string(v), "")
	var card a2a.AgentCard
	if err := json.Unmarshal(body, &card); err != nil {
		t.Fatalf("card at %s: %v", base, err)
	}
	for _, i := range card.SupportedInterfaces {
		if i.ProtocolBinding == b && i.ProtocolVersion == v {
			return i.URL
		}
	}
	t.Fatalf("card at %s has no %s %s interface", base, b, v)
	return ""
}

// allTargets is every implementation x binding the suite covers.
func allTargets(t *testing.T) []target {
	return append(jsTargets(t), goTargets(t)...)
}
