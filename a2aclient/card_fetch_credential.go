package a2aclient

import (
	"context"
	"net/http"
)

// cardFetchHeaders are the secret headers of a card fetch made while the
// credential waits for the card: the static headers, and the credential
// the config fully names (a token, an API key) when req goes to the
// agent's own origin: not to allowed_hosts, nor to where a redirect
// leads, before the card has said anything.
func (c *conn) cardFetchHeaders(req *http.Request) ([]Header, error) {
	hs := c.opts.Headers
	if urlOrigin(req.URL) != c.origin {
		return hs, nil
	}
	early, err := c.auth.cardFetchHeaders(req.Context())
	if err != nil {
		return nil, err
	}
	for _, h := range early {
		c.red.learn(h.Value)
	}
	return append(append([]Header(nil), hs...), early...), nil
}

// earlyCredential is the credential the config names without a type,
// before the card's requirements refine the choice: the token as a
// bearer token, or as an API key in api_key_header. nil for anything
// else (a client id, a command: what to do with them needs the card).
func (a *authChooser) earlyCredential() credential {
	o := a.o
	if o.Type != AuthAuto || o.Token.IsZero() || o.ClientID != "" || len(o.Command) > 0 {
		return nil
	}
	if o.APIKeyHeader != "" {
		return secretToken(o.Token, o.APIKeyHeader, "")
	}
	return secretToken(o.Token, "Authorization", "Bearer ")
}

// cardFetchHeaders are the early credential's headers for a card fetch
// while the credential waits for the card; none when there is none.
func (a *authChooser) cardFetchHeaders(ctx context.Context) ([]Header, error) {
	if a == nil || a.early == nil {
		return nil, nil
	}
	return a.early.headers(ctx)
}
