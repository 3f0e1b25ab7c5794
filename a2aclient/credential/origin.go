package credential

import (
	"net"
	"net/url"
	"strings"
)

// Origin is where a request goes, as secrets are judged: the scheme, the
// host and the port (the scheme's default filled in), lower-cased. Two
// URLs are the same origin only when all three match: https://h:443 and
// http://h:443 are two origins, and a secret configured for the first
// never goes to the second in clear text.
type Origin struct{ Scheme, HostPort string }

// String reads "https://host:port".
func (o Origin) String() string { return o.Scheme + "://" + o.HostPort }

// OriginOf returns the origin of an absolute URL; an unparsable URL or
// one without a host is the zero origin, which nothing allows.
func OriginOf(raw string) Origin {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return Origin{}
	}
	return URLOrigin(u)
}

// URLOrigin is the origin of u.
func URLOrigin(u *url.URL) Origin {
	scheme := strings.ToLower(u.Scheme)
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[scheme]
	}
	return Origin{Scheme: scheme, HostPort: strings.ToLower(net.JoinHostPort(host, port))}
}

// AllowedHostPort normalizes an AllowedHosts entry ("host:port").
func AllowedHostPort(a string) string {
	if h, p, err := net.SplitHostPort(a); err == nil {
		return strings.ToLower(net.JoinHostPort(h, p))
	}
	return strings.ToLower(a)
}
