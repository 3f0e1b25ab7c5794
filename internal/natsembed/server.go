package natsembed

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ClusterName is the name of the hubs' cluster.
const ClusterName = "a2atop"

// Options configure an embedded server.
type Options struct {
	// Dir is the state directory; JetStream keeps its files in Dir/nats.
	Dir string
	// ClusterListen is where the server listens for its peers' routes
	// (host:port). Required.
	ClusterListen string
	// Peers are the other hubs' cluster addresses (host:port).
	Peers []string
	// ClientListen is where the server takes NATS clients (host:port;
	// port 0 picks one). "" is a port of loopback picked at random (NATS
	// starts its routes only once a client port is open); the hub
	// connects in process. Every client needs Token.
	ClientListen string
	// Token is what clients must present; "" makes one at random.
	Token string
	// Logger receives the server's notices and errors; nil discards.
	Logger *slog.Logger
	// StartWait bounds the wait for the server to take connections.
	// 0 = 30s.
	StartWait time.Duration
	// Routes secure the routes between the hubs (routes.go); the zero
	// value leaves them plain and unauthenticated, for loopback.
	Routes Routes
}

// Server is a running embedded NATS server.
type Server struct {
	*server.Server
	token string
}

// Token is what a client of the server must present: made at random
// when the server starts, never written anywhere.
func (s *Server) Token() string { return s.token }

// Start starts the server and waits until it takes connections (its
// JetStream cluster may still be forming: the store waits for it).
func Start(o Options) (*Server, error) {
	opts, err := o.serverOptions()
	if err != nil {
		return nil, err
	}
	opts.Authorization = o.Token
	if opts.Authorization == "" {
		tok := make([]byte, 24)
		if _, err := rand.Read(tok); err != nil {
			return nil, fmt.Errorf("embedded NATS server: %w", err)
		}
		opts.Authorization = hex.EncodeToString(tok)
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded NATS server: %w", err)
	}
	s.SetLoggerV2(slogLogger{log(o.Logger)}, false, false, false)
	go s.Start()
	wait := o.StartWait
	if wait <= 0 {
		wait = 30 * time.Second
	}
	if !s.ReadyForConnections(wait) {
		s.Shutdown()
		return nil, fmt.Errorf("embedded NATS server on %s did not start within %s (is the cluster address in use? see the log)", o.ClusterListen, wait)
	}
	return &Server{Server: s, token: opts.Authorization}, nil
}

func log(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// serverOptions are the server's options: JetStream on files in the
// state directory, synced on every write; the cluster's routes; its
// name, the cluster address, stable across restarts.
func (o Options) serverOptions() (*server.Options, error) {
	if o.Dir == "" {
		return nil, errors.New("embedded NATS server: no state directory")
	}
	host, port, err := splitAddr("--cluster-listen", o.ClusterListen)
	if err != nil {
		return nil, err
	}
	opts := &server.Options{
		ServerName: "a2atop-" + strings.NewReplacer(":", "-", "[", "", "]", "").Replace(o.ClusterListen),
		JetStream:  true, StoreDir: filepath.Join(o.Dir, "nats"), SyncAlways: true,
		NoSigs: true, Host: "127.0.0.1", Port: server.RANDOM_PORT,
		// NoAdvertise: the servers do not tell their clients of each
		// other's client ports; a hub connects in process, or to the
		// servers it names, and stays there.
		Cluster: server.ClusterOpts{Name: ClusterName, Host: host, Port: port, NoAdvertise: true},
	}
	if o.ClientListen != "" {
		if opts.Host, opts.Port, err = splitAddr("client listen", o.ClientListen); err != nil {
			return nil, err
		}
		if opts.Port == 0 {
			opts.Port = server.RANDOM_PORT
		}
	}
	for _, p := range o.Peers {
		if _, _, err := splitAddr("--peers", p); err != nil {
			return nil, err
		}
		opts.Routes = append(opts.Routes, &url.URL{Scheme: "nats-route", Host: p})
	}
	if o.ClientListen != "" && !loopbackHost(opts.Host) {
		return nil, fmt.Errorf("embedded NATS server: client listen %q is not a loopback address: the hub's own connection stays on this machine", o.ClientListen)
	}
	o.Routes.apply(opts)
	return opts, nil
}

// splitAddr reads host:port.
func splitAddr(what, addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("%s %q: %v (want host:port, like 10.0.0.1:6222)", what, addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("%s %q: the port is not a number from 0 to 65535", what, addr)
	}
	return host, port, nil
}

// ClusterAddr is where the server listens for routes.
func (s *Server) ClusterAddr() string {
	if a := s.Server.ClusterAddr(); a != nil {
		return a.String()
	}
	return ""
}

// Stop shuts the server down and waits until it is down.
func (s *Server) Stop() {
	s.Shutdown()
	s.WaitForShutdown()
}

// slogLogger hands the server's log to slog.
type slogLogger struct{ l *slog.Logger }

func (l slogLogger) Noticef(format string, v ...any) { l.l.Info("nats: " + fmt.Sprintf(format, v...)) }
func (l slogLogger) Warnf(format string, v ...any)   { l.l.Warn("nats: " + fmt.Sprintf(format, v...)) }
func (l slogLogger) Fatalf(format string, v ...any)  { l.l.Error("nats: " + fmt.Sprintf(format, v...)) }
func (l slogLogger) Errorf(format string, v ...any)  { l.l.Error("nats: " + fmt.Sprintf(format, v...)) }
func (l slogLogger) Debugf(format string, v ...any)  { l.l.Debug("nats: " + fmt.Sprintf(format, v...)) }
func (l slogLogger) Tracef(string, ...any)           {}
