package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenLogRefusesPlantedDir: a log directory that other users may write
// (planted 0777, with the log file a symbolic link to someone else's file)
// is refused with a word on stderr; nothing is written through it.
func TestOpenLogRefusesPlantedDir(t *testing.T) {
	base := t.TempDir()
	victim := filepath.Join(base, "victim.txt")
	if err := os.WriteFile(victim, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "a2atop-state")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil { // past the umask
		t.Fatal(err)
	}
	path := filepath.Join(dir, "a2atop.log")
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	log, done := openLog(path, "test", Streams{Out: &bytes.Buffer{}, Err: &errOut})
	log.Info("a line that must not reach the victim")
	done()
	if !strings.Contains(errOut.String(), "not logging") || !strings.Contains(errOut.String(), "writable by other users") {
		t.Errorf("stderr = %q, want the refusal in words", errOut.String())
	}
	got, _ := os.ReadFile(victim)
	if string(got) != "mine\n" {
		t.Errorf("the victim's file was written: %q", got)
	}
	if fi, _ := os.Stat(victim); fi.Mode().Perm() != 0o644 {
		t.Errorf("the victim's file was chmod'ed to %v", fi.Mode().Perm())
	}
}
