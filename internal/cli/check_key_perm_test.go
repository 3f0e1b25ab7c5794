//go:build unix

package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"a2atop/internal/agenttest"
	"a2atop/internal/testcert"
)

// check against an mTLS agent whose client key file other users may
// read: the agent answers (ok), and the row says the key file is open
// and what to do; before, check said ok alone (the warning was only on
// the dashboard's row).
func TestCheckWarnsOfAKeyFileReadableByOthers(t *testing.T) {
	dir := isolate(t)
	ca, clients := testcert.NewCA(t, "servers"), testcert.NewCA(t, "clients")
	ag := agenttest.StartAgentTLS(t, ca.ServerConfig(t, clients.Pool()))
	ag.Start("deploy")
	certFile, keyFile := testcert.WriteFiles(t, dir, "a2atop", clients.Client(t, "a2atop"))
	must(t, os.Chmod(keyFile, 0o644))
	caFile := ca.WriteCA(t, dir)
	doc := fmt.Sprintf("[[agent]]\nname = \"mtls\"\nurl = %q\n[agent.auth]\ncert_file = %q\nkey_file = %q\nca_file = %q\n",
		ag.URL, certFile, keyFile, caFile)
	path := filepath.Join(dir, "c.toml")
	must(t, os.WriteFile(path, []byte(doc), 0o600))
	code, out, errOut := runCmd(context.Background(), "check", "--config", path, "--timeout", "20s")
	if code != exitOK {
		t.Fatalf("check = %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "ok") || !strings.Contains(out, keyFile) || !strings.Contains(out, "can be read by other users") {
		t.Errorf("check does not warn of the key file:\n%s", out)
	}
}
