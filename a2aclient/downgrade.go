package a2aclient

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient/credential"
)

// Nothing goes in plain http to an agent configured https: not a
// credential, and not a request either (a ListTasks body says which
// tasks a2atop watches; a reply carries a human's words). Two places
// hold it:
//   - secureInterfaces drops the card's interfaces in plain http (an
//     http:// URL, gRPC without TLS) before one is chosen; with none
//     left the agent is refused in words;
//   - the noDowngrade layer, at the bottom of the HTTP edge, refuses
//     every request whose URL is not https, whatever led there: a
//     redirect of the card or of a call, a card_path in http.

// errPlainHTTP is wrapped by every refusal to go in plain http to an
// agent configured https.
var errPlainHTTP = errors.New("a2atop sends nothing in clear text to an agent configured https")

// secureInterfaces is ifaces without those in plain http when the
// configured URL is https, keeping their order; an error names them
// when none is left. Interfaces whose endpoint cannot be told (a gRPC
// target a2atop does not dial) are kept: dialling refuses them in words.
func (c *conn) secureInterfaces(ifaces []*a2a.AgentInterface) ([]*a2a.AgentInterface, error) {
	if c.origin.Scheme != "https" {
		return ifaces, nil
	}
	var out []*a2a.AgentInterface
	var plain []string
	for _, iface := range ifaces {
		if c.interfaceOrigin(iface).Scheme == "http" {
			plain = append(plain, plainWords(iface))
			continue
		}
		out = append(out, iface)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the card offers only interfaces in plain http (%s) and the configured url is https: %w "+
			"(ask the agent's owner to list an https interface)", strings.Join(plain, ", "), errPlainHTTP)
	}
	return out, nil
}

// plainWords names an interface in plain http: "JSONRPC http://h/p",
// "GRPC without TLS http://h:p".
func plainWords(iface *a2a.AgentInterface) string {
	if iface.ProtocolBinding == a2a.TransportProtocolGRPC {
		return "GRPC without TLS " + credential.ShownURL(iface.URL)
	}
	return string(iface.ProtocolBinding) + " " + credential.ShownURL(iface.URL)
}

// refusedPlain begins the words of noDowngrade's refusal.
const refusedPlain = "refused to send to "

// noDowngrade refuses every request that is not https. It is in the
// edge of agents configured https only.
type noDowngrade struct{ next http.RoundTripper }

func (c *conn) noDowngradeLayer(next http.RoundTripper) http.RoundTripper {
	if c.origin.Scheme != "https" {
		return next
	}
	return noDowngrade{next: next}
}

// RoundTrip implements http.RoundTripper.
func (t noDowngrade) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.EqualFold(req.URL.Scheme, "https") {
		return t.next.RoundTrip(req)
	}
	if req.Body != nil {
		_ = req.Body.Close()
	}
	u := *req.URL
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return nil, fmt.Errorf(refusedPlain+"%s, in plain http (a redirect or the config led there), while the configured url is https: %w",
		credential.ShownURL(u.String()), errPlainHTTP)
}
