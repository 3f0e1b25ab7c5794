package oidctest

import (
	"slices"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// client is a registered OAuth 2.0 client of the provider.
type client struct {
	id, secret string
	grants     []oidc.GrantType
	appType    op.ApplicationType
	method     oidc.AuthMethod
}

func (c *client) hasGrant(g oidc.GrantType) bool { return slices.Contains(c.grants, g) }

func (c *client) GetID() string                       { return c.id }
func (c *client) RedirectURIs() []string              { return nil }
func (c *client) PostLogoutRedirectURIs() []string    { return nil }
func (c *client) ApplicationType() op.ApplicationType { return c.appType }
func (c *client) AuthMethod() oidc.AuthMethod         { return c.method }
func (c *client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *client) GrantTypes() []oidc.GrantType { return c.grants }
func (c *client) LoginURL(string) string       { return "" }
func (c *client) AccessTokenType() op.AccessTokenType {
	return op.AccessTokenTypeJWT // the agents check them against the JWKS
}
func (c *client) IDTokenLifetime() time.Duration { return time.Hour }
func (c *client) DevMode() bool                  { return true }
func (c *client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *client) IsScopeAllowed(string) bool           { return true }
func (c *client) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c *client) ClockSkew() time.Duration             { return 0 }
