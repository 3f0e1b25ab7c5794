package credential

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"a2atop/internal/secretfile"
	"a2atop/internal/statefile"
)

// refreshStore keeps one agent's device sign-in in a 0600 file in the
// state directory (never in the config): the refresh token, and the
// access token last issued with it and when that expires, so that
// another a2atop process sharing the sign-in (a second dashboard,
// `a2atop serve`) takes that token instead of refreshing again.
//
// Providers commonly rotate refresh tokens, and revoke the sign-in when a
// used-up one comes back (RFC 9700 §4.14.2): two processes refreshing
// with the same token would lose it. So a refresh reads, refreshes and
// writes under the file's lock (statefile.Lock: flock(2) across
// processes on unix; within this process only elsewhere), and the file
// is replaced whole, through a rename. Safe for concurrent use.
type refreshStore struct {
	path string
	sem  chan struct{} // this process's holder of the lock
}

func newRefreshStore(path string) *refreshStore {
	return &refreshStore{path: path, sem: make(chan struct{}, 1)}
}

// storedToken is the content of a sign-in's file. A file written before
// it held the access token has only the refresh token and the time.
type storedToken struct {
	RefreshToken string    `json:"refresh_token"`
	AccessToken  string    `json:"access_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	SavedAt      time.Time `json:"saved_at"`
}

// usable reports whether the access token stored may be used at now: it
// is not yet due for a refresh by the rule cachedToken keeps (refreshAt).
func (st storedToken) usable(now time.Time) bool {
	return st.AccessToken != "" && (st.Expiry.IsZero() || now.Before(refreshAt(st.SavedAt, st.Expiry)))
}

// lock takes the sign-in's lock, waiting for this process's other users
// and for other processes until ctx ends; unlock releases it. load and
// save are called with it held.
func (r *refreshStore) lock(ctx context.Context) (unlock func(), err error) {
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	l, err := statefile.Lock(ctx, r.path)
	if err != nil {
		<-r.sem
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, &CredentialError{Words: "cannot lock the stored sign-in: " + err.Error(), Err: err}
	}
	return func() {
		_ = l.Unlock()
		<-r.sem
	}, nil
}

// load returns the stored sign-in; its RefreshToken is "" when none is
// stored.
func (r *refreshStore) load() (storedToken, error) {
	b, err := r.read()
	if errors.Is(err, fs.ErrNotExist) {
		return storedToken{}, nil
	}
	if err != nil {
		return storedToken{}, &CredentialError{Words: "cannot read the stored sign-in: " + err.Error(), Err: err}
	}
	var st storedToken
	if err := json.Unmarshal(b, &st); err != nil || st.RefreshToken == "" {
		return storedToken{}, &CredentialError{Words: fmt.Sprintf("the stored sign-in %s is damaged: press L to sign in again", r.path), SignIn: true}
	}
	return st, nil
}

// read reads the sign-in's file as a state file (statefile.Open: never
// through a link, only a regular file of this user's) and as a secret
// file (secretfile: at most secretfile.MaxSize bytes).
func (r *refreshStore) read() ([]byte, error) {
	f, err := statefile.Open(r.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return secretfile.ReadOpen(f, r.path)
}

// save stores a sign-in, whole or not at all (statefile.WriteFile).
func (r *refreshStore) save(st storedToken) error {
	b, _ := json.Marshal(st)
	if err := statefile.WriteFile(r.path, b); err != nil {
		return &CredentialError{Words: "cannot store the sign-in: " + err.Error(), Err: err}
	}
	return nil
}
