package oidctest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// storage is the provider's in-memory state, adapted from the zitadel
// example storage: clients, access tokens, refresh tokens and device
// authorizations; the lifetimes are the test's.
//
// Refresh tokens are rotated on every use and guarded against reuse as
// the OAuth 2.0 Security Best Current Practice (RFC 9700 §4.14.2) asks
// of a provider that rotates them, and as hosted providers do: a refresh
// token presented again after it was used up is refused, and the token
// that replaced it (every live token of the same sign-in) is revoked, for
// the provider cannot tell the legitimate client from a thief. Two
// clients sharing one sign-in that refresh with the same token therefore
// lose the sign-in, both of them.
type storage struct {
	mu        sync.Mutex
	clients   map[string]*client
	tokens    map[string]*token
	refresh   map[string]*refreshToken
	used      map[string]string       // used-up refresh token -> its sign-in (grant)
	devices   map[string]*deviceEntry // device code ->
	userCodes map[string]string       // user code -> device code
	key       signingKey
	accessTTL time.Duration
	refreshed int // refresh grants answered with new tokens
	reused    int // used-up refresh tokens presented again
}

type token struct {
	id, clientID, subject, refreshID string
	audience, scopes                 []string
	expiry                           time.Time
}

type refreshToken struct {
	id, clientID, subject, accessID string
	grant                           string // the sign-in it descends from
	audience, scopes, amr           []string
	authTime, expiry                time.Time
}

type deviceEntry struct {
	state *op.DeviceAuthorizationState
}

func newStorage(accessTTL time.Duration) *storage {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return &storage{
		clients: map[string]*client{}, tokens: map[string]*token{}, refresh: map[string]*refreshToken{}, used: map[string]string{},
		devices: map[string]*deviceEntry{}, userCodes: map[string]string{},
		key:       signingKey{id: "op-key-1", key: k},
		accessTTL: accessTTL,
	}
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%x", b)
}

// Signing keys.

type signingKey struct {
	id  string
	key *rsa.PrivateKey
}

func (s *signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (s *signingKey) Key() any                                    { return s.key }
func (s *signingKey) ID() string                                  { return s.id }

type publicKey struct{ signingKey }

func (p *publicKey) ID() string                         { return p.id }
func (p *publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (p *publicKey) Use() string                        { return "sig" }
func (p *publicKey) Key() any                           { return &p.key.PublicKey }

func (s *storage) SigningKey(context.Context) (op.SigningKey, error) { return &s.key, nil }
func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}
func (s *storage) KeySet(context.Context) ([]op.Key, error) {
	return []op.Key{&publicKey{s.key}}, nil
}

// The auth code flow is not served: a terminal uses the device flow.

var errNoCodeFlow = errors.New("the authorization code flow is not served by this test provider")

func (s *storage) CreateAuthRequest(context.Context, *oidc.AuthRequest, string) (op.AuthRequest, error) {
	return nil, errNoCodeFlow
}
func (s *storage) AuthRequestByID(context.Context, string) (op.AuthRequest, error) {
	return nil, errNoCodeFlow
}
func (s *storage) AuthRequestByCode(context.Context, string) (op.AuthRequest, error) {
	return nil, errNoCodeFlow
}
func (s *storage) SaveAuthCode(context.Context, string, string) error { return errNoCodeFlow }
func (s *storage) DeleteAuthRequest(context.Context, string) error    { return nil }

// Tokens.

func (s *storage) newAccess(clientID, refreshID, subject string, audience, scopes []string) *token {
	t := &token{id: newID(), clientID: clientID, refreshID: refreshID, subject: subject,
		audience: audience, scopes: scopes, expiry: time.Now().Add(s.accessTTL)}
	s.tokens[t.id] = t
	return t
}

func (s *storage) CreateAccessToken(_ context.Context, req op.TokenRequest) (string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	clientID := ""
	if r, ok := req.(interface{ GetClientID() string }); ok {
		clientID = r.GetClientID()
	}
	t := s.newAccess(clientID, "", req.GetSubject(), req.GetAudience(), req.GetScopes())
	return t.id, t.expiry, nil
}

func (s *storage) CreateAccessAndRefreshTokens(_ context.Context, req op.TokenRequest, current string) (string, string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	clientID, authTime, amr := "", time.Now(), []string(nil)
	switch r := req.(type) {
	case *op.DeviceAuthorizationState:
		clientID, authTime, amr = r.ClientID, r.AuthTime, r.AMR
	case op.RefreshTokenRequest:
		clientID, authTime, amr = r.GetClientID(), r.GetAuthTime(), r.GetAMR()
	}
	grant := newID()
	if current != "" {
		// Two requests with one token may both have passed
		// TokenRequestByRefreshToken; the second to get here finds it
		// used up.
		if s.reuseLocked(current) {
			return "", "", time.Time{}, oidc.ErrInvalidGrant().WithDescription("the refresh token was already used")
		}
		old, ok := s.refresh[current]
		if !ok || time.Now().After(old.expiry) {
			return "", "", time.Time{}, oidc.ErrInvalidGrant().WithDescription("invalid refresh token")
		}
		delete(s.refresh, current) // rotation: a refresh token is used once
		delete(s.tokens, old.accessID)
		s.used[current], grant = old.grant, old.grant
		s.refreshed++
	}
	rt := &refreshToken{id: newID(), clientID: clientID, subject: req.GetSubject(), audience: req.GetAudience(),
		scopes: req.GetScopes(), amr: amr, authTime: authTime, expiry: time.Now().Add(24 * time.Hour), grant: grant}
	at := s.newAccess(clientID, rt.id, req.GetSubject(), req.GetAudience(), req.GetScopes())
	rt.accessID = at.id
	s.refresh[rt.id] = rt
	return at.id, rt.id, at.expiry, nil
}

// reuseLocked reports whether rt was used up already; if so, it revokes
// every live refresh token of rt's sign-in (RFC 9700 §4.14.2).
func (s *storage) reuseLocked(rt string) bool {
	grant, ok := s.used[rt]
	if !ok {
		return false
	}
	s.reused++
	for id, t := range s.refresh {
		if t.grant == grant {
			delete(s.refresh, id)
		}
	}
	return true
}

func (s *storage) TokenRequestByRefreshToken(_ context.Context, rt string) (op.RefreshTokenRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reuseLocked(rt) {
		return nil, op.ErrInvalidRefreshToken
	}
	t, ok := s.refresh[rt]
	if !ok {
		return nil, op.ErrInvalidRefreshToken
	}
	return &refreshRequest{t: *t}, nil
}

func (s *storage) TerminateSession(_ context.Context, userID, clientID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, t := range s.refresh {
		if t.subject == userID && t.clientID == clientID {
			delete(s.refresh, id)
		}
	}
	return nil
}

func (s *storage) RevokeToken(_ context.Context, tokenOrID, _, clientID string) *oidc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tokens, tokenOrID)
	delete(s.refresh, tokenOrID)
	return nil
}

func (s *storage) GetRefreshTokenInfo(_ context.Context, _ string, rt string) (string, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.refresh[rt]
	if !ok {
		return "", "", op.ErrInvalidRefreshToken
	}
	return t.subject, t.id, nil
}

// revokeAllRefresh revokes every refresh token of clientID.
func (s *storage) revokeAllRefresh(clientID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, t := range s.refresh {
		if t.clientID == clientID {
			delete(s.refresh, id)
			n++
		}
	}
	return n
}

type refreshRequest struct{ t refreshToken }

func (r *refreshRequest) GetAMR() []string                 { return r.t.amr }
func (r *refreshRequest) GetAudience() []string            { return r.t.audience }
func (r *refreshRequest) GetAuthTime() time.Time           { return r.t.authTime }
func (r *refreshRequest) GetClientID() string              { return r.t.clientID }
func (r *refreshRequest) GetScopes() []string              { return r.t.scopes }
func (r *refreshRequest) GetSubject() string               { return r.t.subject }
func (r *refreshRequest) SetCurrentScopes(scopes []string) { r.t.scopes = scopes }

// Clients.

func (s *storage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok {
		return nil, errors.New("client not found")
	}
	return c, nil
}

func (s *storage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok || c.secret == "" || c.secret != secret {
		return errors.New("invalid client id or secret")
	}
	return nil
}

func (s *storage) ClientCredentials(_ context.Context, id, secret string) (op.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok || c.secret == "" || c.secret != secret || !c.hasGrant(oidc.GrantTypeClientCredentials) {
		return nil, errors.New("wrong client id or secret")
	}
	return c, nil
}

func (s *storage) ClientCredentialsTokenRequest(_ context.Context, id string, scopes []string) (op.TokenRequest, error) {
	return &oidc.JWTTokenRequest{Subject: id, Audience: []string{id}, Scopes: scopes}, nil
}

// User info: the tests need none beyond the subject.

func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}
func (s *storage) SetUserinfoFromToken(_ context.Context, ui *oidc.UserInfo, _, subject, _ string) error {
	ui.Subject = subject
	return nil
}
func (s *storage) SetIntrospectionFromToken(_ context.Context, in *oidc.IntrospectionResponse, id, subject, clientID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.tokens[id]; ok && time.Now().Before(t.expiry) {
		in.Active, in.Subject, in.ClientID = true, subject, clientID
	}
	return nil
}
func (s *storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}
func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("no JWT profile keys")
}
func (s *storage) ValidateJWTProfileScopes(_ context.Context, _ string, scopes []string) ([]string, error) {
	return scopes, nil
}
func (s *storage) Health(context.Context) error { return nil }

// Device authorization.

func (s *storage) StoreDeviceAuthorization(_ context.Context, clientID, deviceCode, userCode string, expires time.Time, scopes []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.clients[clientID]; !ok {
		return errors.New("client not found")
	}
	if _, dup := s.userCodes[userCode]; dup {
		return op.ErrDuplicateUserCode
	}
	s.devices[deviceCode] = &deviceEntry{state: &op.DeviceAuthorizationState{ClientID: clientID, Scopes: scopes, Expires: expires}}
	s.userCodes[userCode] = deviceCode
	return nil
}

func (s *storage) GetDeviceAuthorizatonState(ctx context.Context, clientID, deviceCode string) (*op.DeviceAuthorizationState, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.devices[deviceCode]
	if !ok || e.state.ClientID != clientID {
		return nil, errors.New("device code not found for client")
	}
	st := *e.state
	return &st, nil
}

// approve marks the device authorization of userCode done for subject.
func (s *storage) approve(userCode, subject string, allow bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.devices[s.userCodes[userCode]]
	if !ok {
		return errors.New("user code not found")
	}
	if !allow {
		e.state.Denied = true
		return nil
	}
	e.state.Subject, e.state.Done, e.state.AuthTime, e.state.AMR = subject, true, time.Now(), []string{"pwd"}
	return nil
}

// pendingCodes are the user codes waiting for approval.
func (s *storage) pendingCodes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for uc, dc := range s.userCodes {
		if e := s.devices[dc]; e != nil && !e.state.Done && !e.state.Denied {
			out = append(out, uc)
		}
	}
	return out
}
