package a2aclient

import (
	"crypto/tls"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"a2atop/internal/sdktest"
	"a2atop/internal/testcert"
	"a2atop/model"
)

// startTLS serves h over TLS on loopback with ca's server certificate,
// asking (not requiring) a client certificate when clients is nil.
func startTLS(t *testing.T, ca *testcert.CA, h http.Handler, require bool, clients *testcert.CA) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := ca.ServerConfig(t, nil)
	cfg.ClientAuth = tls.RequestClientCert
	if require {
		cfg = ca.ServerConfig(t, clients.Pool())
	}
	srv := &http.Server{Handler: h, TLSConfig: cfg, ErrorLog: discardLog()}
	go srv.ServeTLS(l, "", "")
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

// The client certificate is presented to the agent's own origin and to
// allowed_hosts only: a card fetch redirected to another https origin
// that asks for a certificate gets none (before, every server that asked
// got it), and one in allowed_hosts gets it.
func TestClientCertificateOnlyToAllowedOrigins(t *testing.T) {
	ca := testcert.NewCA(t, "servers")
	clients := testcert.NewCA(t, "clients")
	for _, allow := range []bool{false, true} {
		name := map[bool]string{false: "other origin", true: "allowed host"}[allow]
		t.Run(name, func(t *testing.T) {
			seen := &presented{}
			otherAddr := startTLS(t, ca, seen.wrap(http.NotFoundHandler()), false, nil)
			a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
			a.Stop()
			redirect := func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == a2asrv.WellKnownAgentCardPath {
						http.Redirect(w, r, "https://"+otherAddr+r.URL.Path, http.StatusTemporaryRedirect)
						return
					}
					next.ServeHTTP(w, r)
				})
			}
			mine := &presented{}
			addr := startTLS(t, ca, mine.wrap(redirect(a.Mux())), true, clients)
			o := fast("a", "https://"+addr)
			o.TLS = &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{clients.Client(t, "a2atop")}}
			o.Auth = AuthOptions{Type: AuthMTLS, ClientCertificate: true}
			if allow {
				o.AllowedHosts = []string{otherAddr}
			}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			mine.waitSince(t, 0, "a2atop") // the agent itself gets it
			c.waitFor(t, "the redirected card fetch answered", 10*time.Second, func(evs []model.Event) bool {
				h := lastHealth(evs, "a")
				return h != nil && h.State != model.HealthConnecting
			})
			if got := seen.snapshot(); allow != (len(got) > 0) {
				t.Errorf("the redirect's origin got the client certificate %d times; want it %v", len(got), allow)
			}
		})
	}
}

// A gRPC interface on another port that requires the client certificate
// gets it when its host:port is in allowed_hosts (the connection is
// dialled outside net/http: tlsFor decides for its origin), and not
// otherwise.
func TestClientCertificateToGRPCInterface(t *testing.T) {
	ca := testcert.NewCA(t, "servers")
	clients := testcert.NewCA(t, "clients")
	for _, allow := range []bool{true, false} {
		t.Run(map[bool]string{true: "allowed host", false: "other origin"}[allow], func(t *testing.T) {
			g := sdktest.Start(t, sdktest.GRPC, false, nil)
			g.Stop()
			g.GOpts = []grpc.ServerOption{grpc.Creds(credentials.NewTLS(ca.ServerConfig(t, clients.Pool())))}
			g.Start()
			id := g.CreateInStore(t, a2a.TaskStateInputRequired)
			cardAddr := startTLS(t, ca, g.Mux(), false, nil) // the card, over https: nothing goes in plain http to an https agent
			o := fast("g", "https://"+cardAddr)
			o.TLS = &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{clients.Client(t, "a2atop")}}
			o.Auth = AuthOptions{Type: AuthMTLS, ClientCertificate: true}
			if allow {
				o.AllowedHosts = []string{g.GAddr}
			}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			if allow {
				c.waitFor(t, "the task over gRPC with the certificate", 10*time.Second, func(evs []model.Event) bool { return hasTask(evs, "g", id, "") })
				return
			}
			c.waitFor(t, "refused for want of a certificate", 10*time.Second, func(evs []model.Event) bool {
				h := lastHealth(evs, "g")
				return h != nil && !h.State.Up() && h.State != model.HealthConnecting
			})
			if hasTask(c.snapshot(), "g", id, "") {
				t.Fatal("the gRPC interface on another origin was reached with the client certificate")
			}
		})
	}
}
