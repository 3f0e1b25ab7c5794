//go:build unix

package statefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nobody is the uid the tests give to another user's files, when they
// run as root and can chown.
const nobody = 65534

// victim is a file of the user's that a planted link points at.
type victim struct{ path string }

const precious = "the victim's own file\n"

func newVictim(t *testing.T) victim {
	t.Helper()
	p := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(p, []byte(precious), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	return victim{p}
}

// untouched fails when anything wrote to the victim or changed its mode.
func (v victim) untouched(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(v.path)
	fi, _ := os.Stat(v.path)
	if err != nil || string(b) != precious || fi.Mode().Perm() != 0o644 {
		t.Fatalf("the victim's file changed: %q, mode %v, %v", b, fi.Mode().Perm(), err)
	}
}

// plantDir makes dir as another user would: mode perm, owned by uid
// (when not -1).
func plantDir(t *testing.T, dir string, perm fs.FileMode, uid int) {
	t.Helper()
	if err := os.Mkdir(dir, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, perm); err != nil { // past the umask
		t.Fatal(err)
	}
	if uid >= 0 {
		if err := os.Lchown(dir, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make a file owned by another user")
	}
}

func wantUnsafe(t *testing.T, err error, words string) {
	t.Helper()
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), words) {
		t.Fatalf("error = %v; want ErrUnsafe saying %q", err, words)
	}
	if !strings.Contains(err.Error(), "remove") && !strings.Contains(err.Error(), "chmod") {
		t.Errorf("error %q does not say what to do", err)
	}
}

// TestPlantedWorldWritableDir: the attack as it happened. Another user
// creates the state directory 0777 with the journal and the log linked
// to the victim's files; nothing is written through them.
func TestPlantedWorldWritableDir(t *testing.T) {
	v := newVictim(t)
	dir := filepath.Join(t.TempDir(), "a2atop-state")
	plantDir(t, dir, 0o777, -1)
	for _, name := range []string{"journal.jsonl", "a2atop.log"} {
		if err := os.Symlink(v.path, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		f, err := OpenAppend(filepath.Join(dir, name))
		if err == nil {
			f.WriteString("appended\n")
			f.Close()
		}
		wantUnsafe(t, err, "writable by other users (mode 0777)")
		_, err = ReadFile(filepath.Join(dir, name))
		wantUnsafe(t, err, "writable by other users")
	}
	v.untouched(t)
}

// TestSymlinkedStateFile: a link at the file's path is refused even in
// a directory of the user's own (journal_path naming a link).
func TestSymlinkedStateFile(t *testing.T) {
	v := newVictim(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "journal.jsonl")
	if err := os.Symlink(v.path, link); err != nil {
		t.Fatal(err)
	}
	f, err := OpenAppend(link)
	if err == nil {
		f.WriteString("appended\n")
		f.Close()
	}
	wantUnsafe(t, err, "is a symbolic link")
	_, err = ReadFile(link)
	wantUnsafe(t, err, "is a symbolic link")
	_, err = Open(link)
	wantUnsafe(t, err, "is a symbolic link")
	// A dangling link would have been created through.
	dangling := filepath.Join(dir, "a2atop.log")
	target := filepath.Join(t.TempDir(), "created-through-the-link")
	if err := os.Symlink(target, dangling); err != nil {
		t.Fatal(err)
	}
	_, err = OpenAppend(dangling)
	wantUnsafe(t, err, "is a symbolic link")
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link's target was created: %v", err)
	}
	v.untouched(t)
}

// TestDirOwnedByAnotherUser: a directory another user made, even 0755
// (no one else may write in it but its owner), is not the victim's.
func TestDirOwnedByAnotherUser(t *testing.T) {
	needRoot(t)
	dir := filepath.Join(t.TempDir(), "a2atop-state")
	plantDir(t, dir, 0o755, nobody)
	_, err := OpenAppend(filepath.Join(dir, "journal.jsonl"))
	wantUnsafe(t, err, "owned by another user (uid 65534")
	if _, err := os.Lstat(filepath.Join(dir, "journal.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file was created in the planted directory: %v", err)
	}
	// The same directory behind a link another user made.
	link := filepath.Join(t.TempDir(), "state")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	_, err = OpenAppend(filepath.Join(link, "journal.jsonl"))
	wantUnsafe(t, err, "symbolic link made by another user")
}

// TestFileOwnedByAnotherUser: a file planted in the user's own directory
// (by root, or before the directory was made private) is refused.
func TestFileOwnedByAnotherUser(t *testing.T) {
	needRoot(t)
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.WriteFile(path, []byte(`{"type":"decision"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	_, err := OpenAppend(path)
	wantUnsafe(t, err, "owned by another user (uid 65534")
	_, err = ReadFile(path)
	wantUnsafe(t, err, "owned by another user")
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("the planted file's mode changed to %v", fi.Mode().Perm())
	}
}

func TestNotARegularFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := OpenAppend(path)
	if err == nil {
		t.Fatal("a directory at the file's path was opened")
	}
	_, err = ReadFile(path)
	wantUnsafe(t, err, "not a regular file")
}

// TestCreatesPrivate: what OpenAppend creates is 0700 and 0600 whatever
// the umask, an existing file of the user's is made 0600 and appended
// to, and ReadFile reads it back.
func TestCreatesPrivate(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a", "b", "journal.jsonl")
	f, err := OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("one\n")
	f.Close()
	for _, d := range []string{filepath.Join(root, "a"), filepath.Join(root, "a", "b")} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != DirMode {
			t.Errorf("%s: mode %v, %v; want %v", d, fi.Mode().Perm(), err, DirMode)
		}
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err = OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("two\n")
	f.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != FileMode {
		t.Errorf("reopened mode = %v, want %v", fi.Mode().Perm(), FileMode)
	}
	if b, err := ReadFile(path); err != nil || string(b) != "one\ntwo\n" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	if _, err := ReadFile(filepath.Join(root, "none", "journal.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v, want fs.ErrNotExist", err)
	}
	if _, err := ReadFile(filepath.Join(root, "a", "missing.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing file) = %v, want fs.ErrNotExist", err)
	}
}

// WriteFile makes a private file and replaces a planted symbolic link
// instead of writing through it.
func TestWriteFileReplacesWhole(t *testing.T) {
	v := newVictim(t)
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "tokens", "agent.json")
	if err := WriteFile(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != FileMode {
		t.Fatalf("stat = %v, %v; want mode 0600", fi, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(v.path, path); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	v.untouched(t)
	if b, err := ReadFile(path); err != nil || string(b) != "two" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
}
