package natsembed

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/url"

	"github.com/nats-io/nats-server/v2/server"
)

// RouteUser is the user a hub presents to its peers when the routes
// carry a password.
const RouteUser = "a2atop-hub"

// routeTLSTimeout is the seconds a route's TLS handshake may take (the
// server's default, 2 s, is short for a loaded machine).
const routeTLSTimeout = 5

// Routes secure the routes between the hubs. The zero value is plain
// TCP without authentication.
type Routes struct {
	// Cert is this hub's certificate, presented both ways: to the peers
	// it dials (TLS client) and to the peers that dial it (TLS server);
	// it must be valid for both uses and name the address its peers dial.
	// CAs verify the peers' certificates, both ways. Both set: every
	// route is TLS and a peer without a certificate of CAs is refused.
	Cert *tls.Certificate
	CAs  *x509.CertPool
	// Password, when set, is what every route must present (as
	// RouteUser); it is never logged.
	Password string
}

// TLS reports whether the routes are TLS with mutual verification.
func (r Routes) TLS() bool { return r.Cert != nil && r.CAs != nil }

// apply sets the routes' TLS and authorization in the server's options.
func (r Routes) apply(opts *server.Options) {
	if r.TLS() {
		opts.Cluster.TLSConfig = &tls.Config{
			Certificates: []tls.Certificate{*r.Cert}, MinVersion: tls.VersionTLS12,
			RootCAs: r.CAs, ClientCAs: r.CAs, ClientAuth: tls.RequireAndVerifyClientCert,
		}
		opts.Cluster.TLSTimeout = routeTLSTimeout
	}
	if r.Password == "" {
		return
	}
	opts.Cluster.Username, opts.Cluster.Password = RouteUser, r.Password
	for _, u := range opts.Routes {
		u.User = url.UserPassword(RouteUser, r.Password)
	}
}

// loopbackHost reports whether host is a loopback address or localhost.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
