package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/demo"
	"a2atop/hubclient"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

// TestServeEmbeddedClusterRace: three `a2atop serve --cluster-listen
// --peers` (in this process, on loopback, no other NATS) form one
// JetStream cluster; operators on each hub race on every prompt: the
// agent receives exactly one decision per prompt (counted at the
// agent), and every loser is refused naming the winner.
func TestServeEmbeddedClusterRace(t *testing.T) {
	ag := agenttest.StartAgent(t)
	routes := loopbackPorts(t, 3)
	var urls []string
	var wg sync.WaitGroup
	urlCh := make([]chan string, 3)
	var dirs []string
	for i := range 3 {
		dir := t.TempDir()
		dirs = append(dirs, dir)
		cfg := writeHubConfig(t, dir, []demo.Agent{{Name: "agent", URL: ag.URL}}, 100*time.Millisecond)
		var peers []string
		for j := range 3 {
			if j != i {
				peers = append(peers, routes[j])
			}
		}
		urlCh[i] = make(chan string, 1)
		wg.Add(1)
		go func() { // the hubs wait for one another: start them together
			defer wg.Done()
			urlCh[i] <- startHubQuiet(t, cfg, "--cluster-listen", routes[i], "--peers", strings.Join(peers, ","))
		}()
	}
	wg.Wait()
	for i := range 3 {
		u := <-urlCh[i]
		if u == "" {
			t.FailNow()
		}
		urls = append(urls, u)
	}
	ops := []string{"alice", "bob", "carol"} // bob and carol answer only: the prompts are replies
	dashes := make([]*clusterDash, 3)
	for i, u := range urls {
		dashes[i] = attachDash(t, u, ops[i])
	}
	const prompts = 30
	for n := 0; n < prompts; n += 10 {
		var ids []a2a.TaskID
		for range 10 {
			ids = append(ids, ag.Start("ask"))
		}
		for _, d := range dashes {
			for _, id := range ids {
				d.waitInbox(t, id)
			}
		}
		outs := raceAll(t, dashes, ids)
		for i, id := range ids {
			if got := ag.OnTask(id); got != 1 {
				t.Fatalf("prompt %d: the agent received %d replies, want exactly 1", n+i, got)
			}
			winner := ""
			for k, o := range outs[i] {
				if o.Result == approvals.ResultAccepted {
					winner = dashes[k].op
				}
			}
			for k, o := range outs[i] {
				if o.Result != approvals.ResultAccepted && (o.Winner == nil || !strings.HasPrefix(o.Words(), "decided by "+winner+" at ")) {
					t.Fatalf("prompt %d: %s got %q (%v), want it to name %s", n+i, dashes[k].op, o.Words(), o.Err, winner)
				}
			}
		}
	}
	// One of the hubs took the agent's watch lease, and said so in its log.
	took := 0
	var leases []string
	for _, dir := range dirs {
		b, _ := os.ReadFile(filepath.Join(dir, "hub.log"))
		if strings.Contains(string(b), `msg="watch lease taken" cmd=serve agent=agent hub=`) {
			took++
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "lease") || strings.Contains(l, "record") {
				leases = append(leases, l)
			}
		}
	}
	if took == 0 {
		t.Errorf("no hub logged taking the agent's watch lease; what the hubs logged of their leases and record:\n%s", strings.Join(leases, "\n"))
	}
}

// loopbackPorts picks n loopback addresses nothing listens on.
func loopbackPorts(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ln.Addr().String())
		defer ln.Close()
	}
	return out
}

// startHubQuiet is startHub for a goroutine: "" (the failure logged)
// instead of t.Fatal. The hub also serves carol, who may answer.
func startHubQuiet(t *testing.T, cfg string, args ...string) string {
	addCarol(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--config", cfg, "--listen", "127.0.0.1:0"}, args...), Streams{Out: &out, Err: &errOut})
	}()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if m := hubLine.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		select {
		case code := <-done:
			done <- code // for the cleanup
			t.Errorf("serve ended with %d: %s", code, errOut.String())
			return ""
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Errorf("serve never said where it listens: %q %q", out.String(), errOut.String())
	return ""
}

const carolToken = "tok-carol-1f2e3d4c5b6a7988"

func addCarol(t *testing.T, cfg string) {
	tf := filepath.Join(filepath.Dir(cfg), "carol.token")
	if err := os.WriteFile(tf, []byte(carolToken+"\n"), 0o600); err != nil {
		t.Error(err)
	}
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "[[operator]]\nname = \"carol\"\ntoken_file = %q\nroles = { \"*\" = [\"watch\", \"answer\"] }\n", tf)
}

// clusterDash is a dashboard attached to one hub, without a screen.
type clusterDash struct {
	op  string
	svc *approvals.Service
	cl  *hubclient.Client

	mu    sync.Mutex
	fleet *model.Fleet
}

// attachDash attaches op's dashboard to the hub at url; others are the
// team's other hubs it fails over to.
func attachDash(t *testing.T, url, op string, others ...string) *clusterDash {
	t.Helper()
	tok := tokenOf(op)
	if op == "carol" {
		tok = carolToken
	}
	cl, err := hubclient.New(hubclient.Options{URL: url, Others: others, Token: tok, MinBackoff: 50 * time.Millisecond, MaxBackoff: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Me(context.Background()); err != nil {
		t.Fatal(err)
	}
	svc, err := cl.OpenService(approvals.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := &clusterDash{op: op, svc: svc, cl: cl, fleet: model.NewFleet(model.Options{})}
	d.fleet.AddAgent("agent", "")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); cl.Run(ctx) }()
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-cl.Events():
				d.mu.Lock()
				d.fleet.Apply([]model.Event{ev})
				d.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return d
}

func (d *clusterDash) waitInbox(t *testing.T, id a2a.TaskID) {
	t.Helper()
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		d.mu.Lock()
		_, ok := d.svc.ItemOf(d.fleet, model.TaskKey{Agent: "agent", ID: id})
		in := ok && d.fleet.Task(model.TaskKey{Agent: "agent", ID: id}).Class == model.ClassInterrupted
		d.mu.Unlock()
		if in {
			return
		}
	}
	t.Fatalf("%s: task %s never reached the inbox", d.op, id)
}

func (d *clusterDash) prepare(t *testing.T, id a2a.TaskID) *approvals.Decision {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	it, _ := d.svc.ItemOf(d.fleet, model.TaskKey{Agent: "agent", ID: id})
	dec, err := d.svc.Prepare(it, approvals.Input{Kind: approvals.KindReply, Text: "main"})
	if err != nil {
		t.Fatalf("%s prepares on %s: %v", d.op, id, err)
	}
	return dec
}

// TestServeStoreUnreachable: a hub whose [hub.store] cannot be reached
// does not start; it says which server and why.
func TestServeStoreUnreachable(t *testing.T) {
	ag := agenttest.StartAgent(t)
	dir := t.TempDir()
	cfg := writeHubConfig(t, dir, []demo.Agent{{Name: "agent", URL: ag.URL}}, time.Second)
	addr := loopbackPorts(t, 1)[0]
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "[hub.store]\nnats = [\"nats://%s\"]\nreplicas = 1\n", addr)
	f.Close()
	var out, errOut syncBuffer
	code := run(context.Background(), []string{"serve", "--config", cfg, "--listen", "127.0.0.1:0"}, Streams{Out: &out, Err: &errOut})
	want := "a2atop serve: the team's record: the team's NATS servers cannot be reached: nats://" + addr + ": dial tcp " + addr + ": connect: connection refused"
	if code != exitFailed || !strings.Contains(errOut.String(), want) {
		t.Fatalf("serve = %d, stderr %q; want %d and %q", code, errOut.String(), exitFailed, want)
	}
}

// TestServeClusterBeyondLoopbackNeedsInsecure: without the routes' TLS
// files the embedded cluster's routes are plain and unauthenticated, so
// a cluster address beyond loopback is refused without --insecure, in
// words, before anything listens.
func TestServeClusterBeyondLoopbackNeedsInsecure(t *testing.T) {
	ag := agenttest.StartAgent(t)
	cfg := writeHubConfig(t, t.TempDir(), []demo.Agent{{Name: "agent", URL: ag.URL}}, time.Second)
	var out, errOut syncBuffer
	code := run(context.Background(), []string{"serve", "--config", cfg, "--listen", "127.0.0.1:0", "--cluster-listen", "0.0.0.0:6222", "--peers", "10.0.0.2:6222"},
		Streams{Out: &out, Err: &errOut})
	if code != exitFailed || !strings.Contains(errOut.String(), "0.0.0.0:6222 is not a loopback address") || !strings.Contains(errOut.String(), "--insecure") {
		t.Fatalf("serve = %d, stderr %q; want it refused, naming --insecure", code, errOut.String())
	}
}
