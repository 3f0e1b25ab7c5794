package interop

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// requireEnv, when "1", turns a missing Node.js/npm into a test failure.
const requireEnv = "A2ATOP_REQUIRE_INTEROP"

// nodeSetup is the result of finding node/npm and installing the peer's
// packages; computed once per test binary.
type nodeSetup struct {
	node    string // path of the node binary
	workDir string // folder holding server.mjs and a node_modules link
	skip    string // why the tests cannot run ("" when they can)
}

var (
	setupOnce sync.Once
	setup     nodeSetup
	// workRoot is removed by TestMain.
	workRoot string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if workRoot != "" {
		os.RemoveAll(workRoot)
	}
	os.Exit(code)
}

// haveNode reports whether the JS peer can run. When it cannot, it logs
// why (or fails under A2ATOP_REQUIRE_INTEROP=1), so table tests can still
// run their Go targets.
func haveNode(t testing.TB) bool {
	t.Helper()
	setupOnce.Do(func() { setup = prepare() })
	if setup.skip == "" {
		return true
	}
	msg := setup.skip + "; the JavaScript SDK targets are left out: install Node.js 20+ and npm, or run .ci/run"
	if os.Getenv(requireEnv) == "1" {
		t.Fatalf("%s (%s=1 makes this a failure)", msg, requireEnv)
	}
	t.Log(msg)
	return false
}

// needNode returns the prepared setup or skips (fails under
// A2ATOP_REQUIRE_INTEROP=1) with a message saying how to enable the tests.
func needNode(t testing.TB) nodeSetup {
	t.Helper()
	setupOnce.Do(func() { setup = prepare() })
	if setup.skip != "" {
		msg := setup.skip + "; to run the interop tests install Node.js 20+ and npm (with access to the npm registry), or run .ci/run"
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("%s (%s=1 makes this a failure)", msg, requireEnv)
		}
		t.Skip(msg)
	}
	return setup
}

func prepare() nodeSetup {
	node, err := exec.LookPath("node")
	if err != nil {
		return nodeSetup{skip: "node not found on PATH"}
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nodeSetup{skip: "npm not found on PATH"}
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return nodeSetup{skip: fmt.Sprintf("node --version: %v", err)}
	}
	if major := nodeMajor(string(out)); major < 20 {
		return nodeSetup{skip: fmt.Sprintf("node %s is too old, the JS SDK needs 20 or newer", strings.TrimSpace(string(out)))}
	}
	src, err := filepath.Abs("jspeer")
	if err != nil {
		return nodeSetup{skip: err.Error()}
	}
	modules, err := installModules(npm, src)
	if err != nil {
		return nodeSetup{skip: err.Error()}
	}
	workRoot, err = os.MkdirTemp("", "a2atop-interop-")
	if err != nil {
		return nodeSetup{skip: err.Error()}
	}
	for _, f := range []string{"server.mjs", "executor.mjs", "package.json"} {
		if err := copyFile(filepath.Join(src, f), filepath.Join(workRoot, f)); err != nil {
			return nodeSetup{skip: err.Error()}
		}
	}
	if err := os.Symlink(modules, filepath.Join(workRoot, "node_modules")); err != nil {
		return nodeSetup{skip: err.Error()}
	}
	return nodeSetup{node: node, workDir: workRoot}
}

func nodeMajor(v string) int {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	major, _, _ := strings.Cut(v, ".")
	n, _ := strconv.Atoi(major)
	return n
}

// jsPeer is one running `node server.mjs`.
type jsPeer struct {
	URL    string // base URL, e.g. http://127.0.0.1:41234
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	done   chan struct{}
}

// startPeer starts the JS peer with the given flags (see server.mjs) and
// stops it when the test ends. On failure the peer's log is printed.
func startPeer(t testing.TB, flags ...string) *jsPeer {
	t.Helper()
	s := needNode(t)
	cmd := exec.Command(s.node, append([]string{"server.mjs"}, flags...)...)
	cmd.Dir = s.workDir
	cmd.Env = append(os.Environ(), "A2A_PEER_STEP_MS=", "A2A_PEER_PROTOCOLS=", "A2A_PEER_LEGACY=", "A2A_PEER_GRPC=", "A2A_PEER_TOKEN=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &jsPeer{cmd: cmd, stdin: stdin, stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node server.mjs: %v", err)
	}
	go func() { cmd.Wait(); close(p.done) }() //nolint:errcheck // exit status is irrelevant once we stop it
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("js peer %v log:\n%s", flags, tail(p.stderr.String(), 6000))
		}
	})
	url, err := readListening(stdout, p.done)
	if err != nil {
		t.Fatalf("js peer %v did not start: %v\n%s", flags, err, tail(p.stderr.String(), 4000))
	}
	p.URL = url
	return p
}

func readListening(stdout io.Reader, done <-chan struct{}) (string, error) {
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "LISTENING "); ok {
				lines <- strings.TrimSpace(u)
				io.Copy(io.Discard, stdout) //nolint:errcheck // keep the pipe drained
				return
			}
		}
		close(lines)
	}()
	select {
	case u, ok := <-lines:
		if !ok {
			return "", errors.New("stdout closed before the LISTENING line")
		}
		return u, nil
	case <-done:
		return "", errors.New("node exited before the LISTENING line")
	case <-time.After(30 * time.Second):
		return "", errors.New("no LISTENING line within 30s")
	}
}

// stop closes stdin (the peer exits on EOF), then signals, then kills.
func (p *jsPeer) stop() {
	p.stdin.Close()
	select {
	case <-p.done:
		return
	case <-time.After(3 * time.Second):
	}
	p.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // best effort, Kill follows
	select {
	case <-p.done:
	case <-time.After(3 * time.Second):
		p.cmd.Process.Kill() //nolint:errcheck // last resort
		<-p.done
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// peerRequest is one "REQ" line the peer logged: what it received.
type peerRequest struct {
	Kind    string // "http" or "grpc"
	What    string // "POST /a2a/jsonrpc", "/lf.a2a.v1.A2AService/ListTasks", ...
	Version string // the A2A-Version it carried, "" when none
}

// requests returns every request the peer has logged so far.
func (p *jsPeer) requests() []peerRequest {
	var out []peerRequest
	for _, line := range strings.Split(p.stderr.String(), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[0] != "REQ" {
			continue
		}
		v := strings.TrimPrefix(f[3], "A2A-Version=")
		if v == "-" {
			v = ""
		}
		out = append(out, peerRequest{Kind: f[1], What: strings.ReplaceAll(f[2], "%20", " "), Version: v})
	}
	return out
}
