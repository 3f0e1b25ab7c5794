package a2aclient

import (
	"bufio"
	"crypto/tls"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"a2atop/internal/testcert"
	"a2atop/model"
)

// bothSchemes serves one port in TLS and in plain text, as the attack
// needs: it peeks at each connection's first byte (a TLS handshake starts
// with 0x16) and hands it to the TLS server or the plain one. The plain
// side records what it was sent.
type bothSchemes struct {
	addr  string
	plain *headerLog
}

func serveBothSchemes(t *testing.T, tlsCfg *tls.Config, h http.Handler) *bothSchemes {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &bothSchemes{addr: l.Addr().String(), plain: &headerLog{}}
	tlsL, plainL := newChanListener(l.Addr()), newChanListener(l.Addr())
	go func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				tlsL.close()
				plainL.close()
				return
			}
			go func() {
				br := bufio.NewReader(nc)
				first, err := br.Peek(1)
				if err != nil {
					nc.Close()
					return
				}
				pc := &peekedConn{Conn: nc, r: br}
				if first[0] == 0x16 {
					tlsL.ch <- pc
				} else {
					plainL.ch <- pc
				}
			}()
		}
	}()
	tlsSrv := &http.Server{Handler: h, TLSConfig: tlsCfg}
	plainSrv := &http.Server{Handler: b.plain.wrap(h)}
	go tlsSrv.ServeTLS(tlsL, "", "")
	go plainSrv.Serve(plainL)
	t.Cleanup(func() { l.Close(); tlsSrv.Close(); plainSrv.Close() })
	return b
}

type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// chanListener is a net.Listener fed by a channel.
type chanListener struct {
	ch   chan net.Conn
	addr net.Addr
	once sync.Once
	done chan struct{}
}

func newChanListener(addr net.Addr) *chanListener {
	return &chanListener{ch: make(chan net.Conn), addr: addr, done: make(chan struct{})}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}
func (l *chanListener) close()         { l.once.Do(func() { close(l.done) }) }
func (l *chanListener) Close() error   { l.close(); return nil }
func (l *chanListener) Addr() net.Addr { return l.addr }

// https configured, http followed: whether the card's interface, a
// redirect or an allowed host says plain http, the token never goes out
// in clear text on the same host and port. The agent serves both
// schemes on one port, so the plain side would hear any secret sent.
func TestHTTPSConfiguredNeverSendsSecretsInClearText(t *testing.T) {
	for _, what := range []string{"interface", "card-redirect", "call-redirect", "allowed-host"} {
		t.Run(what, func(t *testing.T) {
			ca := testcert.NewCA(t, "a2atop test")
			a := startAgent(t, kindJSONRPC, true, nil)
			a.stop() // its handler serves behind bothSchemes
			var srv *bothSchemes
			handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				plain := r.TLS == nil
				switch {
				case what == "card-redirect" && !plain && r.URL.Path == a2asrv.WellKnownAgentCardPath:
					http.Redirect(w, r, "http://"+srv.addr+r.URL.Path, http.StatusTemporaryRedirect)
					return
				case what == "call-redirect" && !plain && r.URL.Path == "/invoke":
					http.Redirect(w, r, "http://"+srv.addr+r.URL.Path, http.StatusTemporaryRedirect)
					return
				}
				requireBearer("tok-cleartext")(a.mux()).ServeHTTP(w, r)
			})
			srv = serveBothSchemes(t, ca.ServerConfig(t, nil), handler)
			scheme := "https://"
			if what == "interface" || what == "allowed-host" {
				scheme = "http://"
			}
			a.card.SupportedInterfaces = []*a2a.AgentInterface{a2a.NewAgentInterface(scheme+srv.addr+"/invoke", a2a.TransportProtocolJSONRPC)}
			o := fast("a", "https://"+srv.addr)
			o.TLS = &tls.Config{RootCAs: ca.Pool()}
			o.Headers = []Header{{Name: "Authorization", Value: "Bearer tok-cleartext"}, {Name: "X-Api-Key", Value: "key-cleartext"}}
			if what == "allowed-host" {
				o.AllowedHosts = []string{srv.addr}
			}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			c.waitFor(t, "the plain side was reached", 5*time.Second, func([]model.Event) bool { return len(srv.plain.all()) > 0 })
			for _, s := range srv.plain.all() {
				if strings.Contains(s, "cleartext") {
					t.Fatalf("a secret went out in clear text: %q", s)
				}
			}
			if what == "interface" {
				c.waitFor(t, "the row says why", 5*time.Second, func(evs []model.Event) bool {
					h := lastHealth(evs, "a")
					return h != nil && strings.Contains(h.Err, "in plain http") && strings.Contains(h.Err, "never sends credentials in clear text")
				})
			}
		})
	}
}
