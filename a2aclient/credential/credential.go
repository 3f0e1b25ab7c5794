package credential

import (
	"context"
	"errors"
	"sync"
	"time"

	"a2atop/a2aclient/a2aerr"
)

// Credential supplies the secret headers of one agent's calls besides
// the static AgentOptions.Headers: a token read from a file, printed by a
// command, or issued by an OAuth 2.0 token endpoint. It is what the
// connection asks for headers and tells of a refusal. Implementations
// are safe for concurrent use.
type Credential interface {
	// Headers returns the headers for a call now, fetching them anew
	// when the cached ones are about to expire.
	Headers(ctx context.Context) ([]Header, error)
	// Refused tells the credential the agent refused value (HTTP 401,
	// gRPC UNAUTHENTICATED): it drops value from its cache and reports
	// whether a fresh credential may differ, so that one retry is worth it.
	Refused(value string) bool
	// Names are the header names it sets.
	Names() []string
}

// CredentialError is a call a2atop did not send because it could not get
// the agent's credential. Its text says what happened and what to do
// ("the refresh token was revoked: press L to sign in again"); it never
// holds a secret. errors.Is(err, a2aerr.ErrCredential) holds.
type CredentialError struct {
	// Words say what happened and what to do.
	Words string
	// SignIn is true when signing in (a2atop login, or L in the
	// dashboard) is what fixes it.
	SignIn bool
	// Err is the cause, for the log; its text may name URLs, never secrets.
	Err error
}

// Error implements error.
func (e *CredentialError) Error() string { return e.Words }

// Unwrap returns the cause and a2aerr.ErrCredential.
func (e *CredentialError) Unwrap() []error {
	if e.Err == nil {
		return []error{a2aerr.ErrCredential}
	}
	return []error{a2aerr.ErrCredential, e.Err}
}

// ErrorOf returns the CredentialError err wraps, or nil.
func ErrorOf(err error) *CredentialError {
	var ce *CredentialError
	if errors.As(err, &ce) {
		return ce
	}
	return nil
}

// tokenSource yields a token and when it expires (zero when unknown).
type tokenSource interface {
	token(ctx context.Context) (tok string, expiry time.Time, err error)
}

// cachedToken is a credential over a tokenSource: the token is kept
// until a quarter of its lifetime (at most five minutes) before it
// expires, then fetched anew, so that calls never carry an expired one; a
// token without an expiry is kept until the agent refuses it. One fetch
// runs at a time; a failed fetch is not retried for errorHold, so a
// refusing token endpoint is not hammered by every stream and sweep.
type cachedToken struct {
	src    tokenSource
	header string // "Authorization"
	prefix string // "Bearer "
	now    func() time.Time

	mu      sync.Mutex
	tok     string
	issued  time.Time
	expiry  time.Time
	err     error
	errAt   time.Time
	fetches int // how many times src was asked (for tests and the log)
}

// errorHold is how long a failed fetch stands before the next attempt.
const errorHold = 2 * time.Second

func newCachedToken(src tokenSource, header, prefix string) *cachedToken {
	return &cachedToken{src: src, header: header, prefix: prefix, now: time.Now}
}

func (c *cachedToken) Headers(ctx context.Context) ([]Header, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.tok != "" && !c.due(now) {
		return []Header{{Name: c.header, Value: c.prefix + c.tok}}, nil
	}
	if c.err != nil && now.Sub(c.errAt) < errorHold {
		return nil, c.err
	}
	c.fetches++
	tok, exp, err := c.src.token(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err // our own deadline: nothing to remember
		}
		c.err, c.errAt = err, c.now() // held from when it failed: a slow fetch is not run again at once
		if c.tok != "" && (c.expiry.IsZero() || now.Before(c.expiry)) {
			// Refreshing ahead failed; the token we hold is still good.
			return []Header{{Name: c.header, Value: c.prefix + c.tok}}, nil
		}
		c.tok = ""
		return nil, err
	}
	c.tok, c.issued, c.expiry, c.err = tok, now, exp, nil
	return []Header{{Name: c.header, Value: c.prefix + tok}}, nil
}

// due reports whether the token held should be fetched anew at now.
func (c *cachedToken) due(now time.Time) bool {
	return !c.expiry.IsZero() && !now.Before(refreshAt(c.issued, c.expiry))
}

// refreshAt is when a token issued at issued that expires at expiry is
// fetched anew: a quarter of its lifetime, at most five minutes, before
// it expires.
func refreshAt(issued, expiry time.Time) time.Time {
	return expiry.Add(-min(expiry.Sub(issued)/4, 5*time.Minute))
}

func (c *cachedToken) Refused(value string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok != "" && c.prefix+c.tok == value {
		c.tok, c.err = "", nil
	}
	// Cleared now, or by a call refused a moment before this one (its
	// fresh token may not be fetched yet), or already replaced: either way
	// the next call asks for, or has, a fresh one.
	return true
}

func (c *cachedToken) Names() []string { return []string{c.header} }
