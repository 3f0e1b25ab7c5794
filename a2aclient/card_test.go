package a2aclient

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// A base URL with a wrong path on an agent whose JSON-RPC endpoint is
// mounted on "/" gets a 200 JSON-RPC error instead of a card, and an HTML
// page is no card either: both say "not an agent card" with the URL, not
// "version not supported". An https URL on a plain-http agent says so.
func TestNotACardAndPlainHTTP(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	a.Stop()
	a.Wrap = func(next http.Handler) http.Handler {
		mux := http.NewServeMux()
		mux.Handle(a2asrv.WellKnownAgentCardPath, next)
		mux.HandleFunc("/html/", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body>welcome</body></html>"))
		})
		mux.Handle("/", a2asrv.NewJSONRPCHandler(a.H))
		return mux
	}
	a.Start()
	agents := []AgentOptions{fast("rpc", a.URL()+"/wrong"), fast("html", a.URL()+"/html"),
		fast("tls", "https://"+a.Addr), fast("good", a.URL())}
	_, c := runManager(t, agents, Options{})
	c.waitFor(t, "good agent sweeps", 5*time.Second, healthIs("good", model.HealthSweeping))
	for _, tt := range []struct{ agent, want string }{
		{"rpc", "not an agent card: " + a.URL() + "/wrong/.well-known/agent-card.json answered with JSON with no name and no interfaces (is the URL the agent's base URL"},
		{"html", "not an agent card: " + a.URL() + "/html/.well-known/agent-card.json answered with a document that is not JSON"},
		{"tls", "TLS failed: https://" + a.Addr + "/.well-known/agent-card.json answers in plain http, not https (use an http:// URL"},
	} {
		c.waitFor(t, tt.agent, 5*time.Second, func(evs []model.Event) bool {
			h := lastHealth(evs, tt.agent)
			return h != nil && !h.State.Up() && strings.Contains(h.Err, tt.want)
		})
	}
	if h := lastHealth(c.snapshot(), "tls"); h.State != model.HealthUnreachable {
		t.Errorf("https on a plain-http agent: health %s, want unreachable", h.State)
	}
}
