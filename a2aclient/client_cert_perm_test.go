//go:build unix

package a2aclient

import (
	"crypto/tls"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/internal/testcert"
	"a2atop/model"
)

// A client certificate's key file that other users may read is used, and
// the agent's row and the log say so and what to do (chmod 600); once
// the mode is fixed the row says nothing more.
func TestClientKeyFileReadableByOthersIsWarned(t *testing.T) {
	ca := testcert.NewCA(t, "servers")
	clients := testcert.NewCA(t, "clients")
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	a.Stop()
	var h http.Handler
	addr := startTLS(t, ca, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }), true, clients)
	base := "https://" + addr
	a.Card.SupportedInterfaces = []*a2a.AgentInterface{a2a.NewAgentInterface(base+"/invoke", a2a.TransportProtocolJSONRPC)}
	h = a.Mux() // with the card that names the TLS interface
	id := a.CreateInStore(t, a2a.TaskStateInputRequired)
	cert := clients.Client(t, "a2atop")
	certFile, keyFile := testcert.WriteFiles(t, t.TempDir(), "a2atop", cert)
	must(t, os.Chmod(keyFile, 0o644))
	o := fast("a", base)
	o.Subscribe = false
	o.TLS = &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{cert}}
	o.Auth = AuthOptions{Type: AuthMTLS, ClientCertificate: true, CertFile: certFile, KeyFile: keyFile}
	logs := &syncBuffer{}
	_, c := runManager(t, []AgentOptions{o}, Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	c.waitFor(t, "reached, the row warning of the key file", 10*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return hasTask(evs, "a", id, "") && h != nil && h.State.Up() &&
			strings.Contains(h.Note, keyFile) && strings.Contains(h.Note, "can be read by other users") && strings.Contains(h.Note, "chmod 600")
	})
	if !strings.Contains(logs.String(), "can be read by other users") {
		t.Errorf("the log does not warn of the key file:\n%s", logs.String())
	}
	must(t, os.Chmod(keyFile, 0o600))
	c.waitFor(t, "the row says nothing once the mode is fixed", 10*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return h != nil && h.State.Up() && h.Note == ""
	})
}
