package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHubStoreErrorsNameLineAndKey(t *testing.T) {
	tests := []struct {
		name, doc string
		line      int
		key, msg  string
	}{
		{"literal token", "[hub.store]\nnats = [\"nats://n1:4222\"]\ntoken = \"s3cret\"\n", 3, "hub.store.token", "secrets are not written"},
		{"bad scheme", "[hub.store]\nnats = [\"http://n1:4222\"]\n", 2, "hub.store.nats[1]", "the scheme is nats or tls"},
		{"user in url", "[hub.store]\nnats = [\"nats://u:p@n1:4222\"]\n", 2, "hub.store.nats[1]", "no user or password"},
		{"replicas too many", "[hub.store]\nnats = [\"nats://n1:4222\"]\nreplicas = 7\n", 3, "hub.store.replicas", "1 to 5"},
		{"replicas alone", "[hub.store]\nreplicas = 3\n", 2, "hub.store.replicas", "set [hub.store] nats or cluster_listen"},
		{"cert without key", "[hub.store]\nnats = [\"tls://n1:4222\"]\ncert_file = \"c.pem\"\n", 3, "hub.store.cert_file", "both cert_file and key_file"},
		{"both modes", "[hub]\ncluster_listen = \"127.0.0.1:6222\"\n[hub.store]\nnats = [\"nats://n1:4222\"]\n", 2, "hub.cluster_listen", "choose one"},
		{"peers alone", "[hub]\npeers = [\"10.0.0.2:6222\"]\n", 2, "hub.peers", "set cluster_listen too"},
		{"bad peer", "[hub]\ncluster_listen = \"10.0.0.1:6222\"\npeers = [\"10.0.0.2:6222\", \"nowhere\"]\n", 3, "hub.peers[2]", "not host:port"},
		{"bad listen", "[hub]\ncluster_listen = \"6222\"\n", 2, "hub.cluster_listen", "not host:port"},
		{"segments on nats", "journal_segment = \"64MiB\"\n[hub.store]\nnats = [\"nats://n1:4222\"]\n", 1, "journal_segment", "the file journal only"},
		{"segments on the embedded cluster", "journal_segment = \"7d\"\n[hub]\ncluster_listen = \"127.0.0.1:6222\"\n", 1, "journal_segment", "does not rotate"},
		{"cluster cert without the CA", "[hub]\ncluster_listen = \"10.0.0.1:6222\"\ncluster_cert_file = \"hub.crt\"\ncluster_key_file = \"hub.key\"\n", 1, "hub.cluster_ca_file", "go together"},
		{"cluster key without the cert", "[hub]\ncluster_ca_file = \"ca.crt\"\ncluster_key_file = \"hub.key\"\n", 1, "hub.cluster_cert_file", "hub.cluster_cert_file is missing"},
		{"cluster password twice", "[hub]\ncluster_password_file = \"pw\"\ncluster_password_env = \"PW\"\n", 2, "hub.cluster_password_file", "not both"},
		{"cluster keys with nats", "[hub]\ncluster_ca_file = \"ca.crt\"\ncluster_cert_file = \"hub.crt\"\ncluster_key_file = \"hub.key\"\n[hub.store]\nnats = [\"nats://n1:4222\"]\n", 6, "hub.store.nats", "use its ca_file"},
		{"replicas beyond the hubs", "[hub]\ncluster_listen = \"10.0.0.1:6222\"\npeers = [\"10.0.0.2:6222\"]\n[hub.store]\nreplicas = 3\n", 5, "hub.store.replicas", "3 replicas need 3 hubs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, tt.doc)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a config error", err)
			}
			if ce.Line != tt.line || ce.Key != tt.key || !strings.Contains(ce.Msg, tt.msg) {
				t.Fatalf("got %s:%d %s: %s; want line %d key %s saying %q", ce.File, ce.Line, ce.Key, ce.Msg, tt.line, tt.key, tt.msg)
			}
			if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "u:p@") {
				t.Fatalf("the error shows the secret: %v", err)
			}
		})
	}
}

func TestHubStoreAccepted(t *testing.T) {
	c, err := parse(t, "[hub]\ncluster_listen = \"10.0.0.1:6222\"\npeers = [\"10.0.0.2:6222\", \"10.0.0.3:6222\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Hub.Shared() || c.Hub.StoreReplicas() != 3 {
		t.Fatalf("shared %v replicas %d, want an embedded cluster of 3 replicas", c.Hub.Shared(), c.Hub.StoreReplicas())
	}
	c, err = parse(t, "[hub.store]\nnats = [\"nats://n1:4222\", \"tls://n2:4222\"]\ntoken_env = \"A2ATOP_TEST_NATS_TOKEN_UNSET\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.StoreToken(); err == nil || !strings.Contains(err.Error(), "A2ATOP_TEST_NATS_TOKEN_UNSET is not set") {
		t.Fatalf("StoreToken with the variable unset: %v", err)
	}
	if c, _ := parse(t, ""); c.Hub.Shared() {
		t.Fatal("a config without [hub] shares a record")
	}
}

// TestHubStorePathsExpand: the store's files are taken as the other
// secret files are: "~/" is home, a relative name is beside the config.
func TestHubStorePathsExpand(t *testing.T) {
	c, err := Parse([]byte("[hub]\ncluster_ca_file = \"ca.crt\"\ncluster_cert_file = \"~/hub.crt\"\ncluster_key_file = \"/hub.key\"\ncluster_password_file = \"pw\"\n[hub.store]\nnats = [\"tls://n1:4222\"]\ncreds_file = \"hub.creds\"\nca_file = \"~/ca.pem\"\ncert_file = \"c.pem\"\nkey_file = \"/k.pem\"\n"), "/etc/a2atop/config.toml")
	if err != nil {
		t.Fatal(err)
	}
	c.ExpandPaths()
	home, _ := os.UserHomeDir()
	st := c.Hub.Store
	if h := c.Hub; h.ClusterCAFile != "/etc/a2atop/ca.crt" || h.ClusterCertFile != filepath.Join(home, "hub.crt") || h.ClusterKeyFile != "/hub.key" || h.ClusterPasswordFile != "/etc/a2atop/pw" {
		t.Fatalf("cluster paths: %+v", h)
	}
	if st.CredsFile != "/etc/a2atop/hub.creds" || st.CAFile != filepath.Join(home, "ca.pem") || st.CertFile != "/etc/a2atop/c.pem" || st.KeyFile != "/k.pem" {
		t.Fatalf("paths: %+v", st)
	}
}

// TestHubStoreEventsLimits: events_max_age and events_max_bytes are read
// as the other keys are, the defaults when they are not set.
func TestHubStoreEventsLimits(t *testing.T) {
	c, err := parse(t, "[hub.store]\nnats = [\"nats://n1:4222\"]\nevents_max_age = \"30m\"\nevents_max_bytes = \"1GiB\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if age, size := c.Hub.EventsLimits(); age != 30*time.Minute || size != 1<<30 {
		t.Fatalf("limits %s %d, want 30m and 1GiB", age, size)
	}
	if s := c.Hub.Store.EventsMaxBytes.String(); s != "1GiB" {
		t.Fatalf("events_max_bytes shown as %q", s)
	}
	c, err = parse(t, "[hub]\ncluster_listen = \"127.0.0.1:6222\"\n[hub.store]\nevents_max_bytes = \"512MiB\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if age, size := c.Hub.EventsLimits(); age != DefaultEventsMaxAge || size != 512<<20 {
		t.Fatalf("limits %s %d, want the default age and 512MiB", age, size)
	}
	c, err = parse(t, "[hub.store]\nnats = [\"nats://n1:4222\"]\nevents_max_bytes = 67108864\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, size := c.Hub.EventsLimits(); size != 64<<20 {
		t.Fatalf("events_max_bytes as a whole number: %d, want 64MiB in bytes", size)
	}
	c, err = parse(t, "[hub.store]\nnats = [\"nats://n1:4222\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	if age, size := c.Hub.EventsLimits(); age != 10*time.Minute || size != 256<<20 {
		t.Fatalf("default limits %s %d, want 10m and 256MiB", age, size)
	}
}

func TestHubStoreEventsLimitsRefused(t *testing.T) {
	const nats = "[hub.store]\nnats = [\"nats://n1:4222\"]\n"
	tests := []struct {
		name, doc string
		line      int
		key, msg  string
	}{
		{"age too short", nats + "events_max_age = \"10s\"\n", 3, "hub.store.events_max_age", "from 1m to 168h"},
		{"age too long", nats + "events_max_age = \"720h\"\n", 3, "hub.store.events_max_age", "from 1m to 168h"},
		{"size too small", nats + "events_max_bytes = \"1MiB\"\n", 3, "hub.store.events_max_bytes", "8MiB or more"},
		{"age without a store", "[hub.store]\nevents_max_age = \"1h\"\n", 2, "hub.store.events_max_age", "set [hub.store] nats or cluster_listen"},
		{"size without a store", "[hub.store]\nevents_max_bytes = \"1GiB\"\n", 2, "hub.store.events_max_bytes", "set [hub.store] nats or cluster_listen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, tt.doc)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a config error", err)
			}
			if ce.Line != tt.line || ce.Key != tt.key || !strings.Contains(ce.Msg, tt.msg) {
				t.Fatalf("got %s:%d %s: %s; want line %d key %s saying %q", ce.File, ce.Line, ce.Key, ce.Msg, tt.line, tt.key, tt.msg)
			}
		})
	}
	// What does not parse is refused by the decoder, with the line.
	for _, tt := range []struct{ value, msg string }{
		{`events_max_bytes = "256MB"`, `"256MB" is not a size in KiB, MiB or GiB`},
		{`events_max_bytes = "256"`, `has no unit`},
		{`events_max_bytes = "-1GiB"`, `not a size`},
		{`events_max_age = "ten minutes"`, `invalid duration`},
	} {
		_, err := parse(t, nats+tt.value+"\n")
		key := "hub.store." + strings.Fields(tt.value)[0]
		if err == nil || !strings.Contains(err.Error(), tt.msg) || !strings.HasPrefix(err.Error(), "test.toml:3: "+key+": ") {
			t.Errorf("%s: got %v, want test.toml:3: %s: saying %q", tt.value, err, key, tt.msg)
		}
	}
}
