package a2aclient

import (
	"context"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
)

// versionInterceptor makes sure every call says its A2A-Version (the SDK
// always sets it; this keeps the guarantee if that ever changes). Secrets
// are not added here, where only the card's text says where a call goes:
// the credential layer adds them to each HTTP request whose URL is on an
// allowed origin, and grpcSecrets to each gRPC call whose connection was
// dialled to one.
type versionInterceptor struct {
	sdk.PassthroughInterceptor
}

// Before implements sdk.CallInterceptor.
func (versionInterceptor) Before(ctx context.Context, req *sdk.Request) (context.Context, any, error) {
	if _, ok := req.ServiceParams[a2a.SvcParamVersion]; !ok && len(req.ServiceParams.Get(a2a.SvcParamVersion)) == 0 {
		req.ServiceParams[a2a.SvcParamVersion] = []string{string(a2a.Version)}
	}
	return ctx, nil, nil
}

// credentialLayer adds the agent's secret headers to every request whose
// origin (scheme, host and port of the URL it is sent to, redirects
// included) is allowed; the card fetch goes through it too.
type credentialLayer struct {
	next http.RoundTripper
	c    *conn
}

func (c *conn) credentialLayer(next http.RoundTripper) http.RoundTripper {
	return credentialLayer{next: next, c: c}
}

// RoundTrip implements http.RoundTripper.
func (t credentialLayer) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.c.secretsConfigured() || !t.c.allowed(urlOrigin(req.URL)) {
		return t.next.RoundTrip(req)
	}
	hs, err := t.c.secretHeaders(req.Context())
	if err != nil {
		return nil, err
	}
	r2 := req.Clone(req.Context())
	for _, h := range hs {
		r2.Header.Set(h.Name, h.Value)
	}
	return t.next.RoundTrip(r2)
}

// secretsConfigured reports whether the agent has any secret to send.
func (c *conn) secretsConfigured() bool { return len(c.opts.Headers) > 0 }

// secretHeaders returns the secret headers for a call now.
func (c *conn) secretHeaders(context.Context) ([]Header, error) { return c.opts.Headers, nil }

// secretNames are the names of the headers that carry secrets.
func (c *conn) secretNames() []string {
	names := make([]string, 0, len(c.opts.Headers))
	for _, h := range c.opts.Headers {
		names = append(names, h.Name)
	}
	return names
}
