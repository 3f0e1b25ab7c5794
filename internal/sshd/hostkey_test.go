package sshd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"a2atop/internal/statefile"
)

// TestHostKeyMadeOnceAndKept: the first start makes an ed25519 key
// (0600); the next reads the same one.
func TestHostKeyMadeOnceAndKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", HostKeyFile)
	k1, created, err := HostKey(path)
	if err != nil || !created || k1.PublicKey().Type() != "ssh-ed25519" {
		t.Fatalf("first start: %v, created %v", err, created)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v, mode %v; want 0600", err, fi.Mode())
	}
	k2, created, err := HostKey(path)
	if err != nil || created || !bytes.Equal(k1.PublicKey().Marshal(), k2.PublicKey().Marshal()) {
		t.Fatalf("second start: %v, created %v, same key %v", err, created, k2 != nil && bytes.Equal(k1.PublicKey().Marshal(), k2.PublicKey().Marshal()))
	}
}

// TestHostKeyRefusedWhenPlanted: a symbolic link at the key's path, or a
// key others may read, is refused with what to do; the link's target
// is left as it was.
func TestHostKeyRefusedWhenPlanted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, HostKeyFile)
	if _, _, err := HostKey(filepath.Join(t.TempDir(), "other", HostKeyFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(t.TempDir(), "attacker_key")
	if _, _, err := HostKey(planted); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(planted)
	if err := os.Symlink(planted, path); err != nil {
		t.Fatal(err)
	}
	if _, _, err := HostKey(path); !errors.Is(err, statefile.ErrUnsafe) {
		t.Fatalf("a symbolic link as the host key: %v, want a refusal", err)
	}
	if after, _ := os.ReadFile(planted); !bytes.Equal(before, after) {
		t.Fatalf("the link's target was changed")
	}
	os.Remove(path)
	if _, _, err := HostKey(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := HostKey(path); err == nil || !strings.Contains(err.Error(), "may be read by others") {
		t.Fatalf("a host key readable by others: %v, want a refusal", err)
	}
}

// TestInputReadsWithinTheBurst: a flood is read at most a burst at a
// time, the rest waiting in the client's window.
func TestInputReadsWithinTheBurst(t *testing.T) {
	flood := bytes.NewReader(make([]byte, 1<<20))
	in := newInput(flood, 1<<20, 100, 0, func() {}, func() {})
	defer in.stop()
	buf := make([]byte, 64<<10)
	for range 3 {
		n, err := in.Read(buf)
		if err != nil || n == 0 || n > 100 {
			t.Fatalf("read %d bytes (%v); want 1 to the burst of 100", n, err)
		}
	}
}
