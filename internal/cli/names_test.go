package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"a2atop/demo"
)

// agentURL is the URL of the demo agent name.
func agentURL(t *testing.T, agents []demo.Agent, name string) string {
	t.Helper()
	for _, a := range agents {
		if a.Name == name {
			return a.URL
		}
	}
	t.Fatalf("no demo agent %q", name)
	return ""
}

// closedURL is a loopback URL nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String()
}

// Agents given only by URL take their card's name in check, tasks and
// watch, in the order given, made unique with -2 against the configured
// names and each other; one whose card cannot be read keeps host:port.
func TestURLAgentsNamedAfterCards(t *testing.T) {
	dir := isolate(t)
	a := startDemo(t, demo.Options{NoPlanner: true})
	b := startDemo(t, demo.Options{NoPlanner: true})
	cfg := writeConfig(t, dir, []demo.Agent{{Name: demo.Deployer, URL: agentURL(t, a, demo.Deployer)}})
	down := closedURL(t)
	id := startTask(t, agentURL(t, b, demo.TestRunner))
	args := []string{"--config", cfg, agentURL(t, a, demo.TestRunner), agentURL(t, b, demo.TestRunner),
		agentURL(t, b, demo.Deployer), down}
	want := map[string]string{ // printed name -> URL
		demo.Deployer: agentURL(t, a, demo.Deployer), "test-runner": agentURL(t, a, demo.TestRunner),
		"test-runner-2": agentURL(t, b, demo.TestRunner), "deployer-2": agentURL(t, b, demo.Deployer),
		strings.TrimPrefix(down, "http://"): down,
	}
	ctx := context.Background()

	_, out, errOut := runCmd(ctx, append([]string{"check", "--timeout", "10s"}, args...)...)
	for name, url := range want {
		if !hasRow(out, name, url) {
			t.Errorf("check: no row %q %q:\n%s%s", name, url, out, errOut)
		}
	}

	_, out, errOut = runCmd(ctx, append([]string{"tasks", "--json", "--timeout", "10s"}, args...)...)
	var doc struct {
		Agents []struct{ Name, URL string }
		Tasks  []struct{ Agent, ID string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("tasks --json: %v\n%s%s", err, out, errOut)
	}
	got := map[string]string{}
	for _, ag := range doc.Agents {
		got[ag.Name] = ag.URL
	}
	for name, url := range want {
		if got[name] != url {
			t.Errorf("tasks --json: agent %q has URL %q, want %q (agents %v)", name, got[name], url, got)
		}
	}
	found := false
	for _, tk := range doc.Tasks {
		found = found || tk.ID == string(id) && tk.Agent == "test-runner-2"
	}
	if !found {
		t.Errorf("tasks --json: task %s is not under test-runner-2:\n%s", id, out)
	}

	ctx, cancel := context.WithCancel(ctx)
	var wout, werr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"watch", "--jsonl"}, args...), Streams{Out: &wout, Err: &werr})
	}()
	deadline := time.After(20 * time.Second)
	for seen := map[string]bool{}; len(seen) < len(want); {
		select {
		case <-deadline:
			cancel()
			t.Fatalf("watch: agents seen %v, want %v:\n%s%s", seen, want, wout.String(), werr.String())
		case <-time.After(20 * time.Millisecond):
		}
		sc := bufio.NewScanner(strings.NewReader(wout.String()))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev struct{ Agent string }
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			if _, ok := want[ev.Agent]; !ok {
				cancel()
				t.Fatalf("watch: event under %q:\n%s", ev.Agent, sc.Text())
			}
			seen[ev.Agent] = true
		}
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("watch = %d %q", code, werr.String())
	}
}

// hasRow reports whether a line of the table starts with name and holds url.
func hasRow(table, name, url string) bool {
	for line := range strings.SplitSeq(table, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == name && f[1] == url {
			return true
		}
	}
	return false
}
