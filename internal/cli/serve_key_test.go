//go:build unix

package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServePrintKey: `a2atop serve --print-key` makes the hub's signing
// key on first use (0600, beside the journal) and prints only its public
// half, the same each time; a key file others may read, or a symbolic
// link planted in its place, is refused with what to do.
func TestServePrintKey(t *testing.T) {
	dir := isolate(t)
	state := filepath.Join(dir, "state", "a2atop")
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("journal_path = \""+filepath.Join(state, "journal.jsonl")+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	code, first, errOut := runCmd(ctx, "serve", "--print-key", "--config", cfg)
	if code != exitOK || !strings.Contains(first, "-----BEGIN PUBLIC KEY-----") || !strings.Contains(first, "\ned25519:") || strings.Contains(first, "PRIVATE") {
		t.Fatalf("serve --print-key: %d\n%s%s", code, first, errOut)
	}
	keyFile := filepath.Join(state, signingKeyName)
	fi, err := os.Stat(keyFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the signing key file: %v %v", fi, err)
	}
	if _, again, _ := runCmd(ctx, "serve", "--print-key", "--config", cfg); again != first {
		t.Fatalf("a second --print-key printed another key:\n%s\n%s", first, again)
	}

	if err := os.Chmod(keyFile, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(ctx, "serve", "--print-key", "--config", cfg)
	if code != exitFailed || !strings.Contains(errOut, "mode 0644") || !strings.Contains(errOut, "chmod 600") {
		t.Fatalf("a key others may read: %d\n%s%s", code, out, errOut)
	}
	if err := os.Remove(keyFile); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "elsewhere.key"), keyFile); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCmd(ctx, "serve", "--print-key", "--config", cfg)
	if code != exitFailed || !strings.Contains(errOut, "symbolic link") {
		t.Fatalf("a planted link: %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Lstat(filepath.Join(dir, "elsewhere.key")); err == nil {
		t.Error("a key was written through the planted link")
	}
}
