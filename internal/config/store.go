package config

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2/unstable"
)

// Hub is the [hub] table: how several hubs of a team share one record
// (the journal, the claims) in NATS JetStream. Either Store.NATS joins
// an existing NATS cluster, or ClusterListen (with Peers) runs a NATS
// server inside each hub, in its state directory, the hubs forming a
// cluster among themselves. Neither: the hub keeps its journal file.
type Hub struct {
	// ClusterListen is where this hub's embedded NATS server listens for
	// its peers (host:port, like "10.0.0.1:6222"); --cluster-listen.
	ClusterListen string `toml:"cluster_listen"`
	// Peers are the other hubs' cluster addresses; --peers.
	Peers []string `toml:"peers"`
	// ClusterCAFile, ClusterCertFile and ClusterKeyFile make the routes
	// between the hubs TLS with mutual verification (cluster.go):
	// this hub's certificate, presented both ways, and the CA that signs
	// every hub's; --cluster-ca-file, --cluster-cert-file,
	// --cluster-key-file. All three or none.
	ClusterCAFile   string `toml:"cluster_ca_file"`
	ClusterCertFile string `toml:"cluster_cert_file"`
	ClusterKeyFile  string `toml:"cluster_key_file"`
	// ClusterPasswordFile or ClusterPasswordEnv hold the password every
	// route presents (at most one).
	ClusterPasswordFile string `toml:"cluster_password_file"`
	ClusterPasswordEnv  string `toml:"cluster_password_env"`
	// LeaseTTL is how long a hub's watch lease on an agent lasts after
	// its last renewal (renewed every third of it): how long the agents
	// of a hub that died go unwatched, at most. 0 = 6s. Every hub of a
	// team needs the same.
	LeaseTTL Duration `toml:"lease_ttl"`
	// Store is [hub.store]: an existing NATS cluster, and the replicas.
	Store Store `toml:"store"`
}

// Store is the [hub.store] table.
type Store struct {
	// NATS are the servers of an existing NATS cluster with JetStream
	// ("nats://n1:4222", or "tls://…").
	NATS []string `toml:"nats"`
	// Replicas is how many servers hold each record. 0 = 3.
	Replicas int `toml:"replicas"`
	// CredsFile is a NATS user credentials file; TokenEnv names the
	// environment variable holding a NATS token.
	CredsFile string `toml:"creds_file"`
	TokenEnv  string `toml:"token_env"`
	// CAFile, CertFile and KeyFile: TLS to the servers.
	CAFile   string `toml:"ca_file"`
	CertFile string `toml:"cert_file"`
	KeyFile  string `toml:"key_file"`
	// Token exists only to refuse a literal secret.
	Token *string `toml:"token"`
	// EventsMaxAge and EventsMaxBytes bound the stream of the watchers'
	// events (A2ATOP_EVENTS) every hub applies: how long it keeps them,
	// within what size, the oldest going first. It is no record (a hub
	// that takes an agent over sweeps it whole): these bound how long a
	// hub cut off from the cluster may be away and still catch up from
	// where it was. 0 = 10m and 256MiB. Every hub of a team needs the
	// same (the last one started sets the stream's).
	EventsMaxAge   Duration `toml:"events_max_age"`
	EventsMaxBytes ByteSize `toml:"events_max_bytes"`
}

// The events' stream's limits when the config does not say, and the
// bounds of what it may say.
const (
	DefaultEventsMaxAge   = 10 * time.Minute
	DefaultEventsMaxBytes = 256 << 20
	minEventsMaxAge       = time.Minute
	maxEventsMaxAge       = 7 * 24 * time.Hour
	minEventsMaxBytes     = 8 << 20
)

// EventsLimits are the events' stream's age and size: the configured
// ones, or the defaults.
func (h Hub) EventsLimits() (maxAge time.Duration, maxBytes int64) {
	maxAge, maxBytes = h.Store.EventsMaxAge.Duration, int64(h.Store.EventsMaxBytes)
	if maxAge <= 0 {
		maxAge = DefaultEventsMaxAge
	}
	if maxBytes <= 0 {
		maxBytes = DefaultEventsMaxBytes
	}
	return maxAge, maxBytes
}

// ByteSize is a size written in TOML as a string with its unit ("256MiB",
// "1GiB", "512KiB"); a whole number is taken as bytes.
type ByteSize int64

// UnmarshalText parses a size. The error is a go-toml parser error, so
// that it names the file, line and key.
func (b *ByteSize) UnmarshalText(text []byte) error {
	n, ok, err := parseSize(strings.TrimSpace(string(text)))
	if !ok && err == nil {
		err = fmt.Errorf("%q has no unit: write a size like \"256MiB\" (KiB, MiB or GiB)", shown(string(text)))
	}
	if err != nil {
		return &unstable.ParserError{Highlight: text, Message: err.Error()}
	}
	*b = ByteSize(n)
	return nil
}

// MarshalText writes the size as it is read, in its largest whole unit.
func (b ByteSize) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// String is the size in its largest whole unit ("256MiB"); "0" for none.
func (b ByteSize) String() string {
	if b <= 0 {
		return "0"
	}
	for _, u := range sizeUnits {
		if int64(b)%u.n == 0 {
			return fmt.Sprintf("%d%s", int64(b)/u.n, u.name)
		}
	}
	return fmt.Sprintf("%dB", int64(b))
}

// DefaultReplicas is the replicas of a store that does not say.
const DefaultReplicas = 3

// Shared reports whether the hub keeps its record in NATS JetStream
// (external or embedded) rather than in its journal file.
func (h Hub) Shared() bool { return len(h.Store.NATS) > 0 || h.ClusterListen != "" }

// StoreReplicas is the replicas to keep: the configured number, or 3
// (for an embedded cluster, at most its number of hubs).
func (h Hub) StoreReplicas() int {
	r := h.Store.Replicas
	if r <= 0 {
		r = DefaultReplicas
		if h.ClusterListen != "" {
			r = min(r, len(h.Peers)+1)
		}
	}
	return r
}

// StoreToken reads the NATS token from the environment variable
// token_env names; "" when none is named. An empty or unset variable is
// an error naming it.
func (c *Config) StoreToken() (string, error) {
	env := c.Hub.Store.TokenEnv
	if env == "" {
		return "", nil
	}
	v := os.Getenv(env)
	if v == "" {
		return "", c.At("hub.store.token_env", fmt.Sprintf("the environment variable %s is not set or empty: export the NATS token in it", env))
	}
	return v, nil
}

// validateStore checks the [hub] table.
func (c *Config) validateStore() error {
	fail := func(key, format string, args ...any) error {
		return &Error{File: c.Path, Line: c.lines.lineOf(key), Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	h, s := c.Hub, c.Hub.Store
	switch {
	case s.Token != nil:
		return fail("hub.store.token", "secrets are not written in the config file: put the NATS token in an environment variable and name it with token_env, or use creds_file")
	case len(s.NATS) > 0 && h.ClusterListen != "":
		return fail("hub.cluster_listen", "choose one: [hub.store] nats joins an existing NATS cluster, cluster_listen runs one inside the hubs")
	case len(h.Peers) > 0 && h.ClusterListen == "":
		return fail("hub.peers", "set cluster_listen too: the address this hub's peers reach it at")
	case s.Replicas < 0 || s.Replicas > 5:
		return fail("hub.store.replicas", "must be 1 to 5 (JetStream keeps at most 5 replicas), not %d", s.Replicas)
	case h.LeaseTTL.Duration != 0 && !h.Shared():
		return fail("hub.lease_ttl", "set [hub.store] nats or cluster_listen too: watch leases are shared by a team's hubs")
	case h.LeaseTTL.Duration != 0 && (h.LeaseTTL.Duration < time.Second || h.LeaseTTL.Duration > time.Minute):
		return fail("hub.lease_ttl", "must be from 1s to 1m, not %s", h.LeaseTTL.Duration)
	case s.Replicas > 0 && !h.Shared():
		return fail("hub.store.replicas", "set [hub.store] nats or cluster_listen too: replicas are of a shared record")
	case (s.EventsMaxAge.Duration != 0 || s.EventsMaxBytes != 0) && !h.Shared():
		key := "hub.store.events_max_age"
		if s.EventsMaxAge.Duration == 0 {
			key = "hub.store.events_max_bytes"
		}
		return fail(key, "set [hub.store] nats or cluster_listen too: the events' stream is shared by a team's hubs")
	case s.EventsMaxAge.Duration != 0 && (s.EventsMaxAge.Duration < minEventsMaxAge || s.EventsMaxAge.Duration > maxEventsMaxAge):
		return fail("hub.store.events_max_age", "must be from 1m to 168h (7 days), not %s: the stream keeps the watchers' events that long, for a hub that was away to catch up", s.EventsMaxAge.Duration)
	case s.EventsMaxBytes != 0 && s.EventsMaxBytes < minEventsMaxBytes:
		return fail("hub.store.events_max_bytes", "must be 8MiB or more, not %s: smaller, the stream would drop the watchers' events before every hub has them", s.EventsMaxBytes)
	case (s.CertFile == "") != (s.KeyFile == ""):
		return fail("hub.store.cert_file", "set both cert_file and key_file, or neither")
	case h.ClusterListen != "" && (s.CredsFile != "" || s.TokenEnv != "" || s.CAFile != "" || s.CertFile != ""):
		return fail("hub.store", "creds_file, token_env and the TLS files are for [hub.store] nats; the embedded cluster's hubs connect in process")
	}
	if err := c.validateCluster(); err != nil {
		return err
	}
	if _, set := c.lines["journal_segment"]; set && h.Shared() && c.JournalSegment != (JournalSegment{}) {
		return fail("journal_segment", "segments are of the file journal only; this team's record is in NATS JetStream ([hub.store] nats or cluster_listen), whose stream does not rotate: remove journal_segment (or write \"off\")")
	}
	for i, u := range s.NATS {
		if err := checkNATSURL(u); err != nil {
			return fail(fmt.Sprintf("hub.store.nats[%d]", i+1), "%v", err)
		}
	}
	if h.ClusterListen != "" {
		if err := checkHostPort(h.ClusterListen); err != nil {
			return fail("hub.cluster_listen", "%v", err)
		}
		if r := h.StoreReplicas(); r > len(h.Peers)+1 {
			return fail("hub.store.replicas", "%d replicas need %d hubs; this cluster has %d (this hub and %d peers)", r, r, len(h.Peers)+1, len(h.Peers))
		}
	}
	for i, p := range h.Peers {
		if err := checkHostPort(p); err != nil {
			return fail(fmt.Sprintf("hub.peers[%d]", i+1), "%v", err)
		}
	}
	return nil
}

// checkNATSURL accepts nats://host:port and tls://host:port, without a
// user or password in the URL.
func checkNATSURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "":
		return fmt.Errorf("%q is not a NATS URL like \"nats://n1:4222\"", shown(raw))
	case u.Scheme != "nats" && u.Scheme != "tls":
		return fmt.Errorf("%q: the scheme is nats or tls, not %q", shown(raw), u.Scheme)
	case u.User != nil:
		return fmt.Errorf("no user or password in the URL: name a creds_file or token_env instead")
	}
	return nil
}

// checkHostPort accepts host:port.
func checkHostPort(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil || n <= 0 || n > 65535 || host == "" {
		return fmt.Errorf("%q is not host:port (like \"10.0.0.1:6222\")", addr)
	}
	return nil
}
