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

	"a2atop/internal/sdktest"
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
// redirect or an allowed host says plain http, nothing goes out in clear
// text on the same host and port — no token, and no request either. The
// agent serves both schemes on one port, so the plain side would hear
// anything sent.
func TestHTTPSConfiguredNeverSendsSecretsInClearText(t *testing.T) {
	for _, what := range []string{"interface", "card-redirect", "call-redirect", "allowed-host"} {
		t.Run(what, func(t *testing.T) {
			ca := testcert.NewCA(t, "a2atop test")
			a := sdktest.Start(t, sdktest.JSONRPC, true, nil)
			a.Stop() // its handler serves behind bothSchemes
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
				sdktest.RequireBearer("tok-cleartext")(a.Mux()).ServeHTTP(w, r)
			})
			srv = serveBothSchemes(t, ca.ServerConfig(t, nil), handler)
			scheme := "https://"
			if what == "interface" || what == "allowed-host" {
				scheme = "http://"
			}
			a.Card.SupportedInterfaces = []*a2a.AgentInterface{a2a.NewAgentInterface(scheme+srv.addr+"/invoke", a2a.TransportProtocolJSONRPC)}
			o := fast("a", "https://"+srv.addr)
			o.TLS = &tls.Config{RootCAs: ca.Pool()}
			o.Headers = []Header{{Name: "Authorization", Value: "Bearer tok-cleartext"}, {Name: "X-Api-Key", Value: "key-cleartext"}}
			if what == "allowed-host" {
				o.AllowedHosts = []string{srv.addr}
			}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			c.waitFor(t, "the row says why", 5*time.Second, func(evs []model.Event) bool {
				h := lastHealth(evs, "a")
				return h != nil && strings.Contains(h.Err, "in plain http") && strings.Contains(h.Err, "a2atop sends nothing in clear text")
			})
			time.Sleep(300 * time.Millisecond) // a sweep or a retry that would go
			if seen := srv.plain.all(); len(seen) > 0 {
				t.Fatalf("the plain side was sent %q", seen)
			}
		})
	}
}

// plainListener is a plain-http server on loopback that serves h and
// records every connection and request it is sent: an agent configured
// https must never reach it.
type plainListener struct {
	addr  string
	mu    sync.Mutex
	conns int
	reqs  []string
}

func listenPlain(t *testing.T, h http.Handler) *plainListener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &plainListener{addr: l.Addr().String()}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p.mu.Lock()
			p.reqs = append(p.reqs, r.Method+" "+r.URL.Path)
			p.mu.Unlock()
			h.ServeHTTP(w, r)
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				p.mu.Lock()
				p.conns++
				p.mu.Unlock()
			}
		},
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return p
}

func (p *plainListener) seen() (int, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conns, append([]string(nil), p.reqs...)
}

// listenTLS serves h over TLS on loopback and returns its host:port.
func listenTLS(t *testing.T, cfg *tls.Config, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, TLSConfig: cfg}
	go srv.ServeTLS(l, "", "")
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

// An agent configured https whose card names an interface in plain http
// (JSON-RPC, REST, gRPC without TLS), or whose card or calls redirect to
// http: nothing goes over http — no connection, no request, no body —
// and the row says why. When the card offers an https interface as well,
// a2atop uses that one.
func TestHTTPSAgentSendsNothingOverHTTP(t *testing.T) {
	for _, what := range []string{"jsonrpc", "rest", "grpc", "http-then-https", "card-redirect", "call-redirect"} {
		t.Run(what, func(t *testing.T) {
			ca := testcert.NewCA(t, "a2atop test")
			a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
			a.Stop() // its handler serves over TLS below, and over plain http on the recorder
			id := a.CreateInStore(t, a2a.TaskStateInputRequired)
			plain := listenPlain(t, a.Mux())
			var tlsAddr string
			tlsAddr = listenTLS(t, ca.ServerConfig(t, nil), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case what == "card-redirect" && r.URL.Path == a2asrv.WellKnownAgentCardPath,
					what == "call-redirect" && r.URL.Path == "/invoke":
					http.Redirect(w, r, "http://"+plain.addr+r.URL.Path, http.StatusTemporaryRedirect)
					return
				}
				a.Mux().ServeHTTP(w, r)
			}))
			secure := a2a.NewAgentInterface("https://"+tlsAddr+"/invoke", a2a.TransportProtocolJSONRPC)
			a.Card.SupportedInterfaces = map[string][]*a2a.AgentInterface{
				"jsonrpc":         {a2a.NewAgentInterface("http://"+plain.addr+"/invoke", a2a.TransportProtocolJSONRPC)},
				"rest":            {a2a.NewAgentInterface("http://"+plain.addr+"/rest", a2a.TransportProtocolHTTPJSON)},
				"grpc":            {a2a.NewAgentInterface("http://"+plain.addr, a2a.TransportProtocolGRPC)},
				"http-then-https": {a2a.NewAgentInterface("http://"+plain.addr+"/invoke", a2a.TransportProtocolJSONRPC), secure},
				"card-redirect":   {secure},
				"call-redirect":   {secure},
			}[what]
			o := fast("a", "https://"+tlsAddr)
			o.TLS = &tls.Config{RootCAs: ca.Pool()}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			if what == "http-then-https" {
				c.waitFor(t, "watched over https", 5*time.Second, func(evs []model.Event) bool {
					info := lastInfo(evs, "a")
					return hasTask(evs, "a", id, "") && info != nil && info.InterfaceURL == secure.URL
				})
			} else {
				c.waitFor(t, "the row says why", 5*time.Second, func(evs []model.Event) bool {
					h := lastHealth(evs, "a")
					return h != nil && strings.Contains(h.Err, "plain http") &&
						strings.Contains(h.Err, "a2atop sends nothing in clear text to an agent configured https")
				})
				if what != "call-redirect" && lastInfo(c.snapshot(), "a") != nil {
					t.Errorf("an agent refused for its card was shown as connected:\n%s", dump(c.snapshot()))
				}
			}
			time.Sleep(300 * time.Millisecond) // a sweep, a stream, a retry that would go
			if n, reqs := plain.seen(); n > 0 || len(reqs) > 0 {
				t.Fatalf("the plain-http listener was sent %d connections and requests %q", n, reqs)
			}
		})
	}
}
