package oidctest

import (
	"crypto/sha256"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// Options configure a Provider. The zero value serves tokens that live a
// minute.
type Options struct {
	// AccessTokenLifetime is how long an access token lives; 0 = 1m.
	AccessTokenLifetime time.Duration
	// PollInterval is the device flow's polling interval (whole
	// seconds; 0 = 1s).
	PollInterval time.Duration
	// RefreshDelay holds every refresh grant this long before the
	// provider looks at it, as a provider across a slow network does:
	// it keeps open the moment in which two clients may refresh with
	// one token. 0 answers at once.
	RefreshDelay time.Duration
}

// Provider is a running OpenID Provider on a loopback port.
type Provider struct {
	// Issuer is the provider's URL (http://127.0.0.1:PORT).
	Issuer string
	st     *storage
	srv    *http.Server
	delay  time.Duration // Options.RefreshDelay
	// tokenRequests counts the requests to the token endpoint,
	// refreshRequests those of them for the refresh token grant, and
	// secretsSeen the client secrets it was sent (Basic or form).
	tokenRequests   atomic.Int64
	refreshRequests atomic.Int64
	mu              sync.Mutex
	secretsSeen     []string
}

// Start runs a provider until the test ends.
func Start(t testing.TB, o Options) *Provider {
	t.Helper()
	if o.AccessTokenLifetime <= 0 {
		o.AccessTokenLifetime = time.Minute
	}
	if o.PollInterval < time.Second {
		o.PollInterval = time.Second
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Provider{Issuer: "http://" + l.Addr().String(), st: newStorage(o.AccessTokenLifetime), delay: o.RefreshDelay}
	cfg := &op.Config{
		CryptoKey:             sha256.Sum256([]byte("a2atop oidctest")),
		CryptoKeyId:           "crypto-1",
		AuthMethodPost:        true,
		GrantTypeRefreshToken: true,
		SupportedUILocales:    []language.Tag{language.English},
		DeviceAuthorization: op.DeviceAuthorizationConfig{
			Lifetime: 5 * time.Minute, PollInterval: o.PollInterval, UserFormPath: "/device", UserCode: op.UserCodeBase20,
		},
	}
	provider, err := op.NewProvider(cfg, p.st, op.StaticIssuer(p.Issuer), op.WithAllowInsecure(),
		op.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /device/approve", p.approveHandler)
	mux.Handle("/", p.count(provider))
	p.srv = &http.Server{Handler: mux}
	go p.srv.Serve(l)
	t.Cleanup(func() { p.srv.Close() })
	return p
}

// count records the token endpoint's requests and the secrets they
// carry, and holds the refresh grants for Options.RefreshDelay.
func (p *Provider) count(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == p.TokenPath() {
			p.tokenRequests.Add(1)
			_ = r.ParseForm() // kept in r.PostForm for the provider's own parsing
			_, sec, ok := r.BasicAuth()
			if !ok {
				sec = r.PostForm.Get("client_secret")
			}
			if sec != "" {
				p.mu.Lock()
				p.secretsSeen = append(p.secretsSeen, sec)
				p.mu.Unlock()
			}
			if r.PostForm.Get("grant_type") == "refresh_token" {
				p.refreshRequests.Add(1)
				if !p.hold(r) {
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// hold waits Options.RefreshDelay, or until the client gave up.
func (p *Provider) hold(r *http.Request) bool {
	if p.delay <= 0 {
		return true
	}
	t := time.NewTimer(p.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// TokenPath and DeviceAuthPath are the paths of the provider's endpoints.
func (p *Provider) TokenPath() string      { return "/oauth/token" }
func (p *Provider) DeviceAuthPath() string { return "/device_authorization" }

// TokenURL is the token endpoint.
func (p *Provider) TokenURL() string { return p.Issuer + p.TokenPath() }

// DeviceAuthURL is the device authorization endpoint.
func (p *Provider) DeviceAuthURL() string { return p.Issuer + p.DeviceAuthPath() }

// JWKSURL is the provider's key set.
func (p *Provider) JWKSURL() string { return p.Issuer + "/keys" }

// AddServiceClient registers a confidential client for the client
// credentials grant.
func (p *Provider) AddServiceClient(id, secret string) {
	p.st.mu.Lock()
	defer p.st.mu.Unlock()
	p.st.clients[id] = &client{id: id, secret: secret, appType: op.ApplicationTypeWeb, method: oidc.AuthMethodBasic,
		grants: []oidc.GrantType{oidc.GrantTypeClientCredentials}}
}

// AddDeviceClient registers a public client (no secret, as a terminal
// program is) for the device grant with refresh tokens.
func (p *Provider) AddDeviceClient(id string) {
	p.st.mu.Lock()
	defer p.st.mu.Unlock()
	p.st.clients[id] = &client{id: id, appType: op.ApplicationTypeNative, method: oidc.AuthMethodNone,
		grants: []oidc.GrantType{oidc.GrantTypeDeviceCode, oidc.GrantTypeRefreshToken}}
}

// Approve approves the pending device sign-in of userCode as subject, as
// the person on the provider's page would.
func (p *Provider) Approve(userCode, subject string) error {
	return p.st.approve(userCode, subject, true)
}

// Pending returns the user codes waiting for a person.
func (p *Provider) Pending() []string { return p.st.pendingCodes() }

// RevokeRefreshTokens revokes every refresh token of clientID and says
// how many there were.
func (p *Provider) RevokeRefreshTokens(clientID string) int { return p.st.revokeAllRefresh(clientID) }

// TokenRequests is how many requests reached the token endpoint.
func (p *Provider) TokenRequests() int64 { return p.tokenRequests.Load() }

// RefreshRequests is how many of them were for the refresh token grant.
func (p *Provider) RefreshRequests() int64 { return p.refreshRequests.Load() }

// Refreshes is how many refresh grants were answered with new tokens.
func (p *Provider) Refreshes() int {
	p.st.mu.Lock()
	defer p.st.mu.Unlock()
	return p.st.refreshed
}

// ReusedRefreshTokens is how many times a used-up refresh token was
// presented again (each revoked the sign-in it belonged to).
func (p *Provider) ReusedRefreshTokens() int {
	p.st.mu.Lock()
	defer p.st.mu.Unlock()
	return p.st.reused
}

// SecretsSeen are the client secrets the token endpoint was sent.
func (p *Provider) SecretsSeen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.secretsSeen...)
}

// approveHandler is the consent page's stand-in: POST user_code and
// subject (and action=deny to refuse).
func (p *Provider) approveHandler(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := p.st.approve(r.PostForm.Get("user_code"), r.PostForm.Get("subject"), r.PostForm.Get("action") != "deny"); err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Write([]byte("device authorization recorded; return to the device\n"))
}
