package cli

import (
	"context"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/demo"
	"a2atop/internal/config"
	"a2atop/internal/feedtest"
	"a2atop/model"
	"a2atop/push"
)

// TestServePushWebhook: with push_public_url and no push_listen, a2atop
// serve serves the webhook on the hub's own address beside the hub's
// API; a POST without a token is 401, one for no configured agent 404,
// and the hub still answers its own calls. With push_listen it listens
// there instead.
func TestServePushWebhook(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true})
	cfg := writeHubConfig(t, dir, agents[:1], time.Second)
	b, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append([]byte("push_public_url = \"http://127.0.0.1:1\"\n"), b...), 0o600); err != nil {
		t.Fatal(err)
	}
	url := startHub(t, cfg)
	post := func(u string) int {
		resp, err := http.Post(u, "application/a2a+json", strings.NewReader(`{"statusUpdate":{"taskId":"t"}}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(url + push.Path + agents[0].Name); got != http.StatusUnauthorized {
		t.Errorf("a POST without a token to the webhook of %s: %d, want 401", agents[0].Name, got)
	}
	if got := post(url + push.Path + "nobody"); got != http.StatusNotFound {
		t.Errorf("a POST for no configured agent: %d, want 404", got)
	}
	resp, err := http.Get(url + "/v1/me")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the hub's /v1/me without a token beside the webhook: %d, want 401", resp.StatusCode)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg2 := writeHubConfig(t, dir, agents[:1], time.Second)
	b, _ = os.ReadFile(cfg2)
	keys := "push_public_url = \"http://" + addr + "\"\npush_listen = \"" + addr + "\"\n"
	if err := os.WriteFile(cfg2, append([]byte(keys), b...), 0o600); err != nil {
		t.Fatal(err)
	}
	url2 := startHub(t, cfg2)
	eventually(t, "the webhook on push_listen", func() bool {
		resp, err := http.Post("http://"+addr+push.Path+agents[0].Name, "application/a2a+json", strings.NewReader("{}"))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusUnauthorized
	})
	if got := post(url2 + push.Path + agents[0].Name); got != http.StatusNotFound {
		t.Errorf("the hub's own address with push_listen set answered the webhook's path %d; want 404 (the webhook is on push_listen)", got)
	}
}

// TestDashboardNeedsPushListen: a dashboard with push_public_url but no
// push_listen is refused with what to set.
func TestDashboardNeedsPushListen(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true})
	cfg := writeConfig(t, dir, agents[:1])
	b, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append([]byte("push_public_url = \"http://127.0.0.1:1\"\n"), b...), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd(context.Background(), "--config", cfg)
	if code != exitUsage || !strings.Contains(errOut, "push_listen is not") {
		t.Errorf("dashboard with push_public_url alone = %d %q", code, errOut)
	}
}

// freeAddr is a loopback address nobody listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startReview creates a code review task on the demo's code-reviewer,
// straight to the agent: it works for a step, then asks for a branch.
func startReview(t *testing.T, agents []demo.Agent) a2a.TaskID {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	task, err := newTestManager(agents).Reply(ctx, demo.CodeReviewer, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("review 9f3c2e1")))
	if err != nil || task == nil {
		t.Fatalf("a review task: %v %v", task, err)
	}
	return task.ID
}

// TestHubPush: a hub whose agents push to it (push_public_url on its own
// address, sweeps an hour apart) puts a question in the team's inbox by
// push, takes the answer of a dashboard attached to it, and gets the
// completion by push; the agent's row on the dashboard says push is on
// and counts the deliveries, and the hub's configs end with the task.
func TestHubPush(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Push: true, Timings: demo.Timings{Step: 2 * time.Second}})
	var reviewer []demo.Agent
	for _, a := range agents {
		if a.Name == demo.CodeReviewer {
			reviewer = append(reviewer, a)
		}
	}
	addr := freeAddr(t)
	cfg := writeHubConfig(t, dir, reviewer, time.Hour)
	b, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append([]byte("push_public_url = \"http://"+addr+"\"\nfull_resync = \"1h\"\n"), b...), 0o600); err != nil {
		t.Fatal(err)
	}
	id := startReview(t, agents)
	url := startHub(t, cfg, "--listen", addr)
	f := followHub(t, url, "alice")
	firstVia := func(st a2a.TaskState) func() bool {
		return func() bool { return f.first(id, st) == model.SourcePush }
	}
	eventually(t, "the question in the inbox by push", firstVia(a2a.TaskStateInputRequired))
	t.Setenv(config.EnvHubToken, tokenOf("alice"))
	if code, out, errOut := runCmd(context.Background(), "reply", "--hub", url, demo.CodeReviewer, string(id), "--text", "main"); code != exitOK {
		t.Fatalf("reply through the hub = %d %q %q", code, out, errOut)
	}
	eventually(t, "the completion by push", firstVia(a2a.TaskStateCompleted))
	eventually(t, "the agent's push row: on, deliveries, no config left", func() bool {
		p := f.push(demo.CodeReviewer)
		return p.On && p.Delivered >= 2 && p.Configs == 0 && p.Rejected == 0
	})
}

// hubEvents records, from a hub's feed, the source each task state was
// first seen from and each agent's latest push status.
type hubEvents struct {
	mu     sync.Mutex
	firsts map[string]model.Source
	pushes map[string]model.PushHealth
}

func followHub(t *testing.T, url, operator string) *hubEvents {
	t.Helper()
	f := &hubEvents{firsts: map[string]model.Source{}, pushes: map[string]model.PushHealth{}}
	feedtest.Follow(t, url, tokenOf(operator), f.note)
	return f
}

func (f *hubEvents) note(ev model.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var id a2a.TaskID
	var st a2a.TaskState
	switch {
	case ev.Kind == model.EventTask && ev.Task != nil:
		id, st = ev.Task.ID, ev.Task.Status.State
	case ev.Kind == model.EventStatus && ev.Status != nil:
		id, st = ev.Status.TaskID, ev.Status.Status.State
	case ev.Kind == model.EventHealth && ev.Health != nil:
		f.pushes[ev.Agent] = ev.Health.Push
		return
	default:
		return
	}
	k := string(id) + " " + string(model.NormalizeState(st))
	if _, ok := f.firsts[k]; !ok {
		f.firsts[k] = ev.Source
	}
}

func (f *hubEvents) first(id a2a.TaskID, st a2a.TaskState) model.Source {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.firsts[string(id)+" "+string(st)]
}

func (f *hubEvents) push(agent string) model.PushHealth {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pushes[agent]
}

// TestCheckTriesPush: with push_public_url set, check says for each agent
// whether it offers push and, where it holds an open task, whether it
// takes a push config (registered, then deleted at once).
func TestCheckTriesPush(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Push: true, Timings: demo.Timings{Step: 10 * time.Millisecond}})
	startReview(t, agents)
	cfg := writeConfig(t, dir, agents)
	b, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append([]byte("push_public_url = \"http://127.0.0.1:1\"\n"), b...), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(context.Background(), "check", "--config", cfg)
	if code != exitOK {
		t.Fatalf("check = %d %q %q", code, out, errOut)
	}
	for _, want := range []struct{ agent, cell string }{
		{demo.CodeReviewer, "yes, registration ok"},
		{demo.TestRunner, "yes (no open task to try a config on)"},
		{demo.LegacyIntake, "  no  "},
	} {
		line := lineOf(out, want.agent)
		if !strings.Contains(line, want.cell) {
			t.Errorf("check's row of %s: %q, want %q in it", want.agent, line, want.cell)
		}
	}
}

func lineOf(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix+" ") {
			return l
		}
	}
	return ""
}
