package sshd

import (
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"a2atop/internal/agenttest"
)

// shown is the smallest program: it draws one word until it quits.
type shown struct{}

func (shown) Init() tea.Cmd                       { return nil }
func (shown) Update(tea.Msg) (tea.Model, tea.Cmd) { return shown{}, nil }
func (shown) View() string                        { return "ready" }

// fixture is a real server on loopback for one operator, alice, whose
// key the test holds; its log is read while it writes.
type fixture struct {
	key    gossh.Signer // the host's
	client gossh.Signer // alice's
	log    *agenttest.Buffer
	srv    *Server
	ln     net.Listener
}

// serve starts a server for alice on a new host key; o gives the rest
// of its Options (HostKey, Operators and Logger are the fixture's).
func serve(t *testing.T, o Options) *fixture {
	t.Helper()
	key, _, err := HostKey(filepath.Join(t.TempDir(), HostKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	client, _ := gossh.NewSignerFromKey(priv)
	fx := &fixture{key: key, client: client, log: &agenttest.Buffer{}}
	o.HostKey, o.Logger = key, slog.New(slog.NewTextHandler(fx.log, nil))
	o.Operators = []Operator{{Name: "alice", Keys: []gossh.PublicKey{client.PublicKey()}}}
	if fx.srv, err = New(o); err != nil {
		t.Fatal(err)
	}
	if fx.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	go func() { _ = fx.srv.Serve(fx.ln) }()
	t.Cleanup(func() { fx.srv.Close() })
	return fx
}

// dial signs in as alice at addr ("": the server's own address).
func (fx *fixture) dial(t *testing.T, addr string) *gossh.Client {
	t.Helper()
	if addr == "" {
		addr = fx.ln.Addr().String()
	}
	cl, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "alice", Auth: []gossh.AuthMethod{gossh.PublicKeys(fx.client)},
		HostKeyCallback: gossh.FixedHostKey(fx.key.PublicKey()), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// shell opens a session with a terminal and its shell, and reads its
// output until the program has drawn "ready". Its input stays open
// until the test ends: a client at its keys.
func shell(t *testing.T, cl *gossh.Client) {
	t.Helper()
	sess, err := cl.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm", 24, 80, nil); err != nil {
		t.Fatal(err)
	}
	out, _ := sess.StdoutPipe()
	stdin, _ := sess.StdinPipe()
	t.Cleanup(func() { stdin.Close() })
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, out, "ready")
}

// waitDrawn reads out until it has shown word.
func waitDrawn(t *testing.T, out io.Reader, word string) {
	t.Helper()
	var seen strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(seen.String(), word) {
		n, err := out.Read(buf)
		seen.Write(buf[:n])
		if err != nil {
			t.Fatalf("the session drew %q, then %v", seen.String(), err)
		}
	}
}
