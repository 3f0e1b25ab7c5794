//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"a2atop/demo"
)

// A hub whose tls_key_file other users may read serves, and its log says
// so and what to do (chmod 600).
func TestServeTLSKeyReadableByOthersIsWarned(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true})
	writeCert(t, dir)
	must(t, os.Chmod(filepath.Join(dir, "hub.key"), 0o644))
	cfg := writeHubConfig(t, dir, agents[:1], time.Second)
	b, _ := os.ReadFile(cfg)
	must(t, os.WriteFile(cfg, append([]byte("tls_cert_file = \"hub.crt\"\ntls_key_file = \"hub.key\"\n"), b...), 0o600))
	startHub(t, cfg)
	log, _ := os.ReadFile(filepath.Join(dir, "hub.log"))
	if !strings.Contains(string(log), "can be read by other users") || !strings.Contains(string(log), "chmod 600") {
		t.Errorf("the hub's log does not warn of its key file:\n%s", log)
	}
}
