package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	gossh "golang.org/x/crypto/ssh"

	"a2atop/hub"
	"a2atop/hubclient"
	"a2atop/internal/sshd"
)

// sshListenUsage is --ssh-listen's help: what it serves and how an
// operator checks the host key.
const sshListenUsage = "serve the dashboard over SSH on `ADDR` (host:port; ssh_listen in the config): an [[operator]] with ssh_authorized_keys or " +
	"ssh_authorized_keys_file connects with ssh -t -p PORT HOST [tasks|inbox|agents|journal]. The host key (ed25519) is made on the first start beside the journal " +
	"(" + sshd.HostKeyFile + ", 0600) and its fingerprint printed at every start: on an operator's first connection ssh shows the fingerprint " +
	"of the key it is offered; it must be the printed one (or put the host's key in their known_hosts beforehand)"

// sshAccess is what the SSH server of a hub needs from serve: its
// operators' keys, and for each the token of their sessions. That token
// is made at start, kept in memory only, and reaches the hub over an
// in-memory connection alone: an SSH session's dashboard is attached to
// the hub's own HTTP API as that operator, so its roles, claims and
// refusals are exactly those of `a2atop --hub`.
type sshAccess struct {
	ops    []sshd.Operator
	tokens map[string]string // operator -> the sessions' token
}

// sshOperators reads the operators' SSH keys and adds to ops, for each
// operator with keys, an entry that is that operator (its name, roles,
// groups) but for its token, which is their sessions'. It says nothing when SSH is off.
func (s *session) sshOperators(ops []hub.Operator) ([]hub.Operator, *sshAccess, error) {
	keys, err := s.cfg.SSHKeys()
	if err != nil {
		return nil, nil, err
	}
	acc := &sshAccess{tokens: map[string]string{}}
	for _, op := range ops {
		if len(keys[op.Name]) == 0 {
			continue
		}
		if _, err := s.operatorLook(op.Name, nil); err != nil { // refused at start, not at a session
			return nil, nil, err
		}
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, nil, err
		}
		tok := hex.EncodeToString(b[:])
		acc.tokens[op.Name] = tok
		acc.ops = append(acc.ops, sshd.Operator{Name: op.Name, Keys: keys[op.Name]})
		session := op // the same operator (roles, groups, all of it), with the sessions' token
		session.TokenHash = hub.HashToken(tok)
		ops = append(ops, session)
	}
	return ops, acc, nil
}

// serveSSH serves the dashboard over SSH on addr, attached to the hub
// handler h serves, at url (as the header names it). The host key is
// the state directory's (beside the journal). stop closes every
// session, their claims released, and stops the in-memory server.
func (s *session) serveSSH(h http.Handler, addr, url string, acc *sshAccess) (stop func(), err error) {
	keyPath := filepath.Join(filepath.Dir(s.cfg.JournalPath), sshd.HostKeyFile)
	key, created, err := sshd.HostKey(keyPath)
	if err != nil {
		return nil, err
	}
	mem := newPipeListener()
	api := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = api.Serve(mem) }()
	tr := &http.Transport{DialContext: mem.dial, ForceAttemptHTTP2: false, MaxIdleConnsPerHost: 4}
	idle, most := s.cfg.SSHTimeouts()
	srv, err := sshd.New(sshd.Options{HostKey: key, Operators: acc.ops, Logger: s.log, IdleTimeout: idle, MaxSessions: most,
		NewProgram: NewProgram, Dashboard: s.sshDashboard(memURL(url), acc.tokens, tr)})
	if err != nil {
		mem.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		mem.Close()
		return nil, fmt.Errorf("listen for SSH on %s: %w", addr, err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	s.announceSSH(ln.Addr().String(), keyPath, key.PublicKey(), created, len(acc.ops))
	if s.sshServed != nil {
		s.sshServed(ln.Addr().String(), strings.TrimSpace(string(gossh.MarshalAuthorizedKey(key.PublicKey()))))
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		if err := <-served; err != nil && !errors.Is(err, sshd.ErrServerClosed) {
			s.log.Warn("serving SSH", logKeyErr, err)
		}
		_ = api.Shutdown(ctx)
		tr.CloseIdleConnections()
	}, nil
}

// memURL is the URL an SSH session's client of the hub at url uses: plain
// http (the in-memory connection speaks no TLS, and needs none: it never
// leaves the process) on loopback, at the hub's port for the header.
func memURL(url string) string {
	_, hostPort, _ := strings.Cut(url, "://")
	_, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		port = "0"
	}
	return "http://" + net.JoinHostPort("127.0.0.1", port)
}

// sshDashboard builds a session's dashboard: the operator's, as `a2atop
// --hub` builds it, on a client of the hub over the in-memory transport,
// with the operator's look from the hub's config, the client's colours,
// the screen asked for and "alice via ssh" in the footer.
func (s *session) sshDashboard(url string, tokens map[string]string, tr http.RoundTripper) sshd.Dashboard {
	return func(ss sshd.Session) (tea.Model, []tea.ProgramOption, func(), error) {
		cl, err := hubclient.New(hubclient.Options{URL: url, Token: tokens[ss.Operator], Logger: s.log.With("ssh", ss.Operator), Transport: tr})
		if err != nil {
			return nil, nil, nil, err
		}
		me, err := cl.Me(ss.Context)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("the hub did not say who %s is: %v", ss.Operator, err)
		}
		look, err := s.operatorLook(ss.Operator, &ss)
		if err != nil {
			return nil, nil, nil, err
		}
		m, svc, err := s.hubDashboardFor(cl, me, look)
		if err != nil {
			return nil, nil, nil, err
		}
		ctx, stop := context.WithCancel(context.Background())
		d := &hubDash{s: s, m: m, svc: svc, cl: cl, stop: stop, ran: make(chan struct{})}
		go func() { cl.Run(ctx); close(d.ran) }()
		opts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithFPS(FrameRate)}
		return m, opts, func() { d.close(nil) }, nil
	}
}

// announceSSH says where SSH listens and the host key's fingerprint, to
// check against what ssh shows on the first connection.
func (s *session) announceSSH(addr, keyPath string, pub gossh.PublicKey, created bool, operators int) {
	fp := sshd.Fingerprint(pub)
	how := "from " + keyPath
	if created {
		how = "new, written to " + keyPath
	}
	host, port, _ := net.SplitHostPort(addr)
	fmt.Fprintf(s.st.Out, "a2atop serve: SSH on %s for %d operators; host key %s %s (%s)\n", addr, operators, pub.Type(), fp, how)
	fmt.Fprintf(s.st.Out, "a2atop serve: operators connect with ssh -t -p %s %s; on the first connection check that ssh shows %s\n", port, host, fp)
	s.log.Info("ssh listening", "addr", addr, "fingerprint", fp, "host_key", keyPath, "new", created, "operators", operators)
}

// operatorLook is the dashboard of the named operator over SSH as the
// hub's config makes it (their theme, keys and views, else the top of
// the file's), drawn with the session's renderer (nil: checked only).
func (s *session) operatorLook(name string, ss *sshd.Session) (hubView, error) {
	cfg, err := s.cfg.OperatorLook(name)
	if err != nil {
		return hubView{}, err
	}
	if cfg == nil {
		return hubView{}, fmt.Errorf("operator %s is not in the hub's config", name)
	}
	hv := hubView{cfg: cfg, out: s.st.Out}
	var r *lipgloss.Renderer
	if ss != nil {
		r, hv.out, hv.start, hv.via = ss.Renderer, ss.Output, ss.Screen, name+" via ssh"
	}
	hv.look, err = dashboardLookOn(cfg, r)
	return hv, err
}

// pipeListener is an in-memory listener: dial hands the server one end
// of a net.Pipe. The hub's API reaches SSH sessions' clients through it
// without a port.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, net.ErrClosed
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "in-memory" }
