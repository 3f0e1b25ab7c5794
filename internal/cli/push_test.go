package cli

import (
	"context"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"a2atop/demo"
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
