package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"a2atop/approvals"
	"a2atop/approvals/jetstore"
	"a2atop/hub"
	"a2atop/internal/config"
	"a2atop/internal/natsembed"
)

// storeFlags adds the flags of the embedded cluster to serve's.
func (f *serveFlags) storeFlags(o *options) {
	o.fs.StringVar(&f.clusterListen, "cluster-listen", "", "run a NATS server with JetStream inside this hub, its peers' routes on `ADDR` (host:port); the hubs share one record ([hub] cluster_listen)")
	o.fs.StringVar(&f.peers, "peers", "", "the other hubs' cluster addresses, `A,B` (host:port each; [hub] peers)")
	f.routes.flags(o)
}

// shared is the team's record a hub keeps with the others: the journal,
// the claims, the watch leases and the watchers' events; nil for one hub
// on its journal file, which watches every agent itself.
type shared struct {
	journal approvals.SharedLog
	claims  hub.SharedClaims
	team    *hub.Team
}

// sharedRecord opens the team's shared record when the config or the
// flags name one: the embedded cluster (its server started in this
// process, in the state directory) or an existing NATS cluster. It
// returns the zero shared (the journal file) for one hub; stop ends
// what it started.
func (s *session) sharedRecord(ctx context.Context, f serveFlags) (sh shared, stop func(), err error) {
	h := s.cfg.Hub
	if f.clusterListen != "" {
		h.ClusterListen = f.clusterListen
	}
	if f.peers != "" {
		h.Peers = nil
		for _, p := range strings.Split(f.peers, ",") {
			if p = strings.TrimSpace(p); p != "" {
				h.Peers = append(h.Peers, p)
			}
		}
	}
	if !h.Shared() {
		return shared{}, func() {}, nil
	}
	host, _ := os.Hostname()
	jc := jetstore.Config{URLs: h.Store.NATS, Replicas: h.StoreReplicas(), CredsFile: h.Store.CredsFile,
		CAFile: h.Store.CAFile, CertFile: h.Store.CertFile, KeyFile: h.Store.KeyFile, Name: "a2atop serve " + host, Logger: s.log}
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	if h.ClusterListen != "" {
		if len(h.Store.NATS) > 0 {
			return shared{}, stop, fmt.Errorf("--cluster-listen runs the hubs' own NATS cluster; the config's [hub.store] nats names another: choose one")
		}
		routes, err := s.clusterRoutes(f.routes)
		if err != nil {
			return shared{}, stop, err
		}
		if !loopbackAddr(h.ClusterListen) && !routes.TLS() && !f.insecure {
			return shared{}, stop, fmt.Errorf("%s is not a loopback address, and the embedded cluster's routes are plain TCP without authentication: anyone who reaches it could join the cluster and read or write the team's record; set cluster_ca_file, cluster_cert_file and cluster_key_file in [hub] (TLS with mutual verification between the hubs), or add --insecure for a network you trust", h.ClusterListen)
		}
		srv, err := natsembed.Start(natsembed.Options{Dir: filepath.Join(filepath.Dir(s.cfg.JournalPath), "cluster"),
			ClusterListen: h.ClusterListen, Peers: h.Peers, Logger: s.log, Routes: routes})
		if err != nil {
			return shared{}, stop, err
		}
		stops = append(stops, srv.Stop)
		jc.InProcess, jc.Token, jc.Replicas = srv, srv.Token(), min(jc.Replicas, len(h.Peers)+1)
	} else if jc.Token, err = s.cfg.StoreToken(); err != nil {
		return shared{}, stop, err
	}
	st, err := jetstore.Open(ctx, jc)
	if err != nil {
		stop()
		return shared{}, func() {}, err
	}
	stops = append(stops, func() { _ = st.Close() })
	j, err := st.Journal(ctx)
	if err != nil {
		stop()
		return shared{}, func() {}, err
	}
	cl, err := st.Claims(ctx, hub.DefaultClaimTTL)
	if err != nil {
		stop()
		return shared{}, func() {}, err
	}
	ttl := h.LeaseTTL.Duration
	if ttl <= 0 {
		ttl = hub.DefaultLeaseTTL
	}
	ls, err := st.Leases(ctx, ttl)
	if err != nil {
		stop()
		return shared{}, func() {}, err
	}
	// The events' stream keeps this long of the watchers' events, within
	// this size ([hub.store] events_max_age, events_max_bytes; a hub that
	// takes an agent over sweeps it whole: the stream is no record).
	maxAge, maxBytes := h.EventsLimits()
	evs, err := st.Events(ctx, maxAge, maxBytes)
	if err != nil {
		stop()
		return shared{}, func() {}, err
	}
	s.log.Info("the team's record is shared", "store", j.Where(), "replicas", jc.Replicas, "lease_ttl", ttl.String(),
		"events_max_age", maxAge.String(), "events_max_bytes", config.ByteSize(maxBytes).String())
	return shared{journal: j, claims: cl, team: &hub.Team{Leases: ls, Events: evs}}, stop, nil
}

// sharedElsewhere refuses, for a command that would decide on or read
// this machine's journal file, a config whose team keeps its record in
// NATS JetStream: that file is no hub's record, so a decision recorded
// there would be one no hub refuses a second over.
func sharedElsewhere(cfg *config.Config) error {
	if !cfg.Hub.Shared() {
		return nil
	}
	key := "hub.store.nats"
	if cfg.Hub.ClusterListen != "" {
		key = "hub.cluster_listen"
	}
	return cfg.At(key, "the team's record is in NATS JetStream, kept by its hubs, not in this machine's journal file: decide and read it through a hub (--hub URL); a2atop journal migrate copies the file there")
}
