//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"a2atop/internal/testcert"
)

// TestSecretFilesRefuseWhatIsNotASmallRegularFile points every key that
// names a secret, key, certificate or list file at a link to /dev/zero,
// at a named pipe with no writer and at a file too large to be a secret:
// each is refused at once with an error that names the file and why
// (before, /dev/zero was read until the kernel killed a2atop, and a pipe
// was waited on forever).
func TestSecretFilesRefuseWhatIsNotASmallRegularFile(t *testing.T) {
	dir := t.TempDir()
	ca := testcert.NewCA(t, "secret-files")
	certFile, keyFile := testcert.WriteFiles(t, dir, "client", ca.Client(t, "a2atop"))
	writeFile(t, filepath.Join(dir, "good"), "good-secret\n")
	bad := map[string]string{ // how the bad file is made -> the reason's words
		"zero": "not a regular file",
		"fifo": "not a regular file",
		"big":  "larger than",
	}
	makeBad := map[string]func(string){
		"zero": func(p string) {
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		},
		"fifo": func(p string) {
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skipf("no named pipes here: %v", err)
			}
		},
		"big": func(p string) { writeFile(t, p, strings.Repeat("x", 2<<20)) },
	}
	agent := "[[agent]]\nname = \"a\"\nurl = \"http://127.0.0.1:1\"\n[agent.auth]\n"
	keys := []struct {
		name, doc string
		read      func(*Config) error
	}{
		{"token_file", agent + "token_file = %q\n", agentOpts},
		{"client_secret_file", agent + "client_id = \"c\"\nclient_secret_file = %q\n", agentOpts},
		{"value_file", agent + "[[agent.auth.headers]]\nname = \"X-K\"\nvalue_file = %q\n", agentOpts},
		{"card_key_file", agent + "card_key_file = %q\n", agentOpts},
		{"ca_file", agent + "ca_file = %q\n", agentOpts},
		{"cert_file", agent + "key_file = " + quote(keyFile) + "\ncert_file = %q\n", agentOpts},
		{"key_file", agent + "cert_file = " + quote(certFile) + "\nkey_file = %q\n", agentOpts},
		{"operator token_file", "[[operator]]\nname = \"op\"\nroles = { \"*\" = [\"watch\"] }\ntoken_file = %q\n", hubOps},
		{"hub_token_file", "hub_token_file = %q\n", hubToken},
	}
	t.Setenv(EnvHubToken, "")
	for _, k := range keys {
		for kind, words := range bad {
			t.Run(k.name+"/"+kind, func(t *testing.T) {
				p := filepath.Join(t.TempDir(), kind)
				makeBad[kind](p)
				cfgPath := filepath.Join(dir, "c.toml")
				doc := strings.Replace(k.doc, "%q", quote(p), 1)
				writeFile(t, cfgPath, doc)
				c, err := Load(cfgPath, nil)
				if err != nil {
					t.Fatalf("load: %v", err)
				}
				done := make(chan error, 1)
				go func() { done <- k.read(c) }()
				select {
				case err = <-done:
				case <-time.After(30 * time.Second):
					t.Fatalf("%s: still reading %s after 30s", k.name, p)
				}
				if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), words) {
					t.Errorf("%s = %s: err = %v, want the file and %q", k.name, kind, err, words)
				}
			})
		}
	}
}
