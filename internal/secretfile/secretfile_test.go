package secretfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A regular file is read whole, through a link too; a directory and a
// file over MaxSize are refused with the path and the reason.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(small, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for _, p := range []string{small, link} {
		if b, err := Read(p); err != nil || string(b) != "tok\n" {
			t.Errorf("Read(%s) = %q, %v", p, b, err)
		}
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", MaxSize+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]error{dir: ErrNotRegular, big: ErrTooLarge} {
		_, err := Read(p)
		if !errors.Is(err, want) || !strings.Contains(err.Error(), p) {
			t.Errorf("Read(%s) = %v; want %v naming the file", p, err, want)
		}
	}
	if _, err := Read(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
