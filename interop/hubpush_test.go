package interop

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/hubclient"
	"a2atop/internal/feedtest"
)

// hubStep is how long the JS peer stays in each step when a hub watches
// it: long enough for `a2atop serve` to start, list the new task and
// register its config before the task asks its question, also on a
// machine loaded by the race detector and other packages' tests.
const hubStep = 8 * time.Second

// TestHubPushJSPeer: `a2atop serve`, run as the binary, with
// push_public_url on its own address, sweeps and full resyncs an hour
// apart and no streams, watches the JavaScript SDK peer: the peer's
// INPUT_REQUIRED reaches the hub's feed by push, `a2atop reply --hub`
// answers it through the hub, the COMPLETED arrives by push, the agent's
// push status on the feed counts the deliveries, and a2atop's configs on
// the task are gone from the peer once it ends.
func TestHubPushJSPeer(t *testing.T) {
	p := startPeer(t, "--push", "--step-ms="+strconv.Itoa(int(hubStep/time.Millisecond)), "--name=js-hub-push")
	const agent, token, operator = "js", "hub-push-js", "tok-alice-5e2b7c9d1a3f"
	dir := t.TempDir()
	bin := buildA2atop(t, dir)
	admin, _ := sdkClient(t, p.URL, clientOpts{Binding: a2a.TransportProtocolJSONRPC, Version: a2a.Version, Token: token})

	addr := freeLoopback(t)
	base := "http://" + addr
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	agentToken := write("agent.token", token+"\n")
	opToken := write("alice.token", operator+"\n")
	cfg := write("hub.toml", fmt.Sprintf(`journal_path = %q
log_path = %q
sweep_interval = "1h"
full_resync = "1h"
push_public_url = %q

[[agent]]
name = %q
url = %q
binding = "jsonrpc"
subscribe = false
[agent.auth]
token_file = %q

[[operator]]
name = "alice"
token_file = %q
roles = { "*" = ["watch", "answer"] }
`, filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "hub.log"), base, agent, p.URL, agentToken, opToken))
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_STATE_HOME="+filepath.Join(dir, "state"), "A2ATOP_CONFIG=", hubclient.EnvToken+"="+operator)

	asked := send(t, admin, "", "ask", true)
	hubURL := startServe(t, bin, env, "--config", cfg, "--listen", addr)
	feed := followFeed(t, hubURL, operator)

	if src := feed.waitState(t, agent, asked.ID, a2a.TaskStateInputRequired); src != "push" {
		t.Errorf("INPUT_REQUIRED first seen on the hub's feed from %s, want push", src)
	}
	if n := len(configsTo(t, admin, asked.ID, base)); n != 1 {
		t.Fatalf("the hub's configs on the open task: %d, want 1", n)
	}
	reply := exec.Command(bin, "reply", "--hub", hubURL, agent, string(asked.ID), "--text", "staging")
	reply.Env = env
	if out, err := reply.CombinedOutput(); err != nil {
		t.Fatalf("a2atop reply --hub: %v\n%s", err, out)
	}
	if src := feed.waitState(t, agent, asked.ID, a2a.TaskStateCompleted); src != "push" {
		t.Errorf("COMPLETED first seen on the hub's feed from %s, want push", src)
	}
	feed.wait(t, "the agent's push status on the feed: on, deliveries, none rejected, no config held", func() bool {
		h := feed.health[agent].Push
		return h.On && h.Delivered >= 2 && h.Rejected == 0 && h.Configs == 0
	})
	if n := len(configsTo(t, admin, asked.ID, base)); n != 0 {
		t.Errorf("the hub's configs on the completed task: %d, want 0", n)
	}
}

// buildA2atop builds the a2atop command into dir and returns its path.
func buildA2atop(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "a2atop")
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, "build", "-o", bin, "a2atop")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build a2atop: %v\n%s", err, out)
	}
	return bin
}

func freeLoopback(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

var serveLine = regexp.MustCompile(`hub on (https?://\S+) for`)

// startServe runs `bin serve args...` until the test ends (SIGINT, as
// Ctrl+C, so that it deletes its configs) and returns the hub's URL.
func startServe(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Env = env
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }() //nolint:errcheck // the status is checked through stderr on failure
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT) //nolint:errcheck // Kill follows
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill() //nolint:errcheck // last resort
			<-done
		}
		if t.Failed() {
			t.Logf("a2atop serve's stderr:\n%s", tail(stderr.String(), 6000))
		}
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := serveLine.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
				break
			}
		}
		io.Copy(io.Discard, out) //nolint:errcheck // keep the pipe drained
	}()
	select {
	case u := <-urls:
		return u
	case <-done:
		t.Fatalf("a2atop serve ended before it said where it listens:\n%s", stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("a2atop serve never said where it listens:\n%s", stderr.String())
	}
	return ""
}

// followFeed folds the hub's feed, as a dashboard attached to it reads
// it, into a collector.
func followFeed(t *testing.T, url, token string) *collector {
	t.Helper()
	c := newCollector()
	feedtest.Follow(t, url, token, c.apply)
	return c
}
