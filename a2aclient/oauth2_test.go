package a2aclient

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/oidctest"
	"a2atop/internal/sdktest"
	"a2atop/model"
)

// oauthCard gives agent a's card an OAuth 2.0 scheme with flow f, required.
func oauthCard(a *sdktest.Agent, name string, f a2a.OAuthFlows) {
	a.Card.SecuritySchemes = a2a.NamedSecuritySchemes{a2a.SecuritySchemeName(name): a2a.OAuth2SecurityScheme{Flows: f}}
	a.Card.SecurityRequirements = a2a.SecurityRequirementsOptions{{a2a.SecuritySchemeName(name): {"a2a.read"}}}
}

func hostOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// Client credentials, the type chosen by the card: an agent behind a real
// OpenID provider whose tokens live 2 s is watched for more than three
// lifetimes. Tokens are refreshed before they expire: the agent refuses
// none, the row never says unauthorized, and the sweeps carry on.
func TestClientCredentialsLiveThroughAShift(t *testing.T) {
	t.Parallel() // it waits out token lifetimes
	const lifetime = 2 * time.Second
	p := oidctest.Start(t, oidctest.Options{AccessTokenLifetime: lifetime})
	p.AddServiceClient("a2atop-watch", "cc-secret-1234")
	guard := p.Guard()
	a := sdktest.Start(t, sdktest.JSONRPC, true, guard.Wrap)
	a.Stop()
	oauthCard(a, "corp", a2a.ClientCredentialsOAuthFlow{TokenURL: p.TokenURL(), Scopes: map[string]string{"a2a.read": "read"}})
	a.Start()
	secret := filepath.Join(t.TempDir(), "client-secret")
	writeFile(t, secret, "cc-secret-1234\n")
	o := fast("a", a.URL())
	o.Auth = AuthOptions{ClientID: "a2atop-watch", ClientSecret: Secret{File: secret}}
	o.AllowedHosts = []string{hostOf(t, p.Issuer)} // the card's token endpoint is on the provider's origin
	m, c := runManager(t, []AgentOptions{o}, Options{})
	id := a.CreateInStore(t, a2a.TaskStateInputRequired)
	c.waitFor(t, "the task through the guard", 5*time.Second, func(evs []model.Event) bool { return hasTask(evs, "a", id, "") })
	start := time.Now()
	for time.Since(start) < 3*lifetime+lifetime/2 {
		time.Sleep(100 * time.Millisecond)
	}
	accepted, refused := guard.Counts()
	if refused != 0 {
		t.Errorf("the agent refused %d requests (accepted %d): a token expired on the wire", refused, accepted)
	}
	var sweeps int
	for _, ev := range c.snapshot() {
		if ev.Kind != model.EventHealth || ev.Agent != "a" {
			continue
		}
		switch h := ev.Health; {
		case h.State == model.HealthUnauthorized || strings.Contains(h.Err, "401") || strings.Contains(h.Err, "unauthorized"):
			t.Fatalf("the row showed %s %q", h.State, h.Err)
		case h.State.Up():
			sweeps++
		}
	}
	t.Logf("%d token requests, %d good rounds, guard accepted %d", p.TokenRequests(), sweeps, accepted)
	if n := p.TokenRequests(); n < 4 {
		t.Errorf("%d token requests in %s of %s tokens: they were not refreshed", n, time.Since(start), lifetime)
	}
	if sweeps < 20 {
		t.Errorf("only %d good rounds: the sweeps stopped", sweeps)
	}
	info := lastInfo(c.snapshot(), "a")
	if info == nil || !strings.Contains(info.Auth, "client credentials") || !strings.Contains(info.Auth, `"corp"`) || info.AuthMissing != "" {
		t.Errorf("info = %+v, want the card's scheme corp, nothing missing", info)
	}
	for _, ex := range m.Capture("a") {
		if strings.Contains(ex.Request+ex.Response+ex.Err+ex.URL, "cc-secret") {
			t.Fatalf("the client secret is in the capture: %+v", ex)
		}
	}
}

// A card whose token endpoint is on another origin: the client secret is
// not sent there unless allowed_hosts names it, and the row says so.
func TestCardTokenURLOnAnotherOriginGetsNoSecret(t *testing.T) {
	p := oidctest.Start(t, oidctest.Options{})
	p.AddServiceClient("a2atop-watch", "cc-secret-other")
	a := sdktest.Start(t, sdktest.JSONRPC, false, p.Guard().Wrap)
	a.Stop()
	oauthCard(a, "corp", a2a.ClientCredentialsOAuthFlow{TokenURL: p.TokenURL()})
	a.Start()
	o := fast("a", a.URL())
	o.Auth = AuthOptions{ClientID: "a2atop-watch", ClientSecret: Secret{Value: "cc-secret-other"}}
	_, c := runManager(t, []AgentOptions{o}, Options{})
	c.waitFor(t, "the row says why", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return h != nil && h.State == model.HealthUnauthorized && strings.Contains(h.Err, "another origin than the agent's") &&
			strings.Contains(h.Err, hostOf(t, p.Issuer))
	})
	if n := p.TokenRequests(); n != 0 {
		t.Errorf("the token endpoint on another origin got %d requests (secrets %v)", n, p.SecretsSeen())
	}
}

func lastInfo(evs []model.Event, agent string) *model.AgentInfo {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Agent == agent && evs[i].Kind == model.EventAgent {
			return evs[i].Info
		}
	}
	return nil
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A card whose interface is on another origin than the agent's: the OAuth
// token a2atop fetched goes there only when allowed_hosts names it.
func TestOAuthTokenNotSentToAnInterfaceElsewhere(t *testing.T) {
	for _, allow := range []bool{false, true} {
		t.Run(map[bool]string{false: "not-named", true: "named"}[allow], func(t *testing.T) {
			p := oidctest.Start(t, oidctest.Options{})
			p.AddServiceClient("a2atop-watch", "cc-secret-iface")
			guard := p.Guard()
			other := sdktest.Start(t, sdktest.JSONRPC, false, guard.Wrap) // serves the interface
			a := sdktest.Start(t, sdktest.JSONRPC, false, nil)            // serves the card
			a.Stop()
			a.Card.SupportedInterfaces[0].URL = other.URL() + "/invoke"
			a.Start()
			o := fast("a", a.URL())
			o.Auth = AuthOptions{Type: AuthClientCredentials, ClientID: "a2atop-watch",
				ClientSecret: Secret{Value: "cc-secret-iface"}, TokenURL: p.TokenURL()}
			if allow {
				o.AllowedHosts = []string{other.Addr}
			}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			if !allow {
				c.waitFor(t, "withheld, in words", 5*time.Second, func(evs []model.Event) bool {
					h := lastHealth(evs, "a")
					return h != nil && strings.Contains(h.Err, "our credentials were not sent")
				})
				if accepted, _ := guard.Counts(); accepted != 0 {
					t.Fatalf("the interface on another origin accepted %d calls: it got the token", accepted)
				}
				return
			}
			c.waitFor(t, "reached with the token", 5*time.Second, func(evs []model.Event) bool {
				h := lastHealth(evs, "a")
				return h != nil && h.State.Up()
			})
		})
	}
}
