package a2aclient

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// One agent offering JSON-RPC 1.0, HTTP+JSON 1.0 and JSON-RPC 0.3: the
// config's binding and protocol pick the interface, auto takes the newest
// in card order, tenant goes into every request, and a binding the card
// does not offer says what the card does offer.
func TestConfigChoosesInterfaceAndTenant(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	a.Stop()
	a.Card.SupportedInterfaces = append(a.Card.SupportedInterfaces,
		a2a.NewAgentInterface(a.URL()+"/rest", a2a.TransportProtocolHTTPJSON),
		&a2a.AgentInterface{URL: a.URL() + "/invoke03", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version})
	a.Wrap = func(next http.Handler) http.Handler {
		mux := http.NewServeMux()
		mux.Handle("/invoke03", a2av0.NewJSONRPCHandler(a.H))
		mux.Handle("/", next)
		return mux
	}
	a.Start()
	opt := func(name, binding, protocol, tenant string) AgentOptions {
		o := fast(name, a.URL())
		o.Binding, o.Protocol, o.Tenant = binding, protocol, tenant
		return o
	}
	agents := []AgentOptions{opt("auto", "auto", "auto", ""), opt("rest", "rest", "", ""),
		opt("old", "jsonrpc", "0.3", ""), opt("ten", "jsonrpc", "1.0", "acme"), opt("grpc", "grpc", "auto", "")}
	_, c := runManager(t, agents, Options{})
	want := map[string]string{"auto": "JSONRPC 1.0", "rest": "HTTP+JSON 1.0", "old": "JSONRPC 0.3", "ten": "JSONRPC 1.0"}
	c.waitFor(t, "interfaces chosen", 5*time.Second, func(evs []model.Event) bool {
		got := map[string]string{}
		for _, e := range evs {
			if e.Kind == model.EventAgent {
				got[e.Agent] = e.Info.Binding + " " + e.Info.ProtocolVersion
			}
		}
		for k, v := range want {
			if got[k] != v {
				return false
			}
		}
		return true
	})
	c.waitFor(t, "0.3 chosen by config polls", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "old")
		return h != nil && h.ListingNote == noListing03
	})
	c.waitFor(t, "no gRPC on the card", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "grpc")
		return h != nil && strings.Contains(h.Err, "version not supported: no compatible transports: the card offers [JSONRPC 1.0, HTTP+JSON 1.0, JSONRPC 0.3]")
	})
	c.waitFor(t, "tenant on the wire", 5*time.Second, func([]model.Event) bool {
		a.Icpt.Mu.Lock()
		defer a.Icpt.Mu.Unlock()
		return slices.Contains(a.Icpt.Tenants, "acme")
	})
}
