package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"a2atop/demo"
)

// The config errors the commands find after Load name file:line:key as
// Load's do: a TLS pair serve cannot load, push_public_url without
// push_listen. Before, they named the keys alone.
func TestCommandConfigErrorsNameTheLine(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true})

	must(t, os.WriteFile(filepath.Join(dir, "bad.crt"), []byte("not a certificate\n"), 0o600))
	cfg := writeHubConfig(t, dir, agents[:1], time.Second)
	b, _ := os.ReadFile(cfg)
	must(t, os.WriteFile(cfg, append([]byte("theme = \"dark\"\ntls_cert_file = \"bad.crt\"\ntls_key_file = \"bad.crt\"\n"), b...), 0o600))
	code, _, errOut := runCmd(context.Background(), "serve", "--config", cfg, "--listen", "127.0.0.1:0")
	if want := cfg + ":2: tls_cert_file: "; code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("serve with a bad TLS pair = %d %q; want %d and %q", code, errOut, exitUsage, want)
	}

	cfg = writeConfig(t, dir, agents[:1])
	b, _ = os.ReadFile(cfg)
	must(t, os.WriteFile(cfg, append([]byte("theme = \"dark\"\npush_public_url = \"http://127.0.0.1:1\"\n"), b...), 0o600))
	code, _, errOut = runCmd(context.Background(), "--config", cfg)
	if want := cfg + ":2: push_public_url: "; code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("dashboard with push_public_url alone = %d %q; want %d and %q", code, errOut, exitUsage, want)
	}
}
