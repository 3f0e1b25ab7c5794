package a2aclient

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"net"
	"net/http"
	"net/url"
	"strings"
)

// origin is where a request goes, as secrets are judged: the scheme, the
// host and the port (the scheme's default filled in), lower-cased. Two
// URLs are the same origin only when all three match: https://h:443 and
// http://h:443 are two origins, and a secret configured for the first
// never goes to the second in clear text.
type origin struct{ scheme, hostPort string }

// String reads "https://host:port".
func (o origin) String() string { return o.scheme + "://" + o.hostPort }

// originOf returns the origin of an absolute URL; an unparsable URL or
// one without a host is the zero origin, which nothing allows.
func originOf(raw string) origin {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return origin{}
	}
	return urlOrigin(u)
}

// urlOrigin is the origin of u.
func urlOrigin(u *url.URL) origin {
	scheme := strings.ToLower(u.Scheme)
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[scheme]
	}
	return origin{scheme: scheme, hostPort: strings.ToLower(net.JoinHostPort(host, port))}
}

// originGuard keeps the agent's secret headers off every request whose
// origin the config did not name (see conn.allowed). The credential
// layer adds them only for such origins; this guard catches the requests
// that reach another origin anyway, such as a redirect net/http follows
// with the headers it copies, or a secret header some layer above set. It
// sits below every layer that changes or sends a request, so it sees each
// request as it leaves.
type originGuard struct {
	next    http.RoundTripper
	allowed func(origin) bool
	secret  func() []string // header names carrying secrets (a card may name one, so asked each time)
}

func (c *conn) originGuardLayer(next http.RoundTripper) http.RoundTripper {
	return originGuard{next: next, allowed: c.allowed, secret: c.secretNames}
}

// RoundTrip implements http.RoundTripper.
func (t originGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.WithContext(withCertOrigin(req.Context(), urlOrigin(req.URL))) // for the client certificate (presentCert)
	if t.allowed(urlOrigin(req.URL)) {
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
func (c *conn) allowed(o origin) bool {
	if o.scheme != "http" && o.scheme != "https" {
		return false
	}
	if o == c.origin {
		return true
	}
	if o.scheme == "http" && c.origin.scheme != "http" {
		return false // never downgrade
	}
	host, _, _ := net.SplitHostPort(o.hostPort)
	for _, a := range c.opts.AllowedHosts {
		if allowedHostPort(a) == o.hostPort || strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

// allowedHostPort normalizes an AllowedHosts entry ("host:port").
func allowedHostPort(a string) string {
	if h, p, err := net.SplitHostPort(a); err == nil {
		return strings.ToLower(net.JoinHostPort(h, p))
	}
	return strings.ToLower(a)
}

// interfaceOrigin is the origin the calls to iface are judged as: its
// URL's, or for gRPC the endpoint it dials (zero when it cannot be dialled).
func (c *conn) interfaceOrigin(iface *a2a.AgentInterface) origin {
	if iface.ProtocolBinding != a2a.TransportProtocolGRPC {
		return originOf(iface.URL)
	}
	ep, err := parseGRPCTarget(iface.URL, c.origin.scheme == "https")
	if err != nil {
		return origin{}
	}
	return ep.origin()
}
