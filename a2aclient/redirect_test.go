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

// An HTTP redirect to another host:port carries none of the configured
// secret headers, for the card fetch and for calls: net/http keeps
// Authorization on a redirect to the same host name (another port) and
// keeps custom headers such as X-Api-Key everywhere, so the RoundTripper
// strips them on every hop that leaves the allowed origins.
func TestRedirectToAnotherHostGetsNoSecrets(t *testing.T) {
	for _, what := range []string{"card", "calls"} {
		t.Run(what, func(t *testing.T) {
			otherLog := &headerLog{}
			other := sdktest.Start(t, sdktest.JSONRPC, false, otherLog.wrap)
			a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
			a.Stop()
			a.Wrap = func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if what == "card" && r.URL.Path == a2asrv.WellKnownAgentCardPath ||
						what == "calls" && r.URL.Path == "/invoke" {
						http.Redirect(w, r, other.URL()+r.URL.Path, http.StatusTemporaryRedirect)
						return
					}
					next.ServeHTTP(w, r)
				})
			}
			a.Start()
			o := fast("a", a.URL())
			o.Headers = []Header{{Name: "Authorization", Value: "Bearer tok-abcdef"}, {Name: "X-Api-Key", Value: "key-abcdef"}}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			c.waitFor(t, "the other host was reached", 5*time.Second, func([]model.Event) bool {
				return len(otherLog.all()) > 0
			})
			c.waitFor(t, "a few rounds", 5*time.Second, func([]model.Event) bool { return len(otherLog.all()) > 3 })
			for _, s := range otherLog.all() {
				if strings.Contains(s, "abcdef") {
					t.Fatalf("a secret followed the redirect to %s: %q", other.Addr, s)
				}
			}
		})
	}
}

// A card whose interface is on another origin, with credentials
// configured but that origin not named: the 401 that follows says the
// token was withheld and how to send it, instead of "check the token".
func TestWithheldCredentialsAreExplained(t *testing.T) {
	other := sdktest.Start(t, sdktest.JSONRPC, false, sdktest.RequireBearer("tok-withheld"))
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	a.Stop()
	a.Card.SupportedInterfaces[0].URL = other.URL() + "/invoke"
	a.Start()
	o := fast("a", a.URL())
	o.Headers = []Header{{Name: "Authorization", Value: "Bearer tok-withheld"}}
	_, c := runManager(t, []AgentOptions{o}, Options{})
	c.waitFor(t, "withheld explained", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return h != nil && h.State == model.HealthUnauthorized &&
			strings.Contains(h.Err, "our credentials were not sent") && strings.Contains(h.Err, `add "`+other.Addr+`" to allowed_hosts`)
	})
}
