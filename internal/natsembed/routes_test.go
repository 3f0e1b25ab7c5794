package natsembed_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"a2atop/internal/natsembed"
	"a2atop/internal/testcert"
)

const routePassword = "route-secret-6d1c0e9f2b"

// syncLog is a log a test reads while the servers write it.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *syncLog) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// secured are routes of TLS with a certificate of ca and the password.
func secured(t *testing.T, ca *testcert.CA, password string) natsembed.Routes {
	cert := ca.Peer(t, "hub")
	return natsembed.Routes{Cert: &cert, CAs: ca.Pool(), Password: password}
}

// startNodes starts one embedded server per route address, each with
// the others as peers and routes[i]'s security.
func startNodes(t *testing.T, addrs []string, routes []natsembed.Routes, logs []*syncLog) []*natsembed.Server {
	t.Helper()
	var srvs []*natsembed.Server
	for i := range addrs {
		var peers []string
		for j := range addrs {
			if j != i {
				peers = append(peers, addrs[j])
			}
		}
		s, err := natsembed.Start(natsembed.Options{Dir: t.TempDir(), ClusterListen: addrs[i], Peers: peers,
			Routes: routes[i], Logger: logs[i].logger()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Stop)
		srvs = append(srvs, s)
	}
	return srvs
}

func newLogs(n int) []*syncLog {
	out := make([]*syncLog, n)
	for i := range out {
		out[i] = &syncLog{}
	}
	return out
}

// TestRoutesOverTLSWithAPassword: three servers whose routes are TLS
// with mutual verification and a password form a JetStream cluster that
// keeps a journal of three replicas; the password appears in no line of
// their logs, at any level.
func TestRoutesOverTLSWithAPassword(t *testing.T) {
	ca := testcert.NewCA(t, "team")
	addrs := freeAddrs(t, 3)
	logs := newLogs(3)
	r := secured(t, ca, routePassword)
	srvs := startNodes(t, addrs, []natsembed.Routes{r, r, r}, logs)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	errs := make(chan error, 3)
	for _, s := range srvs {
		go func() { errs <- open(ctx, s) }()
	}
	for range srvs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i, l := range logs {
		if strings.Contains(l.String(), routePassword) {
			t.Errorf("server %d logged the routes' password", i)
		}
	}
}

// TestRoutesRefuseAPeerWithoutTheRightCredentials: two servers with TLS
// routes of one CA and a password form a cluster; a third that presents
// a certificate of another CA, or none, or the right certificate with
// the wrong password, is refused: it never holds a route.
func TestRoutesRefuseAPeerWithoutTheRightCredentials(t *testing.T) {
	team, other := testcert.NewCA(t, "team"), testcert.NewCA(t, "other")
	wrongCA := secured(t, other, routePassword)
	wrongCA.CAs = x509.NewCertPool() // it trusts the team's CA, but its own certificate is of another
	wrongCA.CAs.AddCert(team.Cert)
	wrongCA.CAs.AddCert(other.Cert)
	for _, tc := range []struct {
		name    string
		routes  natsembed.Routes
		refusal string // in the team's log or the intruder's
	}{
		{"a certificate of another CA", wrongCA, "tls"},
		{"no TLS", natsembed.Routes{Password: routePassword}, "route"},
		{"the wrong password", secured(t, team, "not-the-password"), "authorization"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addrs := freeAddrs(t, 3)
			logs := newLogs(3)
			good := secured(t, team, routePassword)
			srvs := startNodes(t, addrs[:2], []natsembed.Routes{good, good}, logs[:2])
			waitFor(t, "the team's two servers routed to each other", func() bool { return srvs[0].NumRoutes() > 0 && srvs[1].NumRoutes() > 0 })
			intruder, err := natsembed.Start(natsembed.Options{Dir: t.TempDir(), ClusterListen: addrs[2], Peers: addrs[:2],
				Routes: tc.routes, Logger: logs[2].logger()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(intruder.Stop)
			waitFor(t, "a route of the intruder refused, in a log", func() bool {
				for _, l := range logs {
					if refused(l.String(), tc.refusal) {
						return true
					}
				}
				return false
			})
			for i, s := range srvs {
				names := routedTo(t, s)
				if names[intruder.Name()] {
					t.Errorf("team server %d holds a route to the intruder:\n%s", i, logs[i].String())
				}
				if len(names) == 0 {
					t.Errorf("team server %d lost its route to the other", i)
				}
			}
		})
	}
}

// routedTo is the names of the servers s holds a route to.
func routedTo(t *testing.T, s *natsembed.Server) map[string]bool {
	t.Helper()
	rz, err := s.Routez(&server.RoutezOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, r := range rz.Routes {
		out[r.RemoteName] = true
	}
	return out
}

// refused reports whether a log holds an error line that mentions what.
func refused(log, what string) bool {
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "level=ERROR") && strings.Contains(strings.ToLower(l), what) {
			return true
		}
	}
	return false
}

// TestClientListenStaysOnLoopback: the hub's own connection to its
// server never listens beyond this machine.
func TestClientListenStaysOnLoopback(t *testing.T) {
	_, err := natsembed.Start(natsembed.Options{Dir: t.TempDir(), ClusterListen: freeAddrs(t, 1)[0], ClientListen: "0.0.0.0:0"})
	if err == nil || !strings.Contains(err.Error(), "is not a loopback address") {
		t.Fatalf("Start with a client port on every interface = %v, want it refused", err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("%s: not within 60s", what)
}
