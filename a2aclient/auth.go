package a2aclient

import (
	"context"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"

	"a2atop/a2aclient/credential"
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
	if !t.c.secretsConfigured() || !t.c.allowed(credential.URLOrigin(req.URL)) {
		return t.next.RoundTrip(req)
	}
	hs, err := t.c.secretHeaders(req.Context())
	if err != nil {
		if !isCardFetch(req.Context()) {
			return nil, err
		}
		// The card is read before the credential can be had (its token
		// endpoint may be named by the card itself): ask for it with the
		// static headers and what the config fully names (cardFetchHeaders).
		if hs, err = t.c.cardFetchHeaders(req); err != nil {
			return nil, err
		}
	}
	r2 := req.Clone(req.Context())
	for _, h := range hs {
		r2.Header.Set(h.Name, h.Value)
	}
	return t.next.RoundTrip(r2)
}

type cardFetchKey struct{}

// cardFetch marks ctx as the card fetch's.
func cardFetch(ctx context.Context) context.Context {
	return context.WithValue(ctx, cardFetchKey{}, true)
}

func isCardFetch(ctx context.Context) bool {
	v, _ := ctx.Value(cardFetchKey{}).(bool)
	return v
}
