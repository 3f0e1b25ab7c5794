package a2aclient

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"a2atop/internal/agenttest"
	"a2atop/internal/oidctest"
	"a2atop/internal/statefile"
)

// Environment of the child process that refreshes (see TestRefreshChild).
const (
	envRefresh       = "A2ATOP_REFRESH_CHILD" // the refresh token file
	envRefreshIssuer = "A2ATOP_REFRESH_CHILD_ISSUER"
	envRefreshCheck  = "A2ATOP_REFRESH_CHILD_CHECK_URL" // a URL that answers 200 only to a valid token
)

// refreshResult is what a refreshing child prints.
type refreshResult struct {
	Status int    // what the check URL answered with the token
	Err    string // why there was no token
}

// deviceConn is the transport stack of a process whose agent signs in
// with the device flow of the provider at issuer, keeping its sign-in in
// store: what a dashboard, `a2atop serve` or `a2atop login` builds.
func deviceConn(issuer, store string) *conn {
	o := fast("a", "http://127.0.0.1:1")
	o.Auth = AuthOptions{Type: AuthDevice, ClientID: "a2atop-cli", TokenURL: issuer + "/oauth/token",
		DeviceAuthURL: issuer + "/device_authorization", RefreshTokenFile: store}
	return newConn(o, 0, slog.New(slog.DiscardHandler))
}

// checkToken sends c's credential to url and returns the status.
func checkToken(ctx context.Context, c *conn, url string) (int, error) {
	hs, err := c.cred.Headers(ctx)
	if err != nil {
		return 0, err
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	for _, h := range hs {
		req.Header.Set(h.Name, h.Value)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// TestRefreshChild is the child half of TestProcessesShareOneSignIn: it
// builds the agent's credential over the refresh token file, says
// "ready", waits for a line on its stdin (so that the processes refresh
// at the same moment), gets a token, checks it and prints the outcome
// as JSON. It does nothing unless a parent started it.
func TestRefreshChild(t *testing.T) {
	store := os.Getenv(envRefresh)
	if store == "" {
		t.Skip("runs only as the child of a test that refreshes from several processes")
	}
	c := deviceConn(os.Getenv(envRefreshIssuer), store)
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var r refreshResult
	status, err := checkToken(ctx, c, os.Getenv(envRefreshCheck))
	r.Status = status
	if err != nil {
		r.Err = err.Error()
	}
	b, _ := json.Marshal(r)
	fmt.Println(string(b))
}

// refresher is one running TestRefreshChild.
type refresher struct{ *agenttest.Child }

func startRefresher(t *testing.T, store, issuer, checkURL string) *refresher {
	t.Helper()
	return &refresher{agenttest.StartChild(t, "TestRefreshChild",
		envRefresh+"="+store, envRefreshIssuer+"="+issuer, envRefreshCheck+"="+checkURL)}
}

func (r *refresher) result(t *testing.T) refreshResult {
	t.Helper()
	var res refreshResult
	r.Expect(t, func(line string) bool {
		return json.Unmarshal([]byte(line), &res) == nil && (res.Status != 0 || res.Err != "")
	})
	_ = r.Wait()
	return res
}

// signIn runs the device flow of c on p, approving the code as the person
// would, and leaves the sign-in in c's refresh token file.
func signIn(t *testing.T, p *oidctest.Provider, c *conn) {
	t.Helper()
	ds := c.auth.Device()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	dc, err := ds.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	approveOnProvider(t, p, dc.UserCode)
	if err := ds.Await(ctx, dc); err != nil {
		t.Fatal(err)
	}
}

// Processes that share one device sign-in (a dashboard, `a2atop serve`,
// a second dashboard) and need a fresh access token at the same moment
// refresh it once between them. The provider rotates refresh tokens and,
// as RFC 9700 asks, revokes the sign-in when a used-up one comes back; a
// slow provider keeps the moment open. Every process ends with a token
// the agent accepts, the provider saw one refresh grant, and the sign-in
// lives on: the next refresh works.
func TestProcessesShareOneSignIn(t *testing.T) {
	if !statefile.CrossProcess {
		t.Skip("statefile.Lock does not serialize processes on this system")
	}
	p := oidctest.Start(t, oidctest.Options{RefreshDelay: 300 * time.Millisecond})
	p.AddDeviceClient("a2atop-cli")
	g := p.Guard()
	check := httptest.NewServer(g.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	t.Cleanup(check.Close)
	store := filepath.Join(t.TempDir(), "state", "tokens", "a.json")
	signIn(t, p, deviceConn(p.Issuer, store))
	forgetAccessToken(t, store)

	children := []*refresher{
		startRefresher(t, store, p.Issuer, check.URL),
		startRefresher(t, store, p.Issuer, check.URL),
	}
	here := deviceConn(p.Issuer, store)
	before := p.RefreshRequests()
	for _, ch := range children {
		ch.Say(t, "go")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	status, err := checkToken(ctx, here, check.URL)
	if err != nil || status != http.StatusOK {
		t.Errorf("this process: HTTP %d, %v; want a token the agent accepts", status, err)
	}
	for i, ch := range children {
		if r := ch.result(t); r.Err != "" || r.Status != http.StatusOK {
			t.Errorf("child %d: HTTP %d, %q; want a token the agent accepts", i, r.Status, r.Err)
		}
	}
	if n := p.RefreshRequests() - before; n != 1 {
		t.Errorf("the provider saw %d refresh grants, want 1", n)
	}
	if n := p.ReusedRefreshTokens(); n != 0 {
		t.Errorf("a used-up refresh token was presented %d times (the provider revoked the sign-in)", n)
	}

	// The sign-in lives on: the agent refuses this process's token (as
	// after a revocation of access tokens), and it refreshes again.
	hs, err := here.cred.Headers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	here.cred.Refused(hs[0].Value)
	if status, err := checkToken(ctx, here, check.URL); err != nil || status != http.StatusOK {
		t.Errorf("after a refusal: HTTP %d, %v; want a fresh token", status, err)
	}
	if n := p.RefreshRequests() - before; n != 2 {
		t.Errorf("after a refusal the provider saw %d refresh grants in all, want 2", n)
	}
}

// forgetAccessToken leaves only the refresh token in the sign-in's file,
// as when the access token it was saved with has long expired.
func forgetAccessToken(t *testing.T, store string) {
	t.Helper()
	b, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		RefreshToken string `json:"refresh_token"`
	}
	if err := json.Unmarshal(b, &st); err != nil || st.RefreshToken == "" {
		t.Fatalf("the sign-in's file holds no refresh token: %v", err)
	}
	b, _ = json.Marshal(st)
	if err := os.WriteFile(store, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
