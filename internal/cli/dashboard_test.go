package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"a2atop/demo"
)

// TestDashboardRunsAndQuits drives the real dashboard command through a
// pipe: it draws the demo agents' task, quits on "q" with status 0, prints
// nothing on stderr, and has opened the journal and the log file.
func TestDashboardRunsAndQuits(t *testing.T) {
	dir := isolate(t)
	t.Setenv("NO_COLOR", "1")
	agents := startDemo(t, demo.Options{NoPlanner: true})
	id := startTask(t, agents[0].URL)
	cfg := writeConfig(t, dir, agents)

	in, keys := io.Pipe()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"--config", cfg}, Streams{In: in, Out: &out, Err: &errOut})
	}()
	short := string(id)[len(id)-8:]
	deadline := time.After(20 * time.Second)
	for !strings.Contains(out.String(), "test-runner") {
		select {
		case <-deadline:
			t.Fatalf("dashboard never drew test-runner (task %s):\n%s\nstderr: %s", short, out.String(), errOut.String())
		case code := <-done:
			t.Fatalf("dashboard ended early with %d: %s", code, errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("dashboard = %d, stderr %q", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("dashboard did not quit on q")
	}
	keys.Close()
	if errOut.String() != "" {
		t.Errorf("stderr while the dashboard ran: %q", errOut.String())
	}
	for _, f := range []string{"journal.jsonl", "a2atop.log"} {
		if _, err := os.Stat(filepath.Join(dir, "state", "a2atop", f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
