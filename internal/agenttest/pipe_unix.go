//go:build unix

package agenttest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// PlantPipe replaces path with a link to a new named pipe that nobody
// writes, as a file swapped under a running a2atop could be. It skips the
// test where named pipes cannot be made.
func PlantPipe(t *testing.T, path string) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fifo, path); err != nil {
		t.Fatal(err)
	}
}
