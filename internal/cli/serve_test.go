package cli

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/demo"
	"a2atop/hubclient"
	"a2atop/model"
)

// TestServeListensOnLoopbackOrWithTLS: beyond loopback the hub needs TLS
// or --insecure, which it says on stderr and in its log; without
// operators it does not start.
func TestServeListensOnLoopbackOrWithTLS(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true})
	cfg := writeHubConfig(t, dir, agents[:1], time.Second)
	ctx := context.Background()
	code, _, errOut := runCmd(ctx, "serve", "--config", cfg, "--listen", "0.0.0.0:0")
	if code != exitUsage || !strings.Contains(errOut, "0.0.0.0:0 is not a loopback address: set tls_cert_file and tls_key_file") {
		t.Errorf("serve beyond loopback without TLS = %d %q", code, errOut)
	}
	plain := writeConfig(t, dir, agents[:1])
	if code, _, errOut := runCmd(ctx, "serve", "--config", plain); code != exitUsage || !strings.Contains(errOut, "no operators") {
		t.Errorf("serve without operators = %d %q", code, errOut)
	}

	cctx, cancel := context.WithCancel(ctx)
	var out, errBuf syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(cctx, []string{"serve", "--config", cfg, "--listen", "0.0.0.0:0", "--insecure"}, Streams{Out: &out, Err: &errBuf})
	}()
	eventually(t, "the hub listens", func() bool { return strings.Contains(out.String(), "hub on http://") })
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("serve --insecure = %d %q", code, errBuf.String())
	}
	if !strings.Contains(errBuf.String(), "serving plain HTTP beyond loopback (--insecure)") {
		t.Errorf("serve --insecure did not say so on stderr: %q", errBuf.String())
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "hub.log")); !strings.Contains(string(log), "serving plain HTTP beyond loopback") {
		t.Errorf("serve --insecure did not say so in its log")
	}
}

// TestServeTLS: with tls_cert_file and tls_key_file the hub serves HTTPS,
// beyond loopback too, and a dashboard that trusts the certificate
// attaches.
func TestServeTLS(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true})
	pool := writeCert(t, dir)
	cfg := writeHubConfig(t, dir, agents[:1], time.Second)
	b, _ := os.ReadFile(cfg)
	tlsKeys := "tls_cert_file = \"hub.crt\"\ntls_key_file = \"hub.key\"\n"
	if err := os.WriteFile(cfg, append([]byte(tlsKeys), b...), 0o600); err != nil {
		t.Fatal(err)
	}
	url := startHub(t, cfg, "--listen", "0.0.0.0:0")
	if !strings.HasPrefix(url, "https://") {
		t.Fatalf("the hub serves %s, want https", url)
	}
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(url, "https://"))
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	cl, err := hubclient.New(hubclient.Options{URL: "https://127.0.0.1:" + port, Token: tokenOf("alice"), Transport: tr})
	if err != nil {
		t.Fatal(err)
	}
	if me, err := cl.Me(context.Background()); err != nil || me.Operator != "alice" {
		t.Fatalf("Me over TLS: %+v %v", me, err)
	}
	plain, _ := hubclient.New(hubclient.Options{URL: "https://127.0.0.1:" + port, Token: tokenOf("alice")})
	if _, err := plain.Me(context.Background()); err == nil || strings.Contains(err.Error(), tokenOf("alice")) {
		t.Errorf("a client that does not trust the certificate: %v", err)
	}
}

// writeCert writes a self-signed certificate for 127.0.0.1 as hub.crt
// and hub.key in dir and returns a pool that trusts it.
func writeCert(t *testing.T, dir string) *x509.CertPool {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "a2atop hub"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	_ = os.WriteFile(filepath.Join(dir, "hub.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	_ = os.WriteFile(filepath.Join(dir, "hub.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}

// TestWatchAndReplyThroughTheHub: watch --jsonl --hub prints the hub's
// events as watch prints its own; reply --hub sends as the operator of
// the token, through the hub, which refuses a role the operator lacks.
func TestWatchAndReplyThroughTheHub(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	url := startHub(t, writeHubConfig(t, dir, agents, 200*time.Millisecond))
	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	ctx := context.Background()

	t.Setenv("A2ATOP_HUB_TOKEN", tokenOf("alice"))
	wctx, cancel := context.WithCancel(ctx)
	var wout, werr syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(wctx, []string{"watch", "--jsonl", "--hub", url}, Streams{Out: &wout, Err: &werr}) }()
	eventually(t, "watch --hub prints the deploy waiting for approval", func() bool { // the hub has caught up with the agent
		for _, line := range strings.Split(wout.String(), "\n") {
			if strings.Contains(line, string(deploy)) && strings.Contains(strings.ToUpper(line), "AUTH_REQUIRED") {
				return true
			}
		}
		return false
	})

	t.Setenv("A2ATOP_HUB_TOKEN", tokenOf("bob"))
	code, out, errOut := runCmd(ctx, "reply", "--hub", url, demo.Deployer, string(deploy)[:8], "--approve")
	if code != exitFailed || !strings.Contains(out, "the hub refused") || !strings.Contains(errOut, "operator bob may not approve on agent deployer") {
		t.Errorf("bob's reply --approve = %d\n%s\n%s", code, out, errOut)
	}
	t.Setenv("A2ATOP_HUB_TOKEN", tokenOf("alice"))
	code, out, errOut = runCmd(ctx, "reply", "--hub", url, demo.Deployer[:3], model.ShortID(deploy)[:6], "--approve") // starts, as read off a row
	if code != exitOK || !strings.Contains(out, "approve → deployer · "+string(deploy)+": the agent took the message") ||
		!strings.Contains(out, "journal the hub's journal at "+url) {
		t.Errorf("alice's reply --approve = %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCmd(ctx, "reply", "--hub", url, demo.Deployer, string(deploy), "--approve")
	if code == exitOK || !(strings.Contains(out+errOut, "decided by alice") || strings.Contains(out+errOut, "no longer waits")) {
		t.Errorf("a second approval = %d %q %q", code, out, errOut)
	}
	eventually(t, "watch --hub prints the approval's state", func() bool {
		return strings.Contains(wout.String(), `"state":"TASK_STATE_COMPLETED"`) || strings.Contains(wout.String(), "completed")
	})
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("watch --hub = %d %q", code, werr.String())
	}
	sc := bufio.NewScanner(strings.NewReader(wout.String()))
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var ev struct{ Agent, Kind string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Agent == "" {
			t.Fatalf("watch --hub line %q: %v", sc.Text(), err)
		}
	}
	t.Setenv("A2ATOP_HUB_TOKEN", "not-a-token")
	if code, _, errOut := runCmd(ctx, "reply", "--hub", url, demo.Deployer, string(deploy), "--approve"); code != exitUsage ||
		!strings.Contains(errOut, "401") || strings.Contains(errOut, "not-a-token") {
		t.Errorf("a wrong token = %d %q", code, errOut)
	}
}

// TestDemoHub runs `a2atop demo --hub`: the demo fleet, a hub with alice
// and bob, alice's dashboard (quit with q), and the one command that
// attaches bob's, which names a file for the token, never the token.
func TestDemoHub(t *testing.T) {
	isolate(t)
	t.Setenv("NO_COLOR", "1")
	in, keys := io.Pipe()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"demo", "--hub"}, Streams{In: in, Out: &out, Err: &errOut})
	}()
	eventually(t, "alice's dashboard", func() bool { return strings.Contains(out.String(), "test-runner") })
	text := out.String()
	i := strings.Index(text, `A2ATOP_HUB_TOKEN="$(cat `)
	if i < 0 || !strings.Contains(text[i:], selfCommand()+" --hub http://127.0.0.1:") {
		t.Fatalf("no command for bob's dashboard in:\n%s", text)
	}
	file := strings.TrimPrefix(strings.Fields(text[i:])[0], `A2ATOP_HUB_TOKEN="$(cat `)
	file = strings.TrimSuffix(strings.Fields(text[i:])[1], `)"`)
	tok, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("bob's token file %q: %v", file, err)
	}
	if strings.Contains(text, strings.TrimSpace(string(tok))) {
		t.Error("the demo printed bob's token")
	}
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("demo --hub = %d %q", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("demo --hub did not quit on q")
	}
}
