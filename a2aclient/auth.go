package a2aclient

import (
	"context"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
)

// authInterceptor adds the agent's secret headers to a call, but only when
// the interface the call goes to is on the configured URL's origin or in
// AllowedHosts: a card that points elsewhere does not get our token. The
// SDK's own AuthInterceptor acts only with a session id and the card's
// security requirements, hence this one. It also makes sure every call
// says its A2A-Version.
type authInterceptor struct {
	sdk.PassthroughInterceptor
	c *conn
}

// Before implements sdk.CallInterceptor.
func (a *authInterceptor) Before(ctx context.Context, req *sdk.Request) (context.Context, any, error) {
	if _, ok := req.ServiceParams[a2a.SvcParamVersion]; !ok && len(req.ServiceParams.Get(a2a.SvcParamVersion)) == 0 {
		// The SDK always sets it; keep the guarantee if that ever changes.
		req.ServiceParams[a2a.SvcParamVersion] = []string{string(a2a.Version)}
	}
	if len(a.c.opts.Headers) == 0 || !a.c.allowed(hostPort(req.BaseURL)) {
		return ctx, nil, nil
	}
	for _, h := range a.c.opts.Headers {
		req.ServiceParams.Append(h.Name, h.Value)
	}
	return ctx, nil, nil
}
