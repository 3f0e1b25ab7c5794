package a2aclient

import (
	"net"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient/credential"
)

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
