package a2aclient

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"a2atop/a2aclient/credential"
	"a2atop/a2aclient/edge"
	"a2atop/model"
)

// conn is one agent's transport stack: our http.Client (no Timeout; the
// layers of newTransport underneath), the raw capture, the allowed-origin
// rule and the byte count.
type conn struct {
	opts   AgentOptions
	hc     *http.Client
	ring   *edge.Ring              // the raw capture (HTTP and gRPC)
	red    *edge.Redactor          // the agent's secrets, kept out of the capture and errors
	origin credential.Origin       // of opts.URL: secrets go there and to AllowedHosts only
	tls    *tls.Config             // the agent's TLS settings (cert.TLS)
	cred   credential.Credential   // the credential besides opts.Headers; nil when none
	cert   *credential.Certificate // the client certificate and what the agent's TLS server asked of it
	auth   *credential.Chooser     // the credential, when it is one of AuthOptions; nil when none
	retry  *credential.Retry       // the retry of a read refused 401
	trust  *cardTrust              // the card's pinned signing keys
	// grpcCapture records the gRPC calls in ring (HTTP has captureLayer).
	grpcCapture *edge.GRPCCapture
	wire        atomic.Int64
	// legacyREST: the chosen interface is A2A 0.3 HTTP+JSON, whose SDK
	// conversion drops referenceTaskIds (edge/rest03_reference_task_ids.go).
	legacyREST atomic.Bool
	// restPaths: the chosen interface is HTTP+JSON, whose paths carry ids
	// (edge/task_id_segment.go).
	restPaths  atomic.Bool
	bigStreams edge.BigStreams // what its open streams hold in big events (edge/stream_recycle.go)
}

// newConn builds the agent's transport stack; log is the agent's log
// (what becomes of its client certificate's files).
func newConn(o AgentOptions, captureN int, log *slog.Logger) *conn {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.ResponseHeaderTimeout = o.CallTimeout
	base.MaxIdleConnsPerHost = o.MaxStreams + 8
	c := &conn{opts: o, origin: credential.OriginOf(o.URL), ring: edge.NewRing(captureN), red: edge.NewRedactor(o.Headers)}
	c.cert = credential.NewCertificate(o.TLS, o.Auth, c.allowed, log)
	c.tls = c.cert.TLS()
	base.TLSClientConfig = c.tls
	c.trust = newCardTrust(o.Auth.CardKeys, credential.TokenClient(c.tls, o.CallTimeout))
	if a := credential.NewChooser(o.Name, o.Auth, c.allowed, credential.TokenClient(c.tls, o.CallTimeout)); a != nil {
		c.auth, c.cred = a, a
		for _, n := range a.Names() {
			c.red.HideHeader(n)
		}
	}
	c.retry = credential.NewRetry(c.cred)
	c.grpcCapture = edge.NewGRPCCapture(c.ring, func(ctx context.Context, n int) error { return sweepBudgetFrom(ctx).read(n) })
	// No Timeout: long streams must live, and the SDK's own default client
	// would end every call after 3 minutes; every unary call carries a
	// context deadline instead.
	c.hc = &http.Client{Transport: newTransport(c, base)}
	return c
}

// resolveCard fetches and parses the card (0.3 and 1.0 shapes, which the
// SDK's default parser does not both read). The SDK's card resolver goes
// through no interceptor but through our http.Client: the credential
// layer adds the secrets when the card URL is on an allowed origin.
func (c *conn) resolveCard(ctx context.Context) (*a2a.AgentCard, string, error) {
	card, _, cardURL, err := c.resolveCardRaw(ctx)
	return card, cardURL, err
}

// resolveCardRaw is resolveCard that also returns the card's bytes as the
// agent sent them (its signatures are over them).
func (c *conn) resolveCardRaw(ctx context.Context) (*a2a.AgentCard, []byte, string, error) {
	base, path := c.opts.URL, c.opts.CardPath
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		u, err := url.Parse(path)
		if err != nil {
			return nil, nil, path, fmt.Errorf("card_path %q: %w", path, err)
		}
		base, path = u.Scheme+"://"+u.Host, u.RequestURI()
	}
	cardURL, _ := url.JoinPath(base, path)
	ropts := []agentcard.ResolveOption{agentcard.WithPath(path)}
	ctx, cancel := context.WithTimeout(cardFetch(credential.Idempotent(ctx)), c.opts.CallTimeout)
	defer cancel()
	var raw []byte
	parse := a2av0.NewAgentCardParser()
	res := &agentcard.Resolver{Client: c.hc, CardParser: func(b []byte) (*a2a.AgentCard, error) {
		raw = b
		return parse(b)
	}}
	card, err := res.Resolve(ctx, base, ropts...)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		err = fmt.Errorf("%w: a document that is not JSON (%v)", ErrNotACard, err)
	case err == nil && card.Name == "" && len(card.SupportedInterfaces) == 0:
		err = fmt.Errorf("%w: JSON with no name and no interfaces", ErrNotACard)
	}
	return card, raw, cardURL, err
}

// chooseInterfaces filters the card's interfaces by the configured binding
// and protocol version, keeping the card's order (its preference).
func chooseInterfaces(card *a2a.AgentCard, binding, protocol string) ([]*a2a.AgentInterface, error) {
	want := map[string]a2a.TransportProtocol{
		"jsonrpc": a2a.TransportProtocolJSONRPC, "rest": a2a.TransportProtocolHTTPJSON,
		"grpc": a2a.TransportProtocolGRPC,
	}
	b := strings.ToLower(binding)
	var out []*a2a.AgentInterface
	for _, iface := range card.SupportedInterfaces {
		if iface == nil {
			continue
		}
		if tp, ok := want[b]; ok && !strings.EqualFold(string(iface.ProtocolBinding), string(tp)) {
			continue
		}
		v := strings.TrimPrefix(string(iface.ProtocolVersion), "v")
		if protocol != "" && protocol != "auto" && !strings.HasPrefix(v, protocol) {
			continue
		}
		out = append(out, iface)
	}
	if len(out) == 0 {
		var have []string
		for _, iface := range card.SupportedInterfaces {
			if iface != nil {
				have = append(have, string(iface.ProtocolBinding)+" "+string(iface.ProtocolVersion))
			}
		}
		return nil, fmt.Errorf("no compatible transports: the card offers [%s], the config asks binding %q protocol %q",
			strings.Join(have, ", "), binding, protocol)
	}
	return out, nil
}

// newClient builds the SDK client for the card on our http.Client, with
// our auth interceptor and every transport we speak.
func (c *conn) newClient(ctx context.Context, card *a2a.AgentCard) (*sdk.Client, *a2a.AgentInterface, error) {
	ifaces, err := chooseInterfaces(card, c.opts.Binding, c.opts.Protocol)
	if err == nil {
		ifaces, err = c.secureInterfaces(ifaces) // downgrade.go
	}
	if err != nil {
		return nil, nil, err
	}
	filtered := *card
	filtered.SupportedInterfaces = ifaces
	fopts := append([]sdk.FactoryOption{
		sdk.WithDefaultsDisabled(),
		sdk.WithJSONRPCTransport(c.hc),
		sdk.WithRESTTransport(c.hc),
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: c.hc}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{Client: c.hc}),
		sdk.WithCallInterceptors(versionInterceptor{}, edge.IDSegmentInterceptor(&c.restPaths), edge.REST03RefsInterceptor(&c.legacyREST)),
	}, c.grpcFactories()...)
	f := sdk.NewFactory(fopts...)
	cl, err := f.CreateFromCard(ctx, &filtered)
	if err != nil {
		return nil, nil, err
	}
	// The SDK does not say which interface it picked: the same order rule
	// (newest version, then card order) gives the first newest one.
	chosen := ifaces[0]
	for _, iface := range ifaces {
		if versionLess(chosen.ProtocolVersion, iface.ProtocolVersion) {
			chosen = iface
		}
	}
	return cl, chosen, nil
}

func versionLess(a, b a2a.ProtocolVersion) bool {
	return strings.TrimPrefix(string(a), "v") < strings.TrimPrefix(string(b), "v")
}

// agentInfo is what the card and our choice say, for the agents view.
func agentInfo(o AgentOptions, card *a2a.AgentCard, iface *a2a.AgentInterface) *model.AgentInfo {
	tenant := iface.Tenant
	if o.Tenant != "" {
		tenant = o.Tenant
	}
	return &model.AgentInfo{
		CardName: card.Name, Description: card.Description, URL: o.URL,
		InterfaceURL: iface.URL, ProtocolVersion: strings.TrimPrefix(string(iface.ProtocolVersion), "v"),
		Binding: string(iface.ProtocolBinding), Tenant: tenant,
		Streaming: card.Capabilities.Streaming, Push: card.Capabilities.PushNotifications,
		ReadOnly: o.ReadOnly,
	}
}
