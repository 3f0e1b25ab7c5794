package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"a2atop/demo"
	"a2atop/internal/agenttest"
)

// TestDemoHubPrintsACommandThatRuns: the command demo --hub prints for
// bob's dashboard names what runs from where the demo was started: "go
// run ." for a binary go run built (tried as a new user would, from a
// clone), "a2atop" when the PATH finds this very binary, else its path.
func TestDemoHubPrintsACommandThatRuns(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "a2atop")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "a2atop")
	if err := os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	found := func(p string) func(string) (string, error) {
		return func(string) (string, error) { return p, nil }
	}
	none := func(string) (string, error) { return "", errors.New("not found") }
	for _, c := range []struct {
		exe    string
		lookup func(string) (string, error)
		want   string
	}{
		{"/tmp/go-build3141592/b001/exe/a2atop", none, "go run ."},
		{"/root/.cache/go-build/4f/4f1e-d/a2atop", found(bin), "go run ."},
		{bin, found(bin), "a2atop"},
		{bin, found(other), bin},
		{bin, none, bin},
	} {
		if got := commandFor(c.exe, c.lookup); got != c.want {
			t.Errorf("commandFor(%s) = %q, want %q", c.exe, got, c.want)
		}
	}
}

// TestServeSaysTheCommandThatAttaches: serve's line on stderr gives the
// command that attaches a dashboard to it, as this a2atop runs and with
// the hub's own URL, not a placeholder.
func TestServeSaysTheCommandThatAttaches(t *testing.T) {
	dir := isolate(t)
	ag := agenttest.StartAgent(t)
	cfg := writeHubConfig(t, dir, []demo.Agent{{Name: "deployer", URL: ag.URL}}, time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", cfg, "--listen", "127.0.0.1:0"}, Streams{Out: &out, Err: &errOut})
	}()
	defer func() { cancel(); <-done }()
	var url string
	eventually(t, "serve says where it listens", func() bool {
		if m := hubLine.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
		return url != "" && strings.Contains(errOut.String(), "attach")
	})
	if want := selfCommand() + " --hub " + url; !strings.Contains(errOut.String(), want) {
		t.Errorf("serve's stderr %q does not give %q", errOut.String(), want)
	}
}
