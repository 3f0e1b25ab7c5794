//go:build unix

package a2aclient

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// plantPipe replaces path with a link to a new named pipe that nobody
// writes, as a file swapped under a running a2atop could be.
func plantPipe(t *testing.T, path string) {
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

// A token file replaced while a2atop runs by a link to a named pipe (or
// a device) is refused at the next read, and the agent's row says which
// file and why; before, the read waited on the pipe forever, holding the
// credential's lock, and the row never said anything.
func TestTokenFileThatIsNotARegularFile(t *testing.T) {
	rot := &rotating{want: []string{"tok-one-1111"}}
	a := startAgent(t, kindJSONRPC, false, rot.wrap)
	path := filepath.Join(t.TempDir(), "token")
	writeFile(t, path, "tok-one-1111\n")
	o := fast("a", a.url())
	o.Auth = AuthOptions{Type: AuthBearer, Token: Secret{File: path}}
	_, c := runManager(t, []AgentOptions{o}, Options{})
	id := a.createInStore(t, a2a.TaskStateInputRequired)
	c.waitFor(t, "the task with the token", 10*time.Second, func(evs []model.Event) bool { return hasTask(evs, "a", id, "") })
	plantPipe(t, path)
	c.waitFor(t, "the row naming the file and why", 15*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return h != nil && strings.Contains(h.Err, path) && strings.Contains(h.Err, "not a regular file")
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
