package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	gossh "golang.org/x/crypto/ssh"

	"a2atop/demo"
	"a2atop/hubclient"
	"a2atop/internal/testcert"
	"a2atop/model"
)

// TestSSHDashboardApprovesAndTheOtherLoses connects twice as alice over
// real SSH on loopback, each with a key of hers (one inline, one from
// ssh_authorized_keys_file), with a pty, as a new user would: both open
// the inbox (ssh -t hub inbox), find the same deploy and approve it at
// once. The hub takes one; the other is told in words who decided. The
// journal screen names the decision, the deploy goes on, and the hub's
// log records both sessions with their key's fingerprint.
func TestSSHDashboardApprovesAndTheOtherLoses(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	h, keys := startSSHHub(t, dir, agents, "")
	one := openTerm(t, h.dial(t, keys.alice), 160, 40, "inbox")
	two := openTerm(t, h.dial(t, keys.alice2), 160, 40, "inbox")
	for _, st := range []*sshTerm{one, two} {
		st.wait(0, "a2atop inbox")
		st.wait(0, "alice via ssh")
	}
	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	short := model.ShortID(deploy)
	for _, st := range []*sshTerm{one, two} {
		st.wait(0, short)
		from := st.mark()
		st.typeKeys("/" + short + "\r")
		st.wait(from, "· 1 shown")
		from = st.mark()
		st.typeKeys("a")
		st.wait(from, "y: send")
	}
	from1, from2 := one.mark(), two.mark()
	one.typeKeys("y")
	two.typeKeys("y")
	took := 0
	for i, st := range []*sshTerm{one, two} {
		saw := st.wait([]int{from1, from2}[i], "approve → deployer · "+short+": the agent took the message",
			"approve → deployer · "+short+": decided by alice at ", // the hub's 409
			"answered elsewhere by alice")                          // the feed was first: nothing was sent
		if saw == 0 {
			took++
		}
	}
	if took != 1 {
		t.Fatalf("%d SSH dashboards say the agent took their approval, want 1", took)
	}
	from := two.mark()
	two.typeKeys("4")
	two.wait(from, "alice (you)    approve   deployer · "+short)
	if st := taskState(t, agents, demo.Deployer, deploy); st == a2a.TaskStateAuthRequired {
		t.Fatalf("after alice's approval over SSH the deploy still waits")
	}
	for _, k := range []gossh.Signer{keys.alice, keys.alice2} {
		logHas(t, h.log, `msg="ssh session started"`, "operator=alice", "fingerprint="+gossh.FingerprintSHA256(k.PublicKey()), "remote=127.0.0.1:", "screen=inbox")
	}
	one.sess.Close()
	logHas(t, h.log, `msg="ssh session ended"`, "operator=alice", "started=", "took=")
	if b := readLog(t, h.log); strings.Contains(b, "PRIVATE KEY") || strings.Contains(b, tokenOf("alice")) {
		t.Fatalf("the hub's log holds a private key or a token:\n%s", b)
	}
}

// TestSSHRefuses tries what a session is not for, each on its own: a key
// of nobody's (refused at authentication, logged with its
// fingerprint), a password and keyboard-interactive (not offered), a
// command, a session without a pty (one line: use ssh -t), SFTP, agent
// forwarding, and port forwarding both ways.
func TestSSHRefuses(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	h, keys := startSSHHub(t, dir, agents, "")

	eve := newSigner(t)
	if _, err := gossh.Dial("tcp", h.addr, h.clientConfig("alice", gossh.PublicKeys(eve))); err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
		t.Fatalf("an unknown key signed in: %v", err)
	}
	logHas(t, h.log, "ssh key refused", "fingerprint="+gossh.FingerprintSHA256(eve.PublicKey()))
	asked := false
	_, err := gossh.Dial("tcp", h.addr, h.clientConfig("alice", gossh.Password(tokenOf("alice")),
		gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { asked = true; return nil, nil })))
	if err == nil || asked || !strings.Contains(err.Error(), "[none]") {
		t.Fatalf("password or keyboard-interactive was offered: %v (asked %v)", err, asked)
	}

	c := h.dial(t, keys.alice)
	refused := func(what string, want string, run func(*gossh.Session) error) {
		t.Helper()
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		var out strings.Builder
		sess.Stderr = &out
		err = run(sess)
		var exit *gossh.ExitError
		if !errors.As(err, &exit) || exit.ExitStatus() != 1 || !strings.Contains(out.String(), want) {
			t.Errorf("%s: %v, said %q; want exit 1 and %q", what, err, out.String(), want)
		}
	}
	refused("exec", "no command here", func(s *gossh.Session) error {
		if err := s.RequestPty("xterm", 24, 80, nil); err != nil {
			return err
		}
		return s.Run("cat /etc/passwd")
	})
	refused("no pty", "connect with ssh -t", func(s *gossh.Session) error {
		if err := s.Shell(); err != nil {
			return err
		}
		return s.Wait()
	})
	sess, _ := c.NewSession()
	if err := sess.RequestSubsystem("sftp"); err == nil {
		t.Errorf("the sftp subsystem was accepted")
	}
	sess.Close()
	sess, _ = c.NewSession()
	if ok, err := sess.SendRequest("auth-agent-req@openssh.com", true, nil); ok || err != nil {
		t.Errorf("agent forwarding: %v, %v; want refused", ok, err)
	}
	if ok, err := sess.SendRequest("x11-req", true, gossh.Marshal(struct {
		Single   bool
		Proto    string
		Cookie   string
		ScreenNo uint32
	}{false, "MIT-MAGIC-COOKIE-1", "00", 0})); ok || err != nil {
		t.Errorf("X11 forwarding: %v, %v; want refused", ok, err)
	}
	sess.Close()
	hubAddr := strings.TrimPrefix(h.url, "http://")
	if conn, err := c.Dial("tcp", hubAddr); err == nil {
		conn.Close()
		t.Errorf("a local port forward to %s was opened", hubAddr)
	}
	if ln, err := c.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
		t.Errorf("a remote port forward was opened")
	}
	// The connection is still good for the dashboard after all that.
	st := openTerm(t, c, 100, 30, "")
	st.wait(0, "alice via ssh")
}

// TestSSHVanishedClientReleasesItsClaims opens the approval of a deploy
// over SSH (a claim bob sees), then drops the TCP connection without a
// word, as a laptop that lost its network: the session ends and the
// claim is released at once, not when it expires.
func TestSSHVanishedClientReleasesItsClaims(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	h, keys := startSSHHub(t, dir, agents, "")
	raw, c := dialRaw(t, h, keys.alice)
	st := openTerm(t, c, 160, 40, "inbox")
	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	short := model.ShortID(deploy)
	st.wait(0, short)
	from := st.mark()
	st.typeKeys("/" + short + "\r")
	st.wait(from, "· 1 shown")
	st.typeKeys("a")
	st.wait(from, "y: send")

	bob, err := hubclient.New(hubclient.Options{URL: h.url, Token: tokenOf("bob")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := bob.Me(ctx); err != nil {
		t.Fatal(err)
	}
	go bob.Run(ctx)
	eventually(t, "bob sees alice's claim", func() bool { return strings.Contains(bob.ClaimWords(demo.Deployer, deploy), "alice") })
	raw.Close() // no SSH goodbye: the network is gone
	eventually(t, "alice's claim released", func() bool { return bob.ClaimWords(demo.Deployer, deploy) == "" })
	logHas(t, h.log, `msg="ssh session ended"`, "operator=alice")
}

// dialRaw is dial keeping the TCP connection, to drop it.
func dialRaw(t *testing.T, h *sshHub, key gossh.Signer) (interface{ Close() error }, *gossh.Client) {
	t.Helper()
	conn, err := (&netDialer{}).dial(h.addr)
	if err != nil {
		t.Fatal(err)
	}
	cc, chans, reqs, err := gossh.NewClientConn(conn, h.addr, h.clientConfig("alice", gossh.PublicKeys(key)))
	if err != nil {
		t.Fatal(err)
	}
	c := gossh.NewClient(cc, chans, reqs)
	t.Cleanup(func() { c.Close() })
	return conn, c
}

// TestSSHSessionsPerOperator opens ssh_max_sessions sessions as bob; one
// more is refused in words while alice still gets in, and once one of
// bob's closes he gets in again.
func TestSSHSessionsPerOperator(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	h, keys := startSSHHub(t, dir, agents, "ssh_max_sessions = 2")
	var open []*sshTerm
	for range 2 {
		st := openTerm(t, h.dial(t, keys.bob), 80, 24, "")
		st.wait(0, "bob via ssh")
		open = append(open, st)
	}
	extra := openTerm(t, h.dial(t, keys.bob), 80, 24, "")
	extra.wait(0, "operator bob has 2 SSH sessions open, the most this hub serves one operator (ssh_max_sessions)")
	openTerm(t, h.dial(t, keys.alice), 80, 24, "").wait(0, "alice via ssh")
	open[0].sess.Close()
	<-open[0].done
	eventually(t, "bob gets in again", func() bool {
		st := openTerm(t, h.dial(t, keys.bob), 80, 24, "")
		return st.wait(0, "bob via ssh", "the most this hub serves") == 0
	})
}

// TestSSHIdleTimeoutAndNoWindowSize: a session whose pty has no size is
// drawn at 80x24, and one that types nothing for ssh_idle_timeout is
// closed with a line saying why, and logged.
func TestSSHIdleTimeoutAndNoWindowSize(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	h, keys := startSSHHub(t, dir, agents, `ssh_idle_timeout = "2s"`)
	st := openTerm(t, h.dial(t, keys.alice), 0, 0, "agents")
	st.wait(0, "alice via ssh")
	select {
	case <-st.done:
	case <-time.After(30 * time.Second):
		t.Fatal("an idle session was not closed")
	}
	st.wait(0, "closed after 2s without a key (ssh_idle_timeout)")
	logHas(t, h.log, `msg="ssh session ended"`, "idle timeout")
}

// TestSSHOperatorLook: alice's [[operator]] table carries her own saved
// view and keys; over SSH her dashboard has them (V opens her view, ~
// her help), while bob's has the hub's defaults. A clash in her keys is
// refused at the hub's start, naming the line and her key.
func TestSSHOperatorLook(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	h, keys := startSSHHubWith(t, dir, agents, "", `theme = "light"
[[operator.view]]
name = "deploys"
filter = "agent:deployer"
[operator.keys.global]
help = "~"
views_1 = "V"
`)
	alice := openTerm(t, h.dial(t, keys.alice), 160, 40, "")
	alice.wait(0, "alice via ssh")
	from := alice.mark()
	alice.typeKeys("V")
	alice.wait(from, "[V deploys]")
	from = alice.mark()
	alice.typeKeys("~")
	alice.wait(from, "Keys — tasks")
	bob := openTerm(t, h.dial(t, keys.bob), 160, 40, "")
	bob.wait(0, "bob via ssh")
	from = bob.mark()
	bob.typeKeys("?")
	bob.wait(from, "Keys — tasks")

	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.MkdirAll(bad, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := writeHubConfig(t, bad, agents, time.Second)
	b, _ := os.ReadFile(cfg)
	text := strings.Replace(string(b), "[[operator]]\nname = \"bob\"", "[operator.keys.tasks]\ncancel = \"2\"\n[[operator]]\nname = \"bob\"", 1)
	text = strings.Replace(text, "name = \"alice\"\n", "name = \"alice\"\nssh_authorized_keys = [\""+authorizedLine(keys.alice, "a")+"\"]\n", 1)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd(context.Background(), "serve", "--config", cfg, "--listen", "127.0.0.1:0", "--ssh-listen", "127.0.0.1:0")
	if code != exitUsage || !strings.Contains(errOut, `operator[1].keys.tasks.cancel: "2" is also global.inbox`) {
		t.Fatalf("a clash in alice's keys: %d %q", code, errOut)
	}
}

// TestServeHelpSaysHowToCheckTheHostKey: serve --help names --ssh-listen
// and says how an operator checks the host key on a first connection.
func TestServeHelpSaysHowToCheckTheHostKey(t *testing.T) {
	isolate(t)
	code, out, _ := runCmd(context.Background(), "serve", "--help")
	for _, want := range []string{"--ssh-listen", "ssh -t -p PORT HOST", "fingerprint (SHA256:...) is printed at every start", "answer yes only when it is the printed one"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("serve --help (%d) lacks %q:\n%s", code, want, out)
		}
	}
}

// sgrColour is an SGR sequence that sets a foreground or background
// colour.
var sgrColour = regexp.MustCompile(`\x1b\[(?:[0-9]*;)*(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9]*)*m`)

// TestSSHColoursFollowThePty: the colour profile is the client's, from
// its pty request: 256 colours for xterm-256color, none for dumb, in
// one hub at once.
func TestSSHColoursFollowThePty(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	h, keys := startSSHHub(t, dir, agents, "")
	colour := openTermAs(t, h.dial(t, keys.alice), "xterm-256color", 120, 30, "")
	plain := openTermAs(t, h.dial(t, keys.bob), "dumb", 120, 30, "")
	colour.wait(0, "alice via ssh")
	plain.wait(0, "bob via ssh")
	if !strings.Contains(colour.rawText(), "38;5;") {
		t.Errorf("xterm-256color got no 256-colour sequence:\n%q", colour.rawText()[:min(400, len(colour.rawText()))])
	}
	if s := plain.rawText(); sgrColour.MatchString(s) {
		t.Errorf("dumb got colours:\n%q", s[:min(400, len(s))])
	}
}

// TestSSHRolesAreTheHubs: bob, who may only answer, connects over SSH:
// his approval of a deploy is refused in the hub's words, and the deploy
// still waits; his answer to a question goes through.
func TestSSHRolesAreTheHubs(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	h, keys := startSSHHub(t, dir, agents, "")
	bob := openTerm(t, h.dial(t, keys.bob), 160, 40, "inbox")
	bob.wait(0, "bob via ssh")
	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	bob.wait(0, "Inbox · 1 waiting")
	from := bob.mark()
	bob.typeKeys("a")
	bob.wait(from, "operator bob may not approve on agent deployer (the hub's roles): nothing is sent")
	if st := taskState(t, agents, demo.Deployer, deploy); st != a2a.TaskStateAuthRequired {
		t.Fatalf("after bob's refused approval the deploy is %s", st)
	}
	question := waitingTask(t, agents, demo.CodeReviewer, "review the change at 9f3c2e1", a2a.TaskStateInputRequired)
	bob.wait(from, model.ShortID(question))
	from = bob.mark()
	bob.typeKeys("/" + model.ShortID(question) + "\r")
	bob.wait(from, "· 1 shown")
	bob.typeKeys("r")
	bob.wait(from, "ctrl+s")
	bob.typeKeys("main\x13") // ctrl+s
	bob.wait(from, "y: send")
	bob.typeKeys("y")
	bob.wait(from, "reply → code-reviewer · "+model.ShortID(question)+": the agent took the message")
}

// TestSSHOnAHubWithTLS: a hub serving HTTPS (tls_cert_file) serves its
// dashboard over SSH too: the sessions reach its API in memory, where
// there is no TLS to speak.
func TestSSHOnAHubWithTLS(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	ca := testcert.NewCA(t, "a2atop hub")
	certFile, keyFile := testcert.WriteFiles(t, dir, "hub", ca.Server(t))
	h, keys := startSSHHub(t, dir, agents, fmt.Sprintf("tls_cert_file = %q\ntls_key_file = %q\n", certFile, keyFile))
	if !strings.HasPrefix(h.url, "https://") {
		t.Fatalf("the hub serves %s, want https", h.url)
	}
	st := openTerm(t, h.dial(t, keys.alice), 120, 30, "")
	st.wait(0, "alice via ssh")
	st.wait(0, "5 up")
}
