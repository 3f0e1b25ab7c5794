package cli

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
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
