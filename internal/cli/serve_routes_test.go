package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"a2atop/demo"
	"a2atop/internal/agenttest"
	"a2atop/internal/testcert"
)

// clusterFiles are one hub's route TLS files and password file.
type clusterFiles struct{ ca, cert, key, password string }

// writeClusterFiles writes a peer certificate of ca (for loopback, both
// ways), the CA and a password file in dir.
func writeClusterFiles(t *testing.T, dir string, ca *testcert.CA) clusterFiles {
	t.Helper()
	var f clusterFiles
	f.cert, f.key = testcert.WriteFiles(t, dir, "hub", ca.Peer(t, "hub"))
	f.ca = ca.WriteCA(t, dir)
	f.password = filepath.Join(dir, "cluster.password")
	if err := os.WriteFile(f.password, []byte("route-pass-5f0e1d2c3b4a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// addHubTable appends a [hub] table of keys = values to the config.
func addHubTable(t *testing.T, cfg string, kv ...string) {
	t.Helper()
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintln(f, "[hub]")
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(f, "%s = %q\n", kv[i], kv[i+1])
	}
}

// serveFails runs serve with args and returns its stderr; it must end
// with a failure.
func serveFails(t *testing.T, cfg string, args ...string) string {
	t.Helper()
	var out, errOut syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := run(ctx, append([]string{"serve", "--config", cfg, "--listen", "127.0.0.1:0"}, args...), Streams{Out: &out, Err: &errOut})
	if code == exitOK {
		t.Fatalf("serve %v ended well, want a failure: %q", args, out.String())
	}
	return errOut.String()
}

// TestServeClusterBeyondLoopbackWithTLS: with the routes' TLS files, a
// cluster address beyond loopback needs no --insecure: serve goes on to
// the next step (here the peers' addresses, refused before anything
// listens); without them it is refused naming the keys.
func TestServeClusterBeyondLoopbackWithTLS(t *testing.T) {
	ag := agenttest.StartAgent(t)
	dir := t.TempDir()
	files := writeClusterFiles(t, dir, testcert.NewCA(t, "team"))
	args := []string{"--cluster-listen", "192.0.2.1:6222", "--peers", "not-an-address"}
	plain := writeHubConfig(t, t.TempDir(), []demo.Agent{{Name: "agent", URL: ag.URL}}, time.Second)
	if e := serveFails(t, plain, args...); !strings.Contains(e, "192.0.2.1:6222 is not a loopback address") || !strings.Contains(e, "cluster_cert_file") {
		t.Fatalf("without TLS: %q, want the address refused, naming cluster_cert_file", e)
	}
	withTLS := writeHubConfig(t, t.TempDir(), []demo.Agent{{Name: "agent", URL: ag.URL}}, time.Second)
	addHubTable(t, withTLS, "cluster_ca_file", files.ca, "cluster_cert_file", files.cert, "cluster_key_file", files.key)
	e := serveFails(t, withTLS, args...)
	if strings.Contains(e, "not a loopback address") || !strings.Contains(e, `--peers "not-an-address"`) {
		t.Fatalf("with TLS in [hub]: %q, want it past the loopback check, refused on --peers", e)
	}
	e = serveFails(t, plain, append(args, "--cluster-ca-file", files.ca, "--cluster-cert-file", files.cert, "--cluster-key-file", files.key)...)
	if strings.Contains(e, "not a loopback address") || !strings.Contains(e, `--peers "not-an-address"`) {
		t.Fatalf("with TLS by flags: %q, want it past the loopback check, refused on --peers", e)
	}
}

// TestServeClusterRoutesBadFiles: a missing or malformed TLS file, a
// certificate the routes cannot use both ways, a password from an unset
// variable: serve does not start, and says which key (or flag) and why;
// never the password.
func TestServeClusterRoutesBadFiles(t *testing.T) {
	ag := agenttest.StartAgent(t)
	dir := t.TempDir()
	ca := testcert.NewCA(t, "team")
	good := writeClusterFiles(t, dir, ca)
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	serverCert, serverKey := testcert.WriteFiles(t, dir, "server-only", ca.Server(t))
	otherCA := testcert.NewCA(t, "other").WriteCA(t, t.TempDir())
	missing := filepath.Join(dir, "missing.pem")
	route := loopbackPorts(t, 1)[0]
	for _, tc := range []struct {
		name  string
		hub   []string // [hub] keys and values
		flags []string
		want  []string
	}{
		{"missing cert", []string{"cluster_ca_file", good.ca, "cluster_cert_file", missing, "cluster_key_file", good.key}, nil,
			[]string{"hub.cluster_cert_file: cannot load the certificate " + missing}},
		{"malformed CA", []string{"cluster_ca_file", garbage, "cluster_cert_file", good.cert, "cluster_key_file", good.key}, nil,
			[]string{"hub.cluster_ca_file: " + garbage + " holds no PEM certificate"}},
		{"missing CA by flag", nil, []string{"--cluster-ca-file", missing, "--cluster-cert-file", good.cert, "--cluster-key-file", good.key},
			[]string{"--cluster-ca-file: cannot read " + missing}},
		{"malformed key", []string{"cluster_ca_file", good.ca, "cluster_cert_file", good.cert, "cluster_key_file", garbage}, nil,
			[]string{"hub.cluster_cert_file: cannot load the certificate", "(hub.cluster_key_file)"}},
		{"key without the others by flag", nil, []string{"--cluster-key-file", good.key},
			[]string{"hub.cluster_ca_file: hub.cluster_ca_file, hub.cluster_cert_file and --cluster-key-file go together"}},
		{"server-only certificate", []string{"cluster_ca_file", good.ca, "cluster_cert_file", serverCert, "cluster_key_file", serverKey}, nil,
			[]string{"hub.cluster_cert_file: " + serverCert + ": not valid as a TLS client's certificate"}},
		{"certificate of another CA", []string{"cluster_ca_file", otherCA, "cluster_cert_file", good.cert, "cluster_key_file", good.key}, nil,
			[]string{"hub.cluster_cert_file: " + good.cert + ": not valid as a TLS server's certificate under the cluster's CA"}},
		{"password from an unset variable", []string{"cluster_password_env", "A2ATOP_TEST_UNSET_ROUTE_PASSWORD"}, nil,
			[]string{"hub.cluster_password_env: environment variable A2ATOP_TEST_UNSET_ROUTE_PASSWORD is not set or empty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeHubConfig(t, t.TempDir(), []demo.Agent{{Name: "agent", URL: ag.URL}}, time.Second)
			if tc.hub != nil {
				addHubTable(t, cfg, tc.hub...)
			}
			e := serveFails(t, cfg, append([]string{"--cluster-listen", route}, tc.flags...)...)
			for _, w := range tc.want {
				if !strings.Contains(e, w) {
					t.Errorf("stderr %q\nwant %q", e, w)
				}
			}
			if strings.Contains(e, "route-pass-") {
				t.Errorf("stderr shows the routes' password: %q", e)
			}
		})
	}
}
