package a2aclient

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"net"
	"net/http"
	"strings"

	"a2atop/a2aclient/credential"
)

// originGuard keeps the agent's secret headers off every request whose
// origin the config did not name (see conn.allowed). The credential
// layer adds them only for such origins; this guard catches the requests
// that reach another origin anyway, such as a redirect net/http follows
// with the headers it copies, or a secret header some layer above set. It
// sits below every layer that changes or sends a request, so it sees each
// request as it leaves.
type originGuard struct {
	next    http.RoundTripper
	allowed func(credential.Origin) bool
	secret  func() []string // header names carrying secrets (a card may name one, so asked each time)
}

func (c *conn) originGuardLayer(next http.RoundTripper) http.RoundTripper {
	return originGuard{next: next, allowed: c.allowed, secret: c.secretNames}
}

// RoundTrip implements http.RoundTripper.
func (t originGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.WithContext(credential.WithCertOrigin(req.Context(), credential.URLOrigin(req.URL))) // for the client certificate (presentCert)
	if t.allowed(credential.URLOrigin(req.URL)) {
		return t.next.RoundTrip(req)
	}
	var r2 *http.Request
	for _, n := range t.secret() {
		if req.Header.Get(n) == "" {
			continue
		}
		if r2 == nil {
			r2 = req.Clone(req.Context())
		}
		r2.Header.Del(n)
	}
	if r2 == nil {
		return t.next.RoundTrip(req)
	}
	return t.next.RoundTrip(r2)
}

// allowed reports whether secrets may go to o: the configured URL's
// origin (scheme, host and port), or a host:port of AllowedHosts over
// https, or over http when the configured URL is http too. Nothing that
// was configured for https is sent over http.
func (c *conn) allowed(o credential.Origin) bool {
	if o.Scheme != "http" && o.Scheme != "https" {
		return false
	}
	if o == c.origin {
		return true
	}
	if o.Scheme == "http" && c.origin.Scheme != "http" {
		return false // never downgrade
	}
	host, _, _ := net.SplitHostPort(o.HostPort)
	for _, a := range c.opts.AllowedHosts {
		if credential.AllowedHostPort(a) == o.HostPort || strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

// interfaceOrigin is the origin the calls to iface are judged as: its
// URL's, or for gRPC the endpoint it dials (zero when it cannot be dialled).
func (c *conn) interfaceOrigin(iface *a2a.AgentInterface) credential.Origin {
	if iface.ProtocolBinding != a2a.TransportProtocolGRPC {
		return credential.OriginOf(iface.URL)
	}
	ep, err := parseGRPCTarget(iface.URL, c.origin.Scheme == "https")
	if err != nil {
		return credential.Origin{}
	}
	return ep.origin()
}
