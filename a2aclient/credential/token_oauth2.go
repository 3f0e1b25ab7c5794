package credential

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// The OAuth 2.0 credentials are built on golang.org/x/oauth2: the client
// credentials grant (clientcredentials), the device authorization grant
// (Config.DeviceAuth, DeviceAccessToken) and the refresh token grant
// (Config.TokenSource). cachedToken decides when to ask; these sources
// only ask. Every request to a token endpoint goes through TokenClient:
// no redirect is followed (the client secret would follow it), and the
// endpoint was judged by the origin rules before (Chooser.endpoint).

// TokenClient is the http.Client of the token endpoints (and of the
// card's pinned keys): no redirect followed, the client certificate
// presented as the origin rule says (certOriginLayer).
func TokenClient(tc *tls.Config, timeout time.Duration) *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	if tc != nil {
		base.TLSClientConfig = tc.Clone()
	}
	return &http.Client{
		Transport: certOriginLayer{next: base},
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			return fmt.Errorf("the token endpoint redirected to %s: a2atop does not follow a token endpoint's redirects", URLOrigin(req.URL))
		},
	}
}

// clientCredentialsSource asks the token endpoint for a token with the
// client's id and secret (RFC 6749 §4.4).
type clientCredentialsSource struct {
	cfg    clientcredentials.Config
	secret Secret
	hc     *http.Client
}

func (s *clientCredentialsSource) token(ctx context.Context) (string, time.Time, error) {
	cfg := s.cfg
	sec, err := readSecret(s.secret, "client secret")
	if err != nil {
		return "", time.Time{}, err
	}
	cfg.ClientSecret = sec
	tok, err := cfg.Token(context.WithValue(ctx, oauth2.HTTPClient, s.hc))
	if err != nil {
		return "", time.Time{}, tokenEndpointError("the token endpoint", cfg.TokenURL, err, false)
	}
	return tok.AccessToken, tok.Expiry, nil
}

// readSecret reads a Secret now (a file is read at every use, so a
// rotated client secret is picked up).
func readSecret(s Secret, what string) (string, error) {
	if s.File == "" {
		return s.Value, nil
	}
	f := &fileToken{path: s.File}
	if err := f.reloadLocked(true); err != nil {
		var ce *CredentialError
		if errors.As(err, &ce) {
			ce.Words = what + ": " + ce.Words
		}
		return "", err
	}
	return f.tok, nil
}

// tokenEndpointError says in words why a token endpoint gave no token.
func tokenEndpointError(what, url string, err error, refresh bool) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		switch re.ErrorCode {
		case "invalid_grant":
			if refresh {
				return &CredentialError{Words: "the refresh token was revoked or has expired: press L to sign in again", SignIn: true, Err: err}
			}
		case "invalid_client", "unauthorized_client":
			return &CredentialError{Words: fmt.Sprintf("%s %s refused the client id or secret (%s): check client_id and the client secret", what, ShownURL(url), re.ErrorCode), Err: err}
		}
		if re.ErrorCode != "" {
			return &CredentialError{Words: fmt.Sprintf("%s %s refused: %s", what, ShownURL(url), re.ErrorCode), SignIn: refresh, Err: err}
		}
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		return &CredentialError{Words: fmt.Sprintf("%s %s answered HTTP %d", what, ShownURL(url), status), Err: err}
	}
	return &CredentialError{Words: fmt.Sprintf("%s %s could not be reached: %v", what, ShownURL(url), RedactQuery(err.Error())), Err: err}
}

// DeviceSource refreshes the access token with the refresh token the
// device flow left in store (RFC 6749 §6), and stores the new tokens.
// With no refresh token stored, it says to sign in. Processes that share
// the sign-in refresh one at a time, each after reading what the one
// before it stored (refreshStore).
type DeviceSource struct {
	cfg   oauth2.Config
	store *refreshStore
	hc    *http.Client
	agent string

	mu      sync.Mutex
	pending *oauth2.Token // the access token a sign-in just brought, used once
	// last is the access token this source handed out last: stored by
	// another process, it is news; stored by this one, it is what is to
	// be replaced. Guarded by store's lock.
	last string
}

func (s *DeviceSource) token(ctx context.Context) (string, time.Time, error) {
	s.mu.Lock()
	p := s.pending
	s.pending = nil
	s.mu.Unlock()
	if p != nil && p.Valid() {
		return p.AccessToken, p.Expiry, nil
	}
	unlock, err := s.store.lock(ctx)
	if err != nil {
		return "", time.Time{}, err
	}
	defer unlock()
	st, err := s.store.load()
	if err != nil {
		return "", time.Time{}, err
	}
	if st.RefreshToken == "" {
		return "", time.Time{}, &CredentialError{Words: "not signed in: press L to sign in (or run a2atop login " + s.agent + ")", SignIn: true}
	}
	if st.AccessToken != s.last && st.usable(time.Now()) {
		// Another a2atop refreshed while this one waited for the lock,
		// or before it started: its token serves both.
		s.last = st.AccessToken
		return st.AccessToken, st.Expiry, nil
	}
	tok, err := s.refresh(ctx, st.RefreshToken)
	if err != nil {
		return "", time.Time{}, err
	}
	if err := s.keep(tok); err != nil {
		return "", time.Time{}, err
	}
	return tok.AccessToken, tok.Expiry, nil
}

// refresh asks the token endpoint for new tokens with rt.
func (s *DeviceSource) refresh(ctx context.Context, rt string) (*oauth2.Token, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, s.hc)
	tok, err := s.cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: rt}).Token()
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
		// A writer that takes no lock (an a2atop of an older version, or
		// any process where statefile.Lock holds none) may have rotated
		// the stored token meanwhile: try the stored one, once.
		if now, lerr := s.store.load(); lerr == nil && now.RefreshToken != "" && now.RefreshToken != rt {
			tok, err = s.cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: now.RefreshToken}).Token()
			rt = now.RefreshToken
		}
	}
	if err != nil {
		return nil, tokenEndpointError("the token endpoint", s.cfg.Endpoint.TokenURL, err, true)
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = rt // not rotated: the one used stays good
	}
	return tok, nil
}

// keep stores tok, with its refresh token, for this process's next
// refresh and for the other processes. The store's lock is held.
func (s *DeviceSource) keep(tok *oauth2.Token) error {
	err := s.store.save(storedToken{RefreshToken: tok.RefreshToken, AccessToken: tok.AccessToken,
		Expiry: tok.Expiry, SavedAt: time.Now().UTC()})
	if err != nil {
		return err
	}
	s.last = tok.AccessToken
	return nil
}

// DeviceCode is what a person needs to sign in with the device flow: the
// page to open and the code to enter there. It holds no secret a person
// may not see.
type DeviceCode struct {
	VerificationURI         string
	VerificationURIComplete string
	UserCode                string
	Expiry                  time.Time
	resp                    *oauth2.DeviceAuthResponse
}

// Start asks the device authorization endpoint for a code.
func (s *DeviceSource) Start(ctx context.Context) (*DeviceCode, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, s.hc)
	da, err := s.cfg.DeviceAuth(ctx, oauth2.AccessTypeOffline)
	if err != nil {
		return nil, tokenEndpointError("the device authorization endpoint", s.cfg.Endpoint.DeviceAuthURL, err, false)
	}
	return &DeviceCode{VerificationURI: da.VerificationURI, VerificationURIComplete: da.VerificationURIComplete,
		UserCode: da.UserCode, Expiry: da.Expiry, resp: da}, nil
}

// Await polls the token endpoint until the person approved (or refused,
// or the code expired) and stores the refresh token.
func (s *DeviceSource) Await(ctx context.Context, dc *DeviceCode) error {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, s.hc)
	tok, err := s.cfg.DeviceAccessToken(ctx, dc.resp)
	if err != nil {
		var re *oauth2.RetrieveError
		switch {
		case errors.As(err, &re) && re.ErrorCode == "access_denied":
			return &CredentialError{Words: "the sign-in was refused on the provider's page", SignIn: true, Err: err}
		case errors.As(err, &re) && re.ErrorCode == "expired_token", errors.Is(err, context.DeadlineExceeded):
			return &CredentialError{Words: "the code expired before it was entered: sign in again", SignIn: true, Err: err}
		case errors.Is(err, context.Canceled):
			return err
		}
		return tokenEndpointError("the token endpoint", s.cfg.Endpoint.TokenURL, err, false)
	}
	if tok.RefreshToken == "" {
		return &CredentialError{Words: "the provider issued no refresh token (is offline_access allowed for this client?): a2atop would have to sign in again every hour", SignIn: true}
	}
	unlock, err := s.store.lock(ctx)
	if err != nil {
		return err
	}
	err = s.keep(tok)
	unlock()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.pending = tok
	s.mu.Unlock()
	return nil
}
