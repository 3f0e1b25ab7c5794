package credential

import (
	"context"
	"crypto/tls"
	"net/http"
)

// certOriginKey marks a request's context with the origin its connection
// goes to (WithCertOrigin), which the TLS handshake's certificate request
// then sees.
type certOriginKey struct{}

// WithCertOrigin marks ctx: a connection dialled for it goes to o.
func WithCertOrigin(ctx context.Context, o Origin) context.Context {
	return context.WithValue(ctx, certOriginKey{}, o)
}

// certOriginLayer marks each request with its URL's origin, for the
// client certificate's choice (presentCert).
type certOriginLayer struct{ next http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (t certOriginLayer) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.next.RoundTrip(req.WithContext(WithCertOrigin(req.Context(), URLOrigin(req.URL))))
}

// TLSFor is the TLS configuration of a connection dialled to o outside
// net/http (gRPC), which presents the client certificate as presentCert
// decides for o.
func (c *Certificate) TLSFor(o Origin) *tls.Config {
	cfg := c.tls.Clone()
	cfg.GetClientCertificate = func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) { return c.presentCert(cri, o) }
	return cfg
}

// certAllowed reports whether the client certificate may be presented
// to o: over https, to the agent's origin or allowed_hosts (allowed),
// or to an endpoint the config names (token_url,
// device_authorization_url, jwks_url). A server elsewhere that asks for
// a certificate (where a redirect or a card's interface leads) gets none.
func (c *Certificate) certAllowed(o Origin) bool {
	if o.Scheme != "https" {
		return false
	}
	if c.allowed(o) {
		return true
	}
	a := c.auth
	for _, u := range []string{a.TokenURL, a.DeviceAuthURL, a.CardKeys.JWKSURL} {
		if u != "" && OriginOf(u) == o {
			return true
		}
	}
	return false
}
