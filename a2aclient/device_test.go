package a2aclient

import (
	"context"
	"net/http"
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

// approveOnProvider approves userCode on the provider's consent page, as
// the person would in a browser.
func approveOnProvider(t *testing.T, p *oidctest.Provider, userCode string) {
	t.Helper()
	resp, err := http.PostForm(p.Issuer+"/device/approve", url.Values{"user_code": {userCode}, "subject": {"alice"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("approve %s: HTTP %d", userCode, resp.StatusCode)
	}
}

// deviceAgent is an agent behind the provider whose card asks for the
// device flow.
func deviceAgent(t *testing.T, p *oidctest.Provider) (*sdktest.Agent, *oidctest.Guard) {
	t.Helper()
	g := p.Guard()
	a := sdktest.Start(t, sdktest.JSONRPC, false, g.Wrap)
	a.Stop()
	oauthCard(a, "people", a2a.DeviceCodeOAuthFlow{TokenURL: p.TokenURL(), DeviceAuthorizationURL: p.DeviceAuthURL(),
		Scopes: map[string]string{"a2a.read": "read"}})
	a.Start()
	return a, g
}

// The device flow end to end: before signing in the row says so in
// words; the person approves the code on the provider; the agent becomes
// reachable; the refresh token, kept in a 0600 state file, survives a
// restart; once the provider revokes it, the row says so in words.
func TestDeviceSignInSurvivesRestartAndRevocation(t *testing.T) {
	p := oidctest.Start(t, oidctest.Options{AccessTokenLifetime: 2 * time.Second})
	p.AddDeviceClient("a2atop-cli")
	a, _ := deviceAgent(t, p)
	store := filepath.Join(t.TempDir(), "state", "tokens", "a.json")
	o := fast("a", a.URL())
	o.AllowedHosts = []string{hostOf(t, p.Issuer)}
	o.Auth = AuthOptions{Type: AuthDevice, ClientID: "a2atop-cli", RefreshTokenFile: store}
	id := a.CreateInStore(t, a2a.TaskStateInputRequired)

	first, stopFirst := context.WithCancel(t.Context())
	m, c := runManagerCtx(t, first, []AgentOptions{o})
	c.waitFor(t, "not signed in, in words", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return h != nil && h.State == model.HealthUnauthorized && strings.Contains(h.Err, "not signed in: press L to sign in")
	})
	if info := lastInfo(c.snapshot(), "a"); info == nil || !info.SignIn {
		t.Errorf("info = %+v, want SignIn", info)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	dc, err := m.StartLogin(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if dc.UserCode == "" || !strings.HasPrefix(dc.VerificationURI, p.Issuer) {
		t.Fatalf("device code = %+v", dc)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		approveOnProvider(t, p, dc.UserCode)
	}()
	if err := m.AwaitLogin(ctx, "a", dc); err != nil {
		t.Fatal(err)
	}
	c.waitFor(t, "reachable after signing in", 10*time.Second, func(evs []model.Event) bool { return hasTask(evs, "a", id, "") })
	fi, err := os.Stat(store)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the refresh token file: %v, %v; want 0600", fi, err)
	}

	// A restart: a new manager on the same state file, no sign-in.
	stopFirst()
	_, c2 := runManager(t, []AgentOptions{o}, Options{})
	c2.waitFor(t, "reachable after a restart", 10*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return h != nil && h.State.Up()
	})

	// Revoked on the provider: the next refresh fails, in words.
	if n := p.RevokeRefreshTokens("a2atop-cli"); n == 0 {
		t.Fatal("nothing to revoke")
	}
	c2.waitFor(t, "revocation said in words", 10*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return h != nil && h.State == model.HealthUnauthorized && strings.Contains(h.Err, "the refresh token was revoked") &&
			strings.Contains(h.Err, "press L to sign in again")
	})
}

// runManagerCtx is runManager under ctx, which the test may end early.
func runManagerCtx(t *testing.T, ctx context.Context, agents []AgentOptions) (*Manager, *collector) {
	t.Helper()
	m := New(agents, Options{})
	c := &collector{}
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	go func() {
		for {
			select {
			case ev := <-m.Events():
				c.mu.Lock()
				c.events = append(c.events, ev)
				c.mu.Unlock()
			case <-done:
				return
			}
		}
	}()
	t.Cleanup(func() { <-done })
	return m, c
}
