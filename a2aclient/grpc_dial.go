package a2aclient

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"a2atop/a2aclient/credential"
)

// A card's gRPC interface URL is a gRPC target, and grpc.NewClient reads
// a target's scheme as the name of a resolver: passthrough://A/B,
// dns://A/B and xds://A/B dial B (A names a DNS server or is ignored),
// unix: and unix-abstract: dial a socket. Judging such a target by its
// URL authority sends the secrets to whatever it really dials. So a2atop
// dials only targets whose endpoint it can name: "host:port",
// "dns:///host:port", and "https://host[:port]" or "http://host[:port]"
// with no path (the scheme says whether TLS is used); every other form is
// refused in words. It dials the endpoint itself (passthrough, through
// grpcDialer), and the secrets are added per call only when the
// connection the call runs on was dialled to an allowed origin
// (grpcSecrets), as the HTTP path judges each request at its
// RoundTripper.

// grpcEndpoint is a gRPC target a2atop will dial: host:port, and whether
// it is dialled with TLS.
type grpcEndpoint struct {
	hostPort string
	tls      bool
}

// parseGRPCTarget reads a card's gRPC interface URL. defaultTLS is the
// TLS choice for a bare host:port (TLS when the configured URL is https).
func parseGRPCTarget(raw string, defaultTLS bool) (grpcEndpoint, error) {
	refuse := func(why string) (grpcEndpoint, error) {
		return grpcEndpoint{}, fmt.Errorf("the card's gRPC interface %q %s; a2atop dials only host:port, dns:///host:port "+
			"or https://host:port targets, so that its credentials go where the card's URL says", credential.ShownURL(raw), why)
	}
	if rest, ok := strings.CutPrefix(raw, "dns:///"); ok {
		raw = rest
	}
	if scheme, _, ok := strings.Cut(raw, "://"); ok {
		scheme = strings.ToLower(scheme)
		if scheme != "https" && scheme != "http" {
			return refuse("names the gRPC resolver " + strconv.Quote(scheme) + ", which may dial another endpoint than its authority")
		}
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return refuse("is not a plain URL")
		}
		if strings.Trim(u.Path, "/") != "" {
			return refuse("has a path, which gRPC cannot serve")
		}
		o := credential.URLOrigin(u)
		return grpcEndpoint{hostPort: o.HostPort, tls: scheme == "https"}, nil
	}
	host, port, err := net.SplitHostPort(raw)
	if err != nil || host == "" || strings.ContainsAny(raw, "/?#@") {
		if i := strings.IndexByte(raw, ':'); i > 0 && !strings.ContainsAny(raw[:i], "/.[") {
			return refuse("names the gRPC resolver " + strconv.Quote(strings.ToLower(raw[:i])) + ", which may dial another endpoint")
		}
		return refuse("is not host:port")
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return refuse("has no valid port")
	}
	return grpcEndpoint{hostPort: strings.ToLower(net.JoinHostPort(host, port)), tls: defaultTLS}, nil
}

// origin is the origin the endpoint is judged as: https when dialled with
// TLS, http when in plain text.
func (e grpcEndpoint) origin() credential.Origin {
	if e.tls {
		return credential.Origin{Scheme: "https", HostPort: e.hostPort}
	}
	return credential.Origin{Scheme: "http", HostPort: e.hostPort}
}

// grpcFactories are the SDK transport factories for A2A 1.0 and 0.3 gRPC
// interfaces: each checks the target (parseGRPCTarget) and dials it
// through c.grpcClient.
func (c *conn) grpcFactories() []sdk.FactoryOption {
	dial := func(newTransport func(*grpc.ClientConn) sdk.Transport) sdk.TransportFactory {
		return sdk.TransportFactoryFn(func(ctx context.Context, card *a2a.AgentCard, iface *a2a.AgentInterface) (sdk.Transport, error) {
			cc, err := c.grpcClient(iface.URL)
			if err != nil {
				return nil, err
			}
			return newTransport(cc), nil
		})
	}
	return []sdk.FactoryOption{
		sdk.WithTransport(a2a.TransportProtocolGRPC, dial(grpcv1.NewGRPCTransport)),
		sdk.WithCompatTransport(a2av0.Version, a2a.TransportProtocolGRPC, dial(grpcv0.NewGRPCTransport)),
	}
}

// grpcClient dials the card's gRPC interface URL raw.
func (c *conn) grpcClient(raw string) (*grpc.ClientConn, error) {
	ep, err := parseGRPCTarget(raw, c.origin.Scheme == "https")
	if err != nil {
		return nil, err
	}
	return grpc.NewClient("passthrough:///"+ep.hostPort, c.grpcDialOptions(ep)...)
}

// grpcDialOptions are the options of a connection to ep: its transport
// credentials wrapped so that each call knows where its connection was
// dialled, the per-call secrets, the size limit and the capture.
func (c *conn) grpcDialOptions(ep grpcEndpoint) []grpc.DialOption {
	var creds credentials.TransportCredentials = insecure.NewCredentials()
	if ep.tls {
		creds = credentials.NewTLS(c.cert.TLSFor(ep.origin()))
	}
	return []grpc.DialOption{
		grpc.WithContextDialer(grpcDialer),
		grpc.WithTransportCredentials(dialledCreds{TransportCredentials: creds, tls: ep.tls}),
		grpc.WithPerRPCCredentials(grpcSecrets{c: c}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(int(c.opts.MaxMessageBytes))),
		grpc.WithChainUnaryInterceptor(c.grpcCapture.Unary, c.retry.GRPCUnary),
		grpc.WithChainStreamInterceptor(c.grpcCapture.Stream, c.retry.GRPCStream),
	}
}

// dialledConn is a connection grpcDialer made, with the address it dialled.
type dialledConn struct {
	net.Conn
	addr string
}

// grpcDialer dials addr (the target's host:port, as passthrough hands it
// over) over TCP and remembers it.
func grpcDialer(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return &dialledConn{Conn: nc, addr: strings.ToLower(addr)}, nil
}

// dialledCreds are transport credentials whose handshake records, in the
// connection's AuthInfo, the origin the connection was dialled to.
type dialledCreds struct {
	credentials.TransportCredentials
	tls bool
}

// ClientHandshake implements credentials.TransportCredentials.
func (d dialledCreds) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	nc, info, err := d.TransportCredentials.ClientHandshake(ctx, authority, raw)
	if err != nil {
		return nil, nil, err
	}
	dc, ok := raw.(*dialledConn)
	if !ok {
		return nc, info, nil // not ours: no origin, so no secrets
	}
	scheme := "http"
	if d.tls {
		scheme = "https"
	}
	return nc, dialledInfo{AuthInfo: info, origin: credential.Origin{Scheme: scheme, HostPort: dc.addr}}, nil
}

// Clone implements credentials.TransportCredentials.
func (d dialledCreds) Clone() credentials.TransportCredentials {
	return dialledCreds{TransportCredentials: d.TransportCredentials.Clone(), tls: d.tls}
}

// dialledInfo is the AuthInfo of a connection dialled by grpcDialer.
type dialledInfo struct {
	credentials.AuthInfo
	origin credential.Origin
}

// GetCommonAuthInfo passes on the security level of the handshake.
func (i dialledInfo) GetCommonAuthInfo() credentials.CommonAuthInfo {
	if c, ok := i.AuthInfo.(interface {
		GetCommonAuthInfo() credentials.CommonAuthInfo
	}); ok {
		return c.GetCommonAuthInfo()
	}
	return credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}
}

// grpcSecrets adds the agent's secret headers to a call as metadata, but
// only when the call's connection was dialled to an allowed origin: it
// reads the connection's dialledInfo, which no card text can change.
type grpcSecrets struct{ c *conn }

// GetRequestMetadata implements credentials.PerRPCCredentials.
func (g grpcSecrets) GetRequestMetadata(ctx context.Context, _ ...string) (map[string]string, error) {
	ri, ok := credentials.RequestInfoFromContext(ctx)
	if !ok {
		return nil, nil
	}
	info, ok := ri.AuthInfo.(dialledInfo)
	if !ok || !g.c.allowed(info.origin) {
		return nil, nil
	}
	sent := credential.GRPCSentFrom(ctx)
	hs, err := g.c.secretHeaders(ctx)
	if err != nil {
		sent.Set("", err)
		return nil, status.Error(codes.Unauthenticated, "no credential: "+err.Error())
	}
	md := make(map[string]string, len(hs))
	for _, h := range hs {
		md[strings.ToLower(h.Name)] = h.Value
	}
	if g.c.cred != nil {
		for _, n := range g.c.cred.Names() {
			if v := md[strings.ToLower(n)]; v != "" {
				sent.Set(v, nil)
				break
			}
		}
	}
	return md, nil
}

// RequireTransportSecurity implements credentials.PerRPCCredentials: the
// origin rule (conn.allowed) decides, plain text included for an agent
// configured with an http URL.
func (grpcSecrets) RequireTransportSecurity() bool { return false }
