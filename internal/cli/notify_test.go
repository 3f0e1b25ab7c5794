package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/demo"
)

// TestDashboardNotifiesWhenATaskWaits runs the real dashboard on the
// demo fleet and starts a staging deploy behind its back: the program's
// output carries an OSC 9 desktop notification naming the deployer and
// its question, and the terminal title counts the task.
func TestDashboardNotifiesWhenATaskWaits(t *testing.T) {
	dir := isolate(t)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("TMUX", "") // inside tmux the sequence is written twice
	agents := startDemo(t, demo.Options{NoPlanner: true})
	cfg := writeConfig(t, dir, agents)

	in, keys := io.Pipe()
	defer keys.Close()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"--config", cfg}, Streams{In: in, Out: &out, Err: &errOut})
	}()
	waitOut := func(what, want string) {
		t.Helper()
		deadline := time.After(40 * time.Second)
		for !strings.Contains(out.String(), want) {
			select {
			case <-deadline:
				logText, _ := os.ReadFile(filepath.Join(dir, "state", "a2atop", "a2atop.log"))
				t.Fatalf("no %s (%q) in the output:\n%q\nstderr: %s\nlog: %s", what, want, out.String(), errOut.String(), logText)
			case code := <-done:
				t.Fatalf("dashboard ended early with %d: %s", code, errOut.String())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	waitOut("the agents", "5 up")
	waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	waitOut("the task", "interrupted 1")
	waitOut("the OSC 9 notification", "\x1b]9;a2atop: deployer waits for you: auth-required · approve deploy of 9f3c2e1 to staging?\a")
	waitOut("the title's count", "\x1b]2;a2atop · 1 waiting\a")
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("dashboard did not quit on q")
	}
}
