package a2aclient

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// originGuard keeps the agent's secret headers off every request to a
// host the config did not name (see conn.allowed). authInterceptor adds
// them only for interfaces on such hosts; this guard catches the requests
// that reach another host anyway, such as a redirect net/http follows
// with the headers it copies. It sits below every layer that changes or
// sends a request, so it sees each request as it leaves.
type originGuard struct {
	next    http.RoundTripper
	allowed func(hostPort string) bool
	secret  []string // header names carrying secrets
}

func (c *conn) originGuardLayer(next http.RoundTripper) http.RoundTripper {
	names := make([]string, 0, len(c.opts.Headers))
	for _, h := range c.opts.Headers {
		names = append(names, h.Name)
	}
	return originGuard{next: next, allowed: c.allowed, secret: names}
}

// RoundTrip implements http.RoundTripper.
func (t originGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.secret) == 0 || t.allowed(hostPort(req.URL.Scheme+"://"+req.URL.Host)) {
		return t.next.RoundTrip(req)
	}
	var r2 *http.Request
	for _, n := range t.secret {
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

// allowed reports whether secrets may go to hp, a normalized host:port
// (see hostPort): the configured URL's origin or one of AllowedHosts.
func (c *conn) allowed(hp string) bool {
	if hp == c.origin {
		return true
	}
	host, _, _ := net.SplitHostPort(hp)
	for _, a := range c.opts.AllowedHosts {
		if hostPort(a) == hp || strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

// hostPort returns host:port of a URL (or of a bare "host:port" gRPC
// target), with the scheme's default port filled in, lower-cased.
func hostPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		if h, p, err := net.SplitHostPort(raw); err == nil {
			return strings.ToLower(net.JoinHostPort(h, p))
		}
		return strings.ToLower(raw)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	return strings.ToLower(net.JoinHostPort(host, port))
}
