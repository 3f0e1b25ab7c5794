package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A config file without an end (a link to /dev/zero) or far too large is
// refused after MaxConfigBytes, with the file and why, instead of read
// until the memory runs out; a pipe (--config <(sops -d …)) still reads.
func TestLoadConfigWithoutAnEnd(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.toml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Skipf("no /dev/zero link here: %v", err)
	}
	big := filepath.Join(dir, "big.toml")
	writeFile(t, big, "# "+strings.Repeat("x", MaxConfigBytes)+"\n")
	for _, p := range []string{zero, big} {
		done := make(chan error, 1)
		go func() { _, err := Load(p, nil); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "larger than") {
				t.Errorf("Load(%s) = %v; want the file and \"larger than\"", p, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("Load(%s) still reading after 30s", p)
		}
	}
}
