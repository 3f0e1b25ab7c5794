package a2aclient

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// requireHeader refuses, 401, every request (the card's included) that
// lacks name: value.
func requireHeader(name, value string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(name) != value {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// An agent that protects its card (behind a gateway or a cloud IAM proxy)
// with a credential the config fully names but gives no type (a token, an
// API key in a named header): the card fetch carries it to the agent's
// own origin, and the agent's tasks show. Before, the credential waited
// for the card's requirements and the card fetch went without it: 401
// for ever.
func TestProtectedCardGetsTheConfiguredCredential(t *testing.T) {
	for _, kind := range []string{"token", "api key"} {
		t.Run(kind, func(t *testing.T) {
			o := AuthOptions{Token: Secret{Value: "tok-card-1234"}}
			wrap := sdktest.RequireBearer("tok-card-1234")
			if kind == "api key" {
				o.APIKeyHeader = "X-Gateway-Key"
				wrap = requireHeader("X-Gateway-Key", "tok-card-1234")
			}
			a := sdktest.Start(t, sdktest.JSONRPC, false, wrap)
			id := a.CreateInStore(t, a2a.TaskStateInputRequired)
			ao := fast("a", a.URL())
			ao.Auth = o
			_, c := runManager(t, []AgentOptions{ao}, Options{})
			c.waitFor(t, "the task of the agent whose card needs the credential", 10*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", id, "")
			})
			noUnauthorized(t, c.snapshot(), "a")
		})
	}
}

// The credential sent early, with the card fetch, goes to the agent's own
// origin alone: a card fetch redirected to another origin does not carry
// it there, not even to one of allowed_hosts (the card, which would say
// what to send there, has not been read).
func TestCardFetchCredentialNotRedirected(t *testing.T) {
	for _, allow := range []bool{false, true} {
		name := map[bool]string{false: "other origin", true: "allowed host"}[allow]
		t.Run(name, func(t *testing.T) {
			otherLog := &headerLog{}
			other := sdktest.Start(t, sdktest.JSONRPC, false, otherLog.wrap)
			a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
			a.Stop()
			a.Wrap = func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == a2asrv.WellKnownAgentCardPath {
						http.Redirect(w, r, other.URL()+r.URL.Path, http.StatusTemporaryRedirect)
						return
					}
					next.ServeHTTP(w, r)
				})
			}
			a.Start()
			o := fast("a", a.URL())
			o.Auth = AuthOptions{Token: Secret{Value: "tok-abcdef"}, APIKeyHeader: ""}
			if allow {
				o.AllowedHosts = []string{other.Addr}
			}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			c.waitFor(t, "the card fetched from the other origin", 10*time.Second, func([]model.Event) bool {
				for _, s := range otherLog.all() {
					if strings.HasPrefix(s, a2asrv.WellKnownAgentCardPath) {
						return true
					}
				}
				return false
			})
			for _, s := range otherLog.all() {
				if strings.HasPrefix(s, a2asrv.WellKnownAgentCardPath) && strings.Contains(s, "abcdef") {
					t.Fatalf("the card fetch's credential followed the redirect to %s: %q", other.Addr, s)
				}
			}
		})
	}
}
