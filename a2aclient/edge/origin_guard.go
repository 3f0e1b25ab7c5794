package edge

import (
	"net/http"

	"a2atop/a2aclient/credential"
)

// originGuard keeps the agent's secret headers off every request whose
// origin the config did not name (the connection's origin rule). The credential
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

// OriginGuard is the guard above next: allowed is the agent's origin
// rule, secret names the headers that carry its secrets.
func OriginGuard(next http.RoundTripper, allowed func(credential.Origin) bool, secret func() []string) http.RoundTripper {
	return originGuard{next: next, allowed: allowed, secret: secret}
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
