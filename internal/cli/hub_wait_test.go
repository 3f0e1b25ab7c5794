package cli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"a2atop/demo"
	"a2atop/internal/agenttest"
)

// TestADashboardStartedBeforeItsHubWaitsForIt: `a2atop --hub URL` run
// before the hub listens shows the banner of an unreachable hub, waiting
// for it and trying again; once the hub is up on that address it
// attaches and runs the dashboard. A token the hub refuses still ends it
// at once.
func TestADashboardStartedBeforeItsHubWaitsForIt(t *testing.T) {
	dir := isolate(t)
	t.Setenv("NO_COLOR", "1")
	ag := agenttest.StartAgent(t)
	cfg := writeHubConfig(t, dir, []demo.Agent{{Name: "deployer", URL: ag.URL}}, 200*time.Millisecond)
	addr := freeAddr(t)
	t.Setenv("A2ATOP_HUB_TOKEN", tokenOf("alice"))
	in, keys := io.Pipe()
	defer keys.Close()
	var out, errOut syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--hub", "http://" + addr}, Streams{In: in, Out: &out, Err: &errOut})
	}()
	eventually(t, "the dashboard says it waits for the hub", func() bool {
		select {
		case code := <-done:
			t.Fatalf("a2atop --hub ended with %d before its hub started: %q", code, errOut.String())
		default:
		}
		return strings.Contains(out.String(), "unreachable since") && strings.Contains(out.String(), "waiting for it")
	})
	startHub(t, cfg, "--listen", addr)
	eventually(t, "the dashboard attached once the hub is up", func() bool { return strings.Contains(out.String(), "operator alice") })
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("a2atop --hub = %d %q", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the dashboard did not quit on q")
	}
	t.Setenv("A2ATOP_HUB_TOKEN", "not-a-token")
	if code, _, e := runCmd(ctx, "--hub", "http://"+addr); code != exitUsage || !strings.Contains(e, "401") {
		t.Errorf("a refused token = %d %q, want %d at once", code, e, exitUsage)
	}
}
