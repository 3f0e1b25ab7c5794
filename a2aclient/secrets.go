package a2aclient

import (
	"context"
	"net/http"

	"a2atop/a2aclient/credential"
)

// The connection's side of its credential (package credential): the
// secret headers of a call, static and the credential's, each taught to
// the redactor, and the names of the headers that carry secrets.

// secretsConfigured reports whether the agent has any secret to send.
func (c *conn) secretsConfigured() bool { return len(c.opts.Headers) > 0 || c.cred != nil }

// secretHeaders returns the secret headers for a call now: the static
// ones and the credential's. Every value is taught to the redactor, so
// that an agent echoing a token back never shows it.
func (c *conn) secretHeaders(ctx context.Context) ([]Header, error) {
	if c.cred == nil {
		return c.opts.Headers, nil
	}
	hs, err := c.cred.Headers(ctx)
	if err != nil {
		return nil, err
	}
	for _, h := range hs {
		c.red.Learn(h.Value)
	}
	return append(append([]Header(nil), c.opts.Headers...), hs...), nil
}

// secretNames are the names of the headers that carry secrets.
func (c *conn) secretNames() []string {
	names := make([]string, 0, len(c.opts.Headers)+1)
	for _, h := range c.opts.Headers {
		names = append(names, h.Name)
	}
	if c.cred != nil {
		names = append(names, c.cred.Names()...)
	}
	return names
}

// cardFetchHeaders are the secret headers of a card fetch made while the
// credential waits for the card: the static headers, and the credential
// the config fully names (a token, an API key) when req goes to the
// agent's own origin: not to allowed_hosts, nor to where a redirect
// leads, before the card has said anything.
func (c *conn) cardFetchHeaders(req *http.Request) ([]Header, error) {
	hs := c.opts.Headers
	if credential.URLOrigin(req.URL) != c.origin {
		return hs, nil
	}
	early, err := c.auth.CardFetchHeaders(req.Context())
	if err != nil {
		return nil, err
	}
	for _, h := range early {
		c.red.Learn(h.Value)
	}
	return append(append([]Header(nil), hs...), early...), nil
}
