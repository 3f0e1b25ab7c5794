package statefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrUnsafe is wrapped by every refusal of a directory or file that
// another user could have planted or could change.
var ErrUnsafe = errors.New("unsafe state path")

// Mode bits of what statefile creates.
const (
	DirMode  fs.FileMode = 0o700
	FileMode fs.FileMode = 0o600
)

// OpenAppend opens the state file at path for appending, creating its
// directory (mode 0700) and the file (mode 0600) when they do not exist.
// It refuses, with an error wrapping ErrUnsafe, a directory that is not
// the caller's own or that group or others may write, a symbolic link at
// path, and a file that is not a regular file of the caller's own. An
// existing file of the caller's is made 0600.
func OpenAppend(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return nil, fmt.Errorf("create the state directory %s: %w", dir, plain(err))
	}
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	f, err := openNoFollow(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if errors.Is(err, ErrUnsafe) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("open %s for appending: %w (is the state directory writable?)", path, err)
	}
	if err := checkFile(f, path); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Chmod(FileMode); err != nil {
		f.Close()
		return nil, fmt.Errorf("make %s private (0600): %w", path, plain(err))
	}
	return f, nil
}

// Open opens the state file at path for reading, after the checks
// OpenAppend makes; it creates nothing. It is for a reader that follows
// a file as it grows (the journal, read by offset). A file or directory
// that does not exist is an error for which errors.Is(err, fs.ErrNotExist).
func Open(path string) (*os.File, error) {
	if err := CheckDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := openNoFollow(path, os.O_RDONLY)
	if errors.Is(err, ErrUnsafe) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := checkFile(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the state file at path, as os.ReadFile does, after the
// checks OpenAppend makes; it creates nothing. A file or directory that
// does not exist is an error for which errors.Is(err, fs.ErrNotExist).
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, plain(err))
	}
	return b, nil
}

// CheckDir refuses, with an error wrapping ErrUnsafe, a state directory
// that another user could have planted or could write in: one that is
// not a directory, is owned by another user, is writable by group or
// others, or is a symbolic link made by another user. A directory that
// does not exist is an error for which errors.Is(err, fs.ErrNotExist).
func CheckDir(dir string) error {
	return checkDir(dir)
}

// plain is err without the path that *fs.PathError repeats.
func plain(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// What to do about a refused path.
const (
	fixOwn  = "remove it, or use a directory of your own (journal_path and log_path in the config)"
	fixLink = "remove the link, or point journal_path or log_path at the file itself"
	fixMode = "check the files in it, then chmod go-w it; or use a directory of your own (journal_path and log_path in the config)"
)

// unsafe is a refusal of what: what is wrong with it and what to do.
func unsafe(what, problem, fix string) error {
	return fmt.Errorf("%w: %s %s: %s", ErrUnsafe, what, problem, fix)
}

// WriteFile replaces the state file at path with data, whole or not at
// all: it writes a new file beside it (created exclusively, mode 0600),
// syncs it and renames it over path, so a reader never sees half a file
// and a symbolic link at path is replaced, never followed. The directory
// is created (0700) and checked as OpenAppend checks it.
func WriteFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return fmt.Errorf("create the state directory %s: %w", dir, plain(err))
	}
	if err := CheckDir(dir); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w (is the state directory writable?)", path, plain(err))
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename there is nothing left to remove
	if err := f.Chmod(FileMode); err != nil {
		f.Close()
		return fmt.Errorf("make %s private (0600): %w", tmp, plain(err))
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, plain(err))
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, plain(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, plain(err))
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, plain(err))
	}
	return nil
}
