package credential

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"a2atop/internal/secretfile"
)

// Secret is where one secret lives: Value, read from the environment
// when a2atop started, or File, read again whenever it changes (a token
// file that another program rewrites, such as a sidecar that renews it).
// Exactly one is set.
type Secret struct {
	Value string
	File  string
}

// IsZero reports whether the secret is not configured.
func (s Secret) IsZero() bool { return s.Value == "" && s.File == "" }

// staticToken is a token that never changes (from the environment).
type staticToken struct{ h Header }

func (s staticToken) Headers(context.Context) ([]Header, error) { return []Header{s.h}, nil }
func (s staticToken) Refused(string) bool                       { return false }
func (s staticToken) Names() []string                           { return []string{s.h.Name} }

// fileToken is a token read from a file, read again whenever the file's
// size, modification time or identity changes, so that a token another
// program rewrites (atomically or in place) is picked up by the next call
// without a restart. A 401 makes it look at the file again at once.
type fileToken struct {
	path, header, prefix string

	mu    sync.Mutex
	stamp fileStamp
	tok   string
}

// fileStamp is what tells that a file changed.
type fileStamp struct {
	size  int64
	mtime time.Time
	ino   any
}

func stampOf(fi fs.FileInfo) fileStamp {
	return fileStamp{size: fi.Size(), mtime: fi.ModTime(), ino: fileIdentity(fi)}
}

func (f *fileToken) Headers(context.Context) ([]Header, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.reloadLocked(false); err != nil {
		return nil, err
	}
	return []Header{{Name: f.header, Value: f.prefix + f.tok}}, nil
}

// reloadLocked reads the file when it changed (or always, with force).
func (f *fileToken) reloadLocked(force bool) error {
	fi, err := os.Stat(f.path)
	if err != nil {
		return f.fail(err)
	}
	st := stampOf(fi)
	if !force && f.tok != "" && st == f.stamp {
		return nil
	}
	data, err := secretfile.Read(f.path)
	if err != nil {
		return f.fail(err)
	}
	tok := strings.TrimSpace(string(data))
	switch {
	case tok == "":
		// A writer that truncates then writes: keep the last good token
		// for this call, and read again on the next.
		if f.tok != "" {
			return nil
		}
		return &CredentialError{Words: fmt.Sprintf("the token file %s is empty; it should hold the token", f.path)}
	case strings.ContainsAny(tok, "\r\n"):
		return &CredentialError{Words: fmt.Sprintf("the token file %s holds more than one line; it should hold only the token", f.path)}
	}
	f.tok, f.stamp = tok, st
	return nil
}

func (f *fileToken) fail(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &CredentialError{Words: fmt.Sprintf("cannot read the token file %s: %v", f.path, err), Err: err}
}

func (f *fileToken) Refused(value string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reloadLocked(true) != nil {
		return false
	}
	return f.prefix+f.tok != value
}

func (f *fileToken) Names() []string { return []string{f.header} }

// secretToken is the credential for a configured token: a file that is
// read again when it changes, or a value from the environment.
func secretToken(s Secret, header, prefix string) Credential {
	if s.File != "" {
		return &fileToken{path: s.File, header: header, prefix: prefix}
	}
	return staticToken{h: Header{Name: header, Value: prefix + s.Value}}
}
