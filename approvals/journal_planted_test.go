//go:build unix

package approvals

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const victimText = "the victim's own file\n"

// plantVictim writes a file of the user's, mode 0644, that a planted
// journal links to, and returns a check that it is untouched.
func plantVictim(t *testing.T) (path string, untouched func()) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(path, []byte(victimText), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, func() {
		t.Helper()
		b, err := os.ReadFile(path)
		fi, _ := os.Stat(path)
		if err != nil || string(b) != victimText || fi.Mode().Perm() != 0o644 {
			t.Fatalf("the victim's file was written or chmod'ed: %q, mode %v, %v", b, fi.Mode().Perm(), err)
		}
	}
}

// TestJournalRefusesPlantedStateDir reproduces the attack: another local
// user creates the state directory a2atop falls back to (mode 0777),
// with journal.jsonl linked to one of the victim's files. Opening the
// service, to write or only to read, is refused with a reason and a
// remedy, and the victim's file is neither appended to nor chmod'ed.
func TestJournalRefusesPlantedStateDir(t *testing.T) {
	victim, untouched := plantVictim(t)
	dir := filepath.Join(t.TempDir(), "a2atop-state")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "journal.jsonl")
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	for _, readOnly := range []bool{false, true} {
		svc, err := Open(Options{JournalPath: path, Sender: newSDKSender(), ReadOnly: readOnly})
		if err == nil {
			svc.Close()
			t.Fatalf("read-only %v: Open accepted a journal in a directory anyone may write", readOnly)
		}
		if !strings.Contains(err.Error(), "writable by other users") || !strings.Contains(err.Error(), "journal_path") {
			t.Errorf("read-only %v: error %q does not say what is wrong and what to do", readOnly, err)
		}
	}
	untouched()
}

// TestJournalRefusesSymlinkedPath: journal_path naming a symbolic link,
// even in a directory of the user's own, is not followed.
func TestJournalRefusesSymlinkedPath(t *testing.T) {
	victim, untouched := plantVictim(t)
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	svc, err := Open(Options{JournalPath: path, Sender: newSDKSender()})
	if err == nil {
		svc.Close()
		t.Fatal("Open followed a symlinked journal_path")
	}
	if !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("error %q does not name the link", err)
	}
	untouched()
}

// TestJournalRefusesDirOfAnotherUser: a state directory another user
// owns, even one only its owner may write (0755), is refused.
func TestJournalRefusesDirOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give a directory to another user")
	}
	const nobody = 65534
	dir := filepath.Join(t.TempDir(), "a2atop-state")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "journal.jsonl")
	svc, err := Open(Options{JournalPath: path, Sender: newSDKSender()})
	if err == nil {
		svc.Close()
		t.Fatal("Open used a state directory owned by another user")
	}
	if !strings.Contains(err.Error(), "owned by another user") {
		t.Errorf("error %q does not say who owns the directory", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a journal was created in the other user's directory: %v", err)
	}
}
