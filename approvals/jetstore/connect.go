package jetstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"a2atop/internal/secretfile"
)

// Config is how a hub reaches the team's NATS servers. The zero value
// of each optional field is its default.
type Config struct {
	// URLs are the servers to connect to ("nats://n1:4222"); any one that
	// answers is enough, the others are where the client goes when it is
	// lost. Required unless InProcess is set.
	URLs []string
	// InProcess, when set, connects to a server running in this process
	// (the embedded cluster, package internal/natsembed) without a port.
	InProcess nats.InProcessConnProvider
	// Replicas is how many servers hold each record; an append is
	// acknowledged once a majority of them hold it. 0 = 3.
	Replicas int
	// CredsFile is a NATS user credentials file (a JWT and its seed).
	CredsFile string
	// Token is a NATS token (read from the environment by the caller).
	Token string
	// CAFile, CertFile and KeyFile are the TLS trust and client
	// certificate; CertFile and KeyFile go together.
	CAFile, CertFile, KeyFile string
	// Name names this client on the servers ("a2atop serve host").
	Name string
	// Logger receives the connection's losses and returns; nil discards.
	Logger *slog.Logger
	// Timeout bounds each request to the servers (an append, a read of
	// the stream's state). 0 = 4s.
	Timeout time.Duration
	// StartWait is how long Open waits for a cluster that is forming (no
	// JetStream leader yet). 0 = 30s.
	StartWait time.Duration
}

func (c Config) withDefaults() Config {
	if c.Replicas <= 0 {
		c.Replicas = 3
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Timeout <= 0 {
		c.Timeout = 4 * time.Second
	}
	if c.StartWait <= 0 {
		c.StartWait = 30 * time.Second
	}
	return c
}

// where names the servers in words.
func (c Config) where() string {
	if c.InProcess != nil {
		return "the embedded NATS server"
	}
	return strings.Join(c.URLs, ", ")
}

// connect connects to the servers, and keeps reconnecting while they
// are lost. An error names each server tried and why it failed.
func connect(c Config) (*nats.Conn, error) {
	opts, err := c.options()
	if err != nil {
		return nil, err
	}
	if c.InProcess != nil {
		nc, err := nats.Connect("", append(opts, nats.InProcessServer(c.InProcess))...)
		if err != nil {
			return nil, fmt.Errorf("the embedded NATS server: %w", err)
		}
		return nc, nil
	}
	if len(c.URLs) == 0 {
		return nil, errors.New("no NATS server: set [hub.store] nats = [\"nats://host:4222\"]")
	}
	nc, err := nats.Connect(strings.Join(c.URLs, ","), opts...)
	if err == nil {
		return nc, nil
	}
	// Say, for each server, why it could not be reached: nats.go says
	// only that none was.
	var why []string
	for _, u := range c.URLs {
		if err := c.dial(u, opts); err != nil {
			why = append(why, fmt.Sprintf("%s: %v", u, err))
		}
	}
	if len(why) == 0 {
		return nil, fmt.Errorf("%s: %w", c.where(), err)
	}
	return nil, fmt.Errorf("the team's NATS servers cannot be reached: %s", strings.Join(why, "; "))
}

// dial tries one server: its TCP port, then NATS on it.
func (c Config) dial(raw string, opts []nats.Option) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "4222")
	}
	conn, err := net.DialTimeout("tcp", host, c.Timeout)
	if err != nil {
		return plainDial(err)
	}
	conn.Close()
	one, err := nats.Connect(raw, append(opts, nats.MaxReconnects(0))...)
	if err != nil {
		return plainDial(err)
	}
	one.Close()
	return nil
}

// plainDial keeps the reason of a failed dial without nats.go's prefix.
func plainDial(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return op
	}
	if errors.Is(err, nats.ErrAuthorization) {
		return errors.New("the server refused the credentials (authorization violation): check creds_file or token_env")
	}
	return err
}

// options are the connection's options: its name, credentials, TLS,
// and reconnecting for ever.
func (c Config) options() ([]nats.Option, error) {
	log := c.Logger
	opts := []nats.Option{nats.Name(c.Name), nats.Timeout(c.Timeout), nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond), nats.PingInterval(5 * time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			log.Warn("the team's record (NATS) is unreachable; decisions are refused until it is back", "err", err)
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("the team's record (NATS) is reachable again", "server", nc.ConnectedUrlRedacted())
		}),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			log.Warn("NATS", "err", err)
		}),
	}
	if c.Token != "" {
		opts = append(opts, nats.Token(c.Token))
	}
	if c.CredsFile != "" {
		jwt, seed, err := readCreds(c.CredsFile)
		if err != nil {
			return nil, err
		}
		opts = append(opts, nats.UserJWTAndSeed(jwt, seed))
	}
	if c.CAFile != "" || c.CertFile != "" {
		t, err := c.tlsConfig()
		if err != nil {
			return nil, err
		}
		opts = append(opts, nats.Secure(t))
	}
	return opts, nil
}

func (c Config) tlsConfig() (*tls.Config, error) {
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.CAFile != "" {
		pem, err := secretfile.Read(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca_file %s holds no PEM certificate", c.CAFile)
		}
		t.RootCAs = pool
	}
	if c.CertFile != "" {
		cert, err := secretfile.KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("cert_file %s with key_file %s: %w", c.CertFile, c.KeyFile, err)
		}
		t.Certificates = []tls.Certificate{cert}
	}
	return t, nil
}

// readCreds reads a NATS credentials file: the user JWT and the nkey
// seed, each between its "-----BEGIN" and "------END" lines.
func readCreds(path string) (jwt, seed string, err error) {
	b, err := secretfile.Read(path)
	if err != nil {
		return "", "", fmt.Errorf("creds_file: %w", err)
	}
	var blocks []string
	var cur []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "-----BEGIN") || strings.HasPrefix(l, "------BEGIN"):
			in, cur = true, nil
		case strings.HasPrefix(l, "-----END") || strings.HasPrefix(l, "------END"):
			if in {
				blocks = append(blocks, strings.Join(cur, ""))
			}
			in = false
		case in && l != "":
			cur = append(cur, l)
		}
	}
	if len(blocks) < 2 || !strings.HasPrefix(blocks[1], "SU") {
		return "", "", fmt.Errorf("creds_file %s is not a NATS user credentials file (a JWT block, then a user seed block starting SU)", path)
	}
	return blocks[0], blocks[1], nil
}

// checkJetStream refuses an account without JetStream, in words.
func checkJetStream(ctx context.Context, js jetstream.JetStream, where string) error {
	_, err := js.AccountInfo(ctx)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount):
		return fmt.Errorf("%s: this NATS account has no JetStream: enable JetStream for the account the hub's credentials name (jetstream: enabled in its account config)", where)
	case errors.Is(err, jetstream.ErrJetStreamNotEnabled):
		return fmt.Errorf("%s: the NATS server runs without JetStream: start it with -js (or jetstream {} in its config)", where)
	}
	return fmt.Errorf("%s: asking for the account's JetStream: %w", where, err)
}
