package oidctest

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/zitadel/oidc/v3/pkg/client/rp"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Guard is the resource server of an A2A test agent: it accepts a request
// only with "Authorization: Bearer" and a JWT access token the provider
// signed (checked against the provider's JWKS, fetched and cached by
// zitadel's remote key set) that has not expired, and answers 401
// otherwise. It counts what it refused, for the tests that must see no
// 401 on screen and none on the wire.
type Guard struct {
	v        *op.AccessTokenVerifier
	mu       sync.Mutex
	refused  int
	accepted int
	subjects map[string]int
}

// Guard returns a resource-server guard for the provider's tokens.
func (p *Provider) Guard() *Guard {
	ks := rp.NewRemoteKeySet(http.DefaultClient, p.JWKSURL())
	return &Guard{v: op.NewAccessTokenVerifier(p.Issuer, ks), subjects: map[string]int{}}
}

// Check verifies an Authorization header value and returns the token's
// subject.
func (g *Guard) Check(ctx context.Context, authorization string) (string, bool) {
	tok, ok := strings.CutPrefix(authorization, "Bearer ")
	if !ok || tok == "" {
		return "", false
	}
	claims, err := op.VerifyAccessToken[*oidc.AccessTokenClaims](ctx, tok, g.v)
	if err != nil {
		return "", false
	}
	return claims.Subject, true
}

// Wrap guards next: every request needs a valid token, except the agent
// card (public, as cards are).
func (g *Guard) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			next.ServeHTTP(w, r)
			return
		}
		sub, ok := g.Check(r.Context(), r.Header.Get("Authorization"))
		g.mu.Lock()
		if ok {
			g.accepted++
			g.subjects[sub]++
		} else {
			g.refused++
		}
		g.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Counts returns how many requests the guard accepted and refused.
func (g *Guard) Counts() (accepted, refused int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.accepted, g.refused
}
