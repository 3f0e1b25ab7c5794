package a2aclient

import (
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/agenttest"
	"a2atop/internal/sdktest"
	"a2atop/internal/testcert"
	"a2atop/model"
)

// presented records the client certificate of every request a TLS
// server accepted, by its common name, in order.
type presented struct {
	mu    sync.Mutex
	names []string
}

func (p *presented) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			p.mu.Lock()
			p.names = append(p.names, r.TLS.PeerCertificates[0].Subject.CommonName)
			p.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

func (p *presented) snapshot() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.names)
}

// waitSince waits until a request after the first n presented name, and
// returns how many there are then.
func (p *presented) waitSince(t *testing.T, n int, name string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if s := p.snapshot(); slices.Contains(s[min(n, len(s)):], name) {
			return len(s)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s := p.snapshot()[n:]
	t.Fatalf("no connection presented %q; the last since then: %v", name, s[max(len(s)-5, 0):])
	return 0
}

// pemPair is a certificate and its key as PEM.
type pemPair struct{ cert, key []byte }

func pemOf(t *testing.T, c tls.Certificate) pemPair {
	t.Helper()
	cf, kf := testcert.WriteFiles(t, t.TempDir(), "pair", c)
	cert, err := os.ReadFile(cf)
	if err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile(kf)
	if err != nil {
		t.Fatal(err)
	}
	return pemPair{cert, key}
}

// replace writes data to path whole, through a rename, as cert-manager
// and most renewers do.
func replace(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a log sink the test reads while the code writes.
type syncBuffer = agenttest.Buffer

// A client certificate rotated on disk is presented by the next new
// connection, with no restart. Files that do not make a usable pair
// (a certificate caught half written, a key of another certificate)
// leave the previous certificate presented, and the agent's row and the
// log say why, with no key material; once the files are whole again
// their certificate is presented and the row says nothing more.
func TestClientCertificateRotates(t *testing.T) {
	ca := testcert.NewCA(t, "agents")
	clients := testcert.NewCA(t, "clients")
	seen := &presented{}
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	a.Stop()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "https://" + l.Addr().String()
	a.Card.SupportedInterfaces = []*a2a.AgentInterface{a2a.NewAgentInterface(base+"/invoke", a2a.TransportProtocolJSONRPC)}
	srv := &http.Server{Handler: seen.wrap(a.Mux()), TLSConfig: ca.ServerConfig(t, clients.Pool()), ErrorLog: discardLog()}
	srv.SetKeepAlivesEnabled(false) // every request a new connection, a new handshake
	go srv.ServeTLS(l, "", "")
	t.Cleanup(func() { srv.Close() })
	id := a.CreateInStore(t, a2a.TaskStateInputRequired)

	first := clients.Client(t, "first")
	certFile, keyFile := testcert.WriteFiles(t, t.TempDir(), "a2atop", first)
	o := fast("a", base)
	o.Subscribe = false
	o.TLS = &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{first}} // as the config loads it
	o.Auth = AuthOptions{Type: AuthMTLS, ClientCertificate: true, CertFile: certFile, KeyFile: keyFile}
	logs := &syncBuffer{}
	_, c := runManager(t, []AgentOptions{o}, Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	c.waitFor(t, "reached with the first certificate", 10*time.Second, func(evs []model.Event) bool { return hasTask(evs, "a", id, "") })
	n := seen.waitSince(t, 0, "first")

	second, third := pemOf(t, clients.Client(t, "second")), pemOf(t, clients.Client(t, "third"))
	replace(t, keyFile, second.key)
	replace(t, certFile, second.cert)
	n = seen.waitSince(t, n, "second")
	c.waitFor(t, "a row with nothing to say", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return h != nil && h.State.Up() && h.Note == ""
	})

	// Broken: the new key is in place, its certificate half written; then
	// the certificate of another key.
	replace(t, keyFile, third.key)
	if err := os.WriteFile(certFile, third.cert[:len(third.cert)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name  string
		write func()
		words string
	}{
		{"half written", func() {}, "cannot be used (tls: failed to find any PEM data in certificate input)"},
		{"another key", func() { replace(t, certFile, second.cert) }, "private key does not match public key"},
	} {
		step.write()
		var note string
		c.waitFor(t, step.name+": said on the row", 10*time.Second, func(evs []model.Event) bool {
			h := lastHealth(evs, "a")
			if h != nil && h.State.Up() && strings.Contains(h.Note, step.words) {
				note = h.Note
				return true
			}
			return false
		})
		for _, want := range []string{"client certificate not renewed", certFile, keyFile, "presenting the previous certificate, valid until"} {
			if !strings.Contains(note, want) {
				t.Errorf("%s: the row says %q, want it to say %q", step.name, note, want)
			}
		}
		m := seen.waitSince(t, n, "second")
		m = seen.waitSince(t, m, "second")
		if got := seen.snapshot()[n:m]; slices.Contains(got, "third") {
			t.Errorf("%s: a broken pair was presented: %v", step.name, got)
		}
		n = m
	}

	replace(t, certFile, third.cert)
	seen.waitSince(t, n, "third")
	c.waitFor(t, "the row says nothing once the files are whole", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return h != nil && h.State.Up() && h.Note == ""
	})

	log := logs.String()
	if !strings.Contains(log, "the client certificate's files cannot be used") || !strings.Contains(log, "client certificate read from its files") {
		t.Errorf("the log does not say what became of the files:\n%s", log)
	}
	for _, key := range [][]byte{second.key, third.key} {
		body := strings.Split(strings.TrimSpace(string(key)), "\n")
		for _, line := range body[1 : len(body)-1] {
			if strings.Contains(log, line) {
				t.Fatalf("the log holds key material: %q", line)
			}
		}
	}
}
