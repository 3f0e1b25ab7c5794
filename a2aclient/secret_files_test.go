//go:build unix

package a2aclient

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/agenttest"
	"a2atop/internal/sdktest"
	"a2atop/model"
)

// A token file replaced while a2atop runs by a link to a named pipe (or
// a device) is refused at the next read, and the agent's row says which
// file and why; before, the read waited on the pipe forever, holding the
// credential's lock, and the row never said anything.
func TestTokenFileThatIsNotARegularFile(t *testing.T) {
	rot := &rotating{want: []string{"tok-one-1111"}}
	a := sdktest.Start(t, sdktest.JSONRPC, false, rot.wrap)
	path := filepath.Join(t.TempDir(), "token")
	writeFile(t, path, "tok-one-1111\n")
	o := fast("a", a.URL())
	o.Auth = AuthOptions{Type: AuthBearer, Token: Secret{File: path}}
	_, c := runManager(t, []AgentOptions{o}, Options{})
	id := a.CreateInStore(t, a2a.TaskStateInputRequired)
	c.waitFor(t, "the task with the token", 10*time.Second, func(evs []model.Event) bool { return hasTask(evs, "a", id, "") })
	agenttest.PlantPipe(t, path)
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
