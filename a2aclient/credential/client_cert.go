package credential

import (
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"

	"a2atop/a2aclient/a2aerr"
)

// What an agent's TLS server asked of our client certificate.
const (
	certNotAsked int32 = iota
	certNone           // it asked, and a2atop had none to give
	certSent           // it asked, and a2atop gave one
)

// Certificate is an agent's TLS side of its credential: the TLS
// configuration the connection dials with, which presents the client
// certificate where the origin rule allows, and what the agent's TLS
// server asked of it. Safe for concurrent use.
type Certificate struct {
	auth    AuthOptions
	allowed func(Origin) bool // the agent's origin rule (the connection's)
	tls     *tls.Config       // the agent's TLS settings with GetClientCertificate
	// certAsked is set once an agent's TLS server asked for a client
	// certificate: certNone when we had none to give, certSent when we
	// gave one (see watchCertRequests).
	certAsked atomic.Int32
	cert      *clientCert // the certificate kept from its files; nil when none is configured
	// staticCerts are the client certificates of the agent's TLS
	// configuration, presented when no files are (see presentCert).
	staticCerts []tls.Certificate
}

// NewCertificate keeps the client certificate of base (the agent's TLS
// settings, nil for the defaults) and of auth's files, presented to the
// origins allowed accepts and the endpoints auth names; log is the
// agent's log (what becomes of the certificate's files).
func NewCertificate(base *tls.Config, auth AuthOptions, allowed func(Origin) bool, log *slog.Logger) *Certificate {
	c := &Certificate{auth: auth, allowed: allowed}
	c.tls = c.watchCertRequests(base, log)
	return c
}

// TLS is the agent's TLS configuration (HTTP connections and the token
// endpoints): its client certificate goes to the origin a request's
// context names (WithCertOrigin).
func (c *Certificate) TLS() *tls.Config { return c.tls }

// Asked says what the agent's TLS server asked of the client
// certificate so far, for CertWords.
func (c *Certificate) Asked() int32 { return c.certAsked.Load() }

// Note says why the certificate's files are not what is presented, ""
// when they are or there are none.
func (c *Certificate) Note() string { return c.cert.note() }

// watchCertRequests returns the agent's TLS configuration (a copy of
// base, or the defaults) with a GetClientCertificate that presents the
// configured certificate, to the origins certAllowed names only (the
// request's origin reaches the handshake in its context: originGuard and
// TokenClient mark it, tlsFor serves gRPC), and remembers that the
// server asked for one. A
// server that refuses a connection for want of a certificate (or for the
// one it got) may close it with an alert or a reset, which alone say
// nothing a person can act on; knowing it asked, the words can. With
// the certificate's files configured, the one presented is read again
// from them when they change (clientCert).
func (c *Certificate) watchCertRequests(base *tls.Config, log *slog.Logger) *tls.Config {
	var cfg *tls.Config
	if base != nil {
		cfg = base.Clone()
	} else {
		cfg = &tls.Config{}
	}
	static := cfg.Certificates
	cfg.Certificates = nil
	if a := c.auth; a.CertFile != "" && a.KeyFile != "" {
		c.cert = newClientCert(a.CertFile, a.KeyFile, static, log)
	}
	c.staticCerts = static
	cfg.GetClientCertificate = func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
		o, _ := cri.Context().Value(certOriginKey{}).(Origin) // zero when unknown: presented nowhere
		return c.presentCert(cri, o)
	}
	return cfg
}

// presentCert answers a TLS server at o that asks for a client
// certificate: the configured one when o may have it, else none.
func (c *Certificate) presentCert(cri *tls.CertificateRequestInfo, o Origin) (*tls.Certificate, error) {
	if !c.certAllowed(o) {
		return &tls.Certificate{}, nil
	}
	certs := c.staticCerts
	if c.cert != nil {
		certs = nil
		if cur := c.cert.current(); cur != nil {
			certs = []tls.Certificate{*cur}
		}
	}
	for i := range certs {
		if cri.SupportsCertificate(&certs[i]) == nil {
			c.certAsked.Store(certSent)
			return &certs[i], nil
		}
	}
	if len(certs) > 0 {
		c.certAsked.Store(certSent)
		return &certs[0], nil
	}
	c.certAsked.Store(certNone)
	return &tls.Certificate{}, nil
}

// CertWords explains a failure after an agent asked for a client
// certificate (Certificate.Asked), or returns "".
func CertWords(asked int32, err error) string {
	if asked == certNotAsked || err == nil {
		return ""
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return "" // the connection was never made
	}
	c := a2aerr.Classify(err)
	msg := err.Error()
	if c != a2aerr.TLS && c != a2aerr.NoAnswer && !strings.Contains(msg, "remote error: tls") &&
		!strings.Contains(msg, "broken pipe") && !strings.Contains(msg, "connection reset") {
		return ""
	}
	if asked == certNone {
		return "the agent requires a client certificate and a2atop has none for it: set cert_file and key_file in its [agent.auth] (type = \"mtls\", or with any other type)"
	}
	return "the agent refused our client certificate (" + tlsAlert(msg) + "): check cert_file and key_file in its [agent.auth], and that the agent trusts the certificate's issuer"
}

// tlsAlert is the TLS alert in msg, or what happened to the connection.
func tlsAlert(msg string) string {
	if _, a, ok := strings.Cut(msg, "remote error: tls: "); ok {
		return a
	}
	return "the connection was closed during the handshake"
}
