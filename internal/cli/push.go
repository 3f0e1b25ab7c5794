package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"a2atop/a2aclient"
	"a2atop/push"
)

// pushReceiver builds the webhook for the agents' push notifications and
// has mgr register configs with it; nil when push_public_url is not set.
func (s *session) pushReceiver(mgr *a2aclient.Manager) *push.Receiver {
	cfg := s.cfg
	if !cfg.PushOn() {
		return nil
	}
	r := push.New(push.Options{PublicURL: cfg.PushPublicURL, Agents: cfg.AgentNames(), Sink: mgr,
		Logger: s.log, MaxBody: cfg.MaxMessageBytes})
	mgr.UsePush(r)
	s.log.Info("push notifications on", "webhook", cfg.PushPublicURL+push.Path+"AGENT", "listen", cfg.PushListen)
	if u, err := url.Parse(cfg.PushPublicURL); err == nil && u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		s.log.Warn("push_public_url is plain http: the agents' deliveries and their tokens cross the network in clear")
	}
	return r
}

// servePush serves the webhook r on its own listener, push_listen (over
// TLS when the config has tls_cert_file), until the returned stop.
func (s *session) servePush(r *push.Receiver, tlsCfg *tls.Config) (stop func(), err error) {
	ln, err := net.Listen("tcp", s.cfg.PushListen)
	if err != nil {
		return nil, fmt.Errorf("push_listen %s: %w", s.cfg.PushListen, err)
	}
	mux := http.NewServeMux()
	mux.Handle(push.Path, r)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10, TLSConfig: tlsCfg,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() {
		if tlsCfg != nil {
			served <- srv.ServeTLS(ln, "", "")
		} else {
			served <- srv.Serve(ln)
		}
	}()
	s.log.Info("push webhook listening", "listen", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("push webhook stopped", "err", err)
		}
	}, nil
}

// withPush mounts r beside the hub's handler (a2atop serve without
// push_listen: the webhook is on the hub's own address).
func withPush(hub http.Handler, r *push.Receiver) http.Handler {
	if r == nil {
		return hub
	}
	mux := http.NewServeMux()
	mux.Handle(push.Path, r)
	mux.Handle("/", hub)
	return mux
}

// loopbackHost reports whether host names the loopback interface.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
