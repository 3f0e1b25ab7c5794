package cli

import (
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"a2atop/demo"
)

// TestSSHWithOpenSSHInTmux connects with the system's OpenSSH client,
// as an operator would, with StrictHostKeyChecking=yes against a
// known_hosts written from the host key whose fingerprint the hub
// printed, in a tmux window: `ssh -t -p PORT 127.0.0.1 journal` opens
// alice's journal screen, 2 her inbox, and the window's resize reaches
// the dashboard. A known_hosts with another key is refused by ssh.
// Skipped only where no ssh or tmux is installed (.ci/run installs
// openssh-client and tmux, and sets A2ATOP_REQUIRE_OPENSSH=1, which
// makes their absence a failure).
func TestSSHWithOpenSSHInTmux(t *testing.T) {
	sshBin, err1 := exec.LookPath("ssh")
	tmuxBin, err2 := exec.LookPath("tmux")
	if err1 != nil || err2 != nil {
		if os.Getenv("A2ATOP_REQUIRE_OPENSSH") == "1" {
			t.Fatalf("A2ATOP_REQUIRE_OPENSSH=1 but no OpenSSH client or tmux here (ssh: %v, tmux: %v)", err1, err2)
		}
		t.Skipf("no OpenSSH client or tmux here (ssh: %v, tmux: %v): install openssh-client and tmux to run this test", err1, err2)
	}
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	h, keys := startSSHHub(t, dir, agents, "")
	keyFile := writePrivateKey(t, dir, keys.alice)
	host, port, _ := net.SplitHostPort(h.addr)
	known := filepath.Join(dir, "known_hosts")
	writeKnownHosts(t, known, h, hostKeyOf(t, h))

	cmd := fmt.Sprintf("%s -F none -i %s -o IdentitiesOnly=yes -o IdentityAgent=none -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=%s -t -p %s %s journal; sleep 60",
		sshBin, keyFile, known, port, host)
	name := "ssh-test-" + strconv.Itoa(os.Getpid())
	// A tmux server of the test's own (its socket in the test's
	// directory): the person's own tmux sessions are never touched.
	sock := filepath.Join(dir, "tmux.sock")
	tmux := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(tmuxBin, append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v: %s", args, err, out)
		}
		return string(out)
	}
	tmux("-f", "/dev/null", "new-session", "-d", "-s", name, "-x", "120", "-y", "30", cmd)
	t.Cleanup(func() { _ = exec.Command(tmuxBin, "-S", sock, "kill-server").Run() })
	screen := func(wants ...string) string {
		t.Helper()
		var s string
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			s = tmux("capture-pane", "-p", "-t", name)
			all := true
			for _, w := range wants {
				all = all && strings.Contains(s, w)
			}
			if all {
				return s
			}
		}
		t.Fatalf("the tmux window never showed %q:\n%s", wants, s)
		return ""
	}
	got := screen("a2atop journal", "operator alice", "alice via ssh")
	t.Logf("OpenSSH in tmux, 120x30:\n%s", got)
	tmux("send-keys", "-t", name, "2")
	screen("a2atop inbox")
	tmux("resize-window", "-t", name, "-x", "90", "-y", "20")
	got = screen("alice via ssh")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got = tmux("capture-pane", "-p", "-t", name)
		lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
		if len(lines) <= 20 && strings.Contains(lines[len(lines)-1], "alice via ssh") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the resize to 90x20 the footer is not on the last line:\n%s", got)
		}
	}

	other := filepath.Join(dir, "known_hosts.other")
	writeKnownHosts(t, other, h, newSigner(t).PublicKey())
	out, err := exec.Command(sshBin, "-F", "none", "-i", keyFile, "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none", "-o", "BatchMode=yes",
		"-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile="+other, "-T", "-p", port, host).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Host key verification failed") {
		t.Fatalf("ssh with another host key in known_hosts: %v: %s", err, out)
	}
}

// hostKeyOf is the hub's host key, taken only when its fingerprint is
// the one the hub printed.
func hostKeyOf(t *testing.T, h *sshHub) gossh.PublicKey {
	t.Helper()
	var key gossh.PublicKey
	cfg := h.clientConfig("nobody", gossh.Password("x"))
	check := cfg.HostKeyCallback
	cfg.HostKeyCallback = func(host string, a net.Addr, k gossh.PublicKey) error {
		if err := check(host, a, k); err != nil {
			return err
		}
		key = k
		return nil
	}
	_, _ = gossh.Dial("tcp", h.addr, cfg) // refused at authentication, after the host key
	if key == nil {
		t.Fatal("the hub offered no host key with the printed fingerprint")
	}
	return key
}

func writeKnownHosts(t *testing.T, path string, h *sshHub, key gossh.PublicKey) {
	t.Helper()
	host, port, _ := net.SplitHostPort(h.addr)
	line := fmt.Sprintf("[%s]:%s %s", host, port, strings.TrimSpace(string(gossh.MarshalAuthorizedKey(key))))
	if err := os.WriteFile(path, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// writePrivateKey writes the signer's key as OpenSSH does (0600).
func writePrivateKey(t *testing.T, dir string, s gossh.Signer) string {
	t.Helper()
	path := filepath.Join(dir, "id_test")
	if err := os.WriteFile(path, pem.EncodeToMemory(testKeys[s]), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
