package cli

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"a2atop/demo"
)

// sshHub is a hub serving SSH in this process: its URL, SSH address and
// host key fingerprint as it printed them, and its log.
type sshHub struct {
	url, addr, fingerprint, log string
	out                         *syncBuffer
}

// sshKeys are the test operators' keys: alice has two (one inline, one
// in a file), bob one.
type sshKeys struct{ alice, alice2, bob gossh.Signer }

func newSigner(t *testing.T) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	testKeysMu.Lock()
	testKeys[s] = block
	testKeysMu.Unlock()
	return s
}

// testKeys are the private keys newSigner made, for a test that hands
// one to OpenSSH.
var (
	testKeysMu sync.Mutex
	testKeys   = map[gossh.Signer]*pem.Block{}
)

func authorizedLine(s gossh.Signer, comment string) string {
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(s.PublicKey()))) + " " + comment
}

var (
	sshLine = regexp.MustCompile(`SSH on (\S+) for \d+ operators; host key ssh-ed25519 (SHA256:\S+)`)
)

// startSSHHub writes the test hub's config with the operators' SSH keys
// (extra is added at the top of it) and runs `a2atop serve --ssh-listen
// 127.0.0.1:0`.
func startSSHHub(t *testing.T, dir string, agents []demo.Agent, extra string) (*sshHub, sshKeys) {
	t.Helper()
	return startSSHHubWith(t, dir, agents, extra, "")
}

// startSSHHubWith is startSSHHub with alice's tables (her [[operator.view]]s,
// her [operator.keys.SCREEN]) at the end of her [[operator]].
func startSSHHubWith(t *testing.T, dir string, agents []demo.Agent, extra, aliceTables string) (*sshHub, sshKeys) {
	t.Helper()
	keys := sshKeys{alice: newSigner(t), alice2: newSigner(t), bob: newSigner(t)}
	cfg := writeHubConfig(t, dir, agents, 200*time.Millisecond)
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "alice.keys")
	if err := os.WriteFile(file, []byte("# alice's second laptop\n"+authorizedLine(keys.alice2, "alice@second")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	text := extra + "\n" + string(b)
	text = strings.Replace(text, "name = \"alice\"\n", fmt.Sprintf("name = \"alice\"\nssh_authorized_keys = [%q]\nssh_authorized_keys_file = %q\n",
		authorizedLine(keys.alice, "alice@laptop"), file), 1)
	text = strings.Replace(text, "[[operator]]\nname = \"bob\"\n", aliceTables+"\n[[operator]]\nname = \"bob\"\n", 1)
	text = strings.Replace(text, "name = \"bob\"\n", fmt.Sprintf("name = \"bob\"\nssh_authorized_keys = [%q]\n", authorizedLine(keys.bob, "bob@laptop")), 1)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	h := &sshHub{log: filepath.Join(dir, "hub.log"), out: &syncBuffer{}}
	h.url = startHubOut(t, cfg, h.out, "--ssh-listen", "127.0.0.1:0")
	m := sshLine.FindStringSubmatch(h.out.String())
	if m == nil {
		t.Fatalf("serve did not say where SSH listens: %q", h.out.String())
	}
	h.addr, h.fingerprint = m[1], m[2]
	return h, keys
}

// clientConfig signs in with key and accepts only the host key whose
// fingerprint the hub printed.
func (h *sshHub) clientConfig(user string, auth ...gossh.AuthMethod) *gossh.ClientConfig {
	return &gossh.ClientConfig{User: user, Auth: auth, Timeout: 10 * time.Second,
		HostKeyCallback: func(_ string, _ net.Addr, k gossh.PublicKey) error {
			if got := gossh.FingerprintSHA256(k); got != h.fingerprint {
				return fmt.Errorf("host key %s, the hub printed %s", got, h.fingerprint)
			}
			return nil
		}}
}

func (h *sshHub) dial(t *testing.T, key gossh.Signer) *gossh.Client {
	t.Helper()
	c, err := gossh.Dial("tcp", h.addr, h.clientConfig("anyone", gossh.PublicKeys(key)))
	if err != nil {
		t.Fatalf("ssh to the hub: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sshTerm is a session with a pty: what it drew, ANSI stripped, and its
// keyboard.
type sshTerm struct {
	t    *testing.T
	sess *gossh.Session
	in   io.Writer
	mu   sync.Mutex
	raw  bytes.Buffer
	done chan error
}

// openTerm opens a session on c with a pty of w x h asking for screen
// ("" for none).
func openTerm(t *testing.T, c *gossh.Client, w, h int, screen string) *sshTerm {
	t.Helper()
	return openTermAs(t, c, "xterm-256color", w, h, screen)
}

// openTermAs is openTerm with the pty's TERM.
func openTermAs(t *testing.T, c *gossh.Client, term string, w, h int, screen string) *sshTerm {
	t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	st := &sshTerm{t: t, sess: sess, done: make(chan error, 1)}
	if err := sess.RequestPty(term, h, w, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	out, _ := sess.StdoutPipe()
	st.in, _ = sess.StdinPipe()
	sess.Stderr = termWriter{st} // a terminal shows both
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := out.Read(buf)
			st.mu.Lock()
			st.raw.Write(buf[:n])
			st.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	if screen == "" {
		err = sess.Shell()
	} else {
		err = sess.Start(screen)
	}
	if err != nil {
		t.Fatal(err)
	}
	go func() { st.done <- sess.Wait() }()
	t.Cleanup(func() { sess.Close() })
	return st
}

// termWriter appends what the session writes on stderr to what it drew.
type termWriter struct{ st *sshTerm }

func (w termWriter) Write(p []byte) (int, error) {
	w.st.mu.Lock()
	defer w.st.mu.Unlock()
	return w.st.raw.Write(p)
}

// text is what the session drew so far, without escape sequences.
func (st *sshTerm) text() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return ansi.Strip(st.raw.String())
}

// rawText is what the session wrote, escape sequences and all.
func (st *sshTerm) rawText() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.raw.String()
}

// mark is how much was drawn so far: waitFrom looks after it.
func (st *sshTerm) mark() int { return len(st.text()) }

// wait waits until the session draws one of wants, after from, and
// returns which.
func (st *sshTerm) wait(from int, wants ...string) int {
	st.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		s := st.text()
		for i, w := range wants {
			if strings.Contains(s[min(from, len(s)):], w) {
				return i
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	s := st.text()
	st.t.Fatalf("the SSH session never drew %q; the last it drew:\n%s", wants, s[max(0, len(s)-3000):])
	return -1
}

func (st *sshTerm) typeKeys(s string) {
	st.t.Helper()
	if _, err := io.WriteString(st.in, s); err != nil {
		st.t.Fatalf("typing %q: %v", s, err)
	}
}

// logHas waits until the hub's log has a line with every one of words.
func logHas(t *testing.T, path string, words ...string) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(path)
		for _, line := range strings.Split(string(b), "\n") {
			all := true
			for _, w := range words {
				all = all && strings.Contains(line, w)
			}
			if all {
				return line
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	b, _ := os.ReadFile(path)
	t.Fatalf("the hub's log has no line with %q:\n%s", words, b)
	return ""
}

// netDialer dials TCP on loopback.
type netDialer struct{}

func (netDialer) dial(addr string) (net.Conn, error) {
	return net.DialTimeout("tcp", addr, 10*time.Second)
}

// readLog is the hub's log.
func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
