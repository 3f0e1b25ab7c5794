package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/internal/config"
	"a2atop/internal/secretfile"
)

// defaultListen is where a hub listens without --listen: loopback only.
const defaultListen = "127.0.0.1:7717"

// serveFlags are the flags of `a2atop serve`.
type serveFlags struct {
	listen    string
	insecure  bool
	sshListen string // "" = no SSH (serve_ssh.go)
	printKey  bool   // print the journal's public key and stop
	broken    bool   // --accept-broken-chain
	// clusterListen and peers run the embedded cluster (serve_store.go).
	clusterListen, peers string
	routes               routeFlags // the routes' TLS files (serve_routes.go)
}

// runServe implements `a2atop serve [--config FILE] [--listen ADDR]
// [--insecure] [URL...]`: the team's hub on the configured agents, until
// SIGINT/SIGTERM.
func runServe(ctx context.Context, args []string, st Streams) int {
	o := newOptions("serve", st)
	o.configFlag()
	var f serveFlags
	o.fs.StringVar(&f.listen, "listen", defaultListen, "listen on `ADDR` (host:port); an address that is not loopback needs tls_cert_file and tls_key_file, or --insecure")
	o.fs.BoolVar(&f.insecure, "insecure", false, "serve plain HTTP on an address that is not loopback: the operators' tokens then cross the network in clear (and, with --cluster-listen beyond loopback and no cluster_cert_file, the embedded cluster's routes plain and unauthenticated)")
	o.fs.BoolVar(&f.printKey, "print-key", false, "print the public key that verifies the journal's checkpoints (a2atop journal verify --key) and exit")
	o.fs.BoolVar(&f.broken, "accept-broken-chain", false, "start on a journal whose hash chain is broken (a2atop journal verify), and record in it that you did")
	f.storeFlags(o)
	o.fs.StringVar(&f.sshListen, "ssh-listen", "", sshListenUsage)
	urls, err := o.parse(args)
	if err != nil {
		return flagStatus(err)
	}
	if f.printKey {
		cfg, code := o.load(urls)
		if cfg == nil {
			return code
		}
		s := o.open(cfg)
		defer s.Close()
		return s.printKey()
	}
	cfg, code := o.loadAgents(urls)
	if cfg == nil {
		return code
	}
	if f.sshListen == "" {
		f.sshListen = cfg.SSHListen
	}
	if len(cfg.Operators) == 0 {
		return o.failf(exitUsage, "no operators: a hub serves the [[operator]] tables of its config, each with a token and roles (see config.example.toml)")
	}
	tlsOn := cfg.TLSCertFile != ""
	if !tlsOn && !f.insecure && !loopbackAddr(f.listen) {
		return o.failf(exitUsage, "%s is not a loopback address: set tls_cert_file and tls_key_file in the config so that the operators' tokens cross the network encrypted, or add --insecure for a network you trust", f.listen)
	}
	ops, err := cfg.HubOperators()
	if err != nil {
		return o.failf(exitUsage, "config: %v", err)
	}
	s := o.open(cfg)
	defer s.Close()
	return serve(ctx, s, f, ops, func(_ *a2aclient.Manager, url string) {
		fmt.Fprintf(st.Err, "%s: serving until Ctrl+C; dashboards attach with %s --hub %s\n", o.name, selfCommand(), url)
	})
}

// serve runs the hub for the session's agents and operators on f.listen
// until ctx ends. Its one line on stdout says where it listens.
// started, when not nil, is called with the manager and the hub's URL
// once it listens.
func serve(ctx context.Context, s *session, f serveFlags, ops []hub.Operator, started func(*a2aclient.Manager, string)) int {
	cfg, log := s.cfg, s.log
	mgr, code := s.manager()
	if mgr == nil {
		return code
	}
	var tlsCfg *tls.Config
	if cfg.TLSCertFile != "" {
		cert, err := secretfile.KeyPair(cfg.TLSCertFile, cfg.TLSKeyFile)
		if err != nil {
			return s.failf(exitUsage, "config: %v", cfg.At("tls_cert_file",
				fmt.Sprintf("cannot load the certificate %s with the key tls_key_file %s: %v", cfg.TLSCertFile, cfg.TLSKeyFile, err)))
		}
		if words := secretfile.ReadableByOthers(cfg.TLSKeyFile); words != "" {
			log.Warn("tls_key_file: " + words)
			fmt.Fprintf(s.st.Err, "a2atop serve: tls_key_file: %s\n", words)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	operators := len(ops)
	var acc *sshAccess
	if f.sshListen != "" {
		var err error
		if ops, acc, err = s.sshOperators(ops); err != nil {
			return s.failf(exitUsage, "config: %v", err)
		}
	}
	ckpt, err := s.hubCheckpoints()
	if err != nil {
		return s.failf(exitFailed, "%v", err)
	}
	sh, stopShared, err := s.sharedRecord(ctx, f)
	if err != nil {
		return s.failf(exitFailed, "the team's record: %v", err)
	}
	defer stopShared()
	recv := s.pushReceiver(mgr)
	h, err := hub.Open(hub.Options{Watchers: mgr, Agents: hubAgents(cfg.Agents), Fleet: cfg.FleetOptions(),
		Operators: ops, Logger: log, AcceptBrokenChain: f.broken, Claims: sh.claims, Team: sh.team,
		Journal: approvals.Options{JournalPath: cfg.JournalPath, Sender: mgr, Agents: journalAgents(cfg),
			Templates: cfg.Templates(), Policies: cfg.Policies(), Logger: log, ReadOnly: cfg.ReadOnly, Memory: cfg.JournalMemory,
			Segment: approvals.SegmentPolicy(cfg.JournalSegment), Checkpoints: ckpt, Shared: sh.journal}})
	if errors.Is(err, hub.ErrBrokenChain) {
		return s.failf(exitFailed, "approvals journal %s: %v", cfg.JournalPath, err)
	}
	if err != nil {
		return s.failf(exitFailed, "approvals journal %s: %v (set journal_path in the config)", cfg.JournalPath, err)
	}
	defer h.Close()
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return s.failf(exitFailed, "listen on %s: %v", f.listen, err)
	}
	var handler http.Handler = h.Handler()
	if recv != nil && cfg.PushListen == "" {
		handler = withPush(handler, recv)
	} else if recv != nil {
		stopPush, err := s.servePush(recv, tlsCfg)
		if err != nil {
			return s.failf(exitFailed, "%v", err)
		}
		defer stopPush()
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, TLSConfig: tlsCfg,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	url := "http://" + ln.Addr().String()
	if tlsCfg != nil {
		url = "https://" + ln.Addr().String()
	}
	served := make(chan error, 1)
	go func() {
		if tlsCfg != nil {
			served <- srv.ServeTLS(ln, "", "")
		} else {
			served <- srv.Serve(ln)
		}
	}()
	s.announce(url, f, operators, h.Service().Path())
	if acc != nil {
		stopSSH, err := s.serveSSH(h.Handler(), f.sshListen, url, acc)
		if err != nil {
			_ = srv.Close()
			return s.failf(exitFailed, "%v", err)
		}
		defer stopSSH()
	}
	if started != nil {
		started(mgr, url)
	}
	runErr := h.Run(ctx)
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return s.failf(exitFailed, "serving %s: %v", url, err)
	}
	if runErr != nil {
		return s.failf(exitFailed, "%v", runErr)
	}
	log.Info("hub stopped", "url", url)
	return exitOK
}

// announce says where the hub listens (stdout, one line), and in the log
// and on stderr when it serves plain HTTP beyond loopback.
func (s *session) announce(url string, f serveFlags, operators int, journal string) {
	cfg, log := s.cfg, s.log
	fmt.Fprintf(s.st.Out, "a2atop serve: hub on %s for %d agents and %d operators; journal %s\n",
		url, len(cfg.Agents), operators, journal)
	log.Info("hub listening", "url", url, logKeyAgents, len(cfg.Agents), "operators", operators, logKeyPath, cfg.Path)
	if cfg.TLSCertFile == "" && !loopbackAddr(f.listen) {
		const warn = "serving plain HTTP beyond loopback (--insecure): the operators' tokens cross the network in clear"
		log.Warn(warn, "listen", f.listen)
		fmt.Fprintf(s.st.Err, "a2atop serve: %s\n", warn)
	}
}

// loopbackAddr reports whether addr (host:port) listens on loopback only.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hubAgents are the agents as the hub names them to its dashboards.
func hubAgents(agents []config.Agent) []hub.Agent {
	out := make([]hub.Agent, len(agents))
	for i, a := range agents {
		out[i] = hub.Agent{Name: a.Name, URL: a.URL, Tenant: a.Tenant}
	}
	return out
}
