package a2aclient

import (
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/internal/testcert"
	"a2atop/model"
)

// An agent that requires a client certificate (a real TLS server asking
// for one signed by its CA) is reached with one, and refused without one
// (or with one of another CA), in words that say what to configure.
func TestMTLSAgent(t *testing.T) {
	ca := testcert.NewCA(t, "agents")
	clients := testcert.NewCA(t, "clients")
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	a.Stop()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "https://" + l.Addr().String()
	a.Card.SupportedInterfaces = []*a2a.AgentInterface{a2a.NewAgentInterface(base+"/invoke", a2a.TransportProtocolJSONRPC)}
	srv := &http.Server{Handler: a.Mux(), TLSConfig: ca.ServerConfig(t, clients.Pool()), ErrorLog: discardLog()}
	go srv.ServeTLS(l, "", "")
	t.Cleanup(func() { srv.Close() })
	id := a.CreateInStore(t, a2a.TaskStateInputRequired)

	for _, tc := range []struct {
		name string
		cert *tls.Certificate
		ok   bool
	}{
		{"with", ptr(clients.Client(t, "a2atop")), true},
		{"without", nil, false},
		{"another-ca", ptr(testcert.NewCA(t, "elsewhere").Client(t, "a2atop")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := fast("a", base)
			o.TLS = &tls.Config{RootCAs: ca.Pool()}
			if tc.cert != nil {
				o.TLS.Certificates = []tls.Certificate{*tc.cert}
				o.Auth = AuthOptions{Type: AuthMTLS, ClientCertificate: true}
			}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			if tc.ok {
				c.waitFor(t, "reached with a certificate", 5*time.Second, func(evs []model.Event) bool { return hasTask(evs, "a", id, "") })
				return
			}
			c.waitFor(t, "refused in words", 5*time.Second, func(evs []model.Event) bool {
				h := lastHealth(evs, "a")
				return h != nil && h.State == model.HealthUnreachable && strings.Contains(h.Err, "client certificate") &&
					strings.Contains(h.Err, "cert_file")
			})
		})
	}
}

func ptr[T any](v T) *T { return &v }

// discardLog is a *log.Logger that drops what the TLS server logs.
func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }
