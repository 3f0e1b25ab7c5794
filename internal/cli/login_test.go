package cli

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"a2atop/internal/config"
	"a2atop/internal/oidctest"
)

// guardedAgent is an SDK agent behind the provider's guard whose card
// requires scheme (an OAuth 2.0 scheme with flow).
func guardedAgent(t *testing.T, p *oidctest.Provider, scheme string, flow a2a.OAuthFlows) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	card := &a2a.AgentCard{Name: "guarded", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(base+"/invoke", a2a.TransportProtocolJSONRPC)},
		DefaultInputModes:   []string{"text"}, DefaultOutputModes: []string{"text"},
		SecuritySchemes:      a2a.NamedSecuritySchemes{a2a.SecuritySchemeName(scheme): a2a.OAuth2SecurityScheme{Flows: flow}},
		SecurityRequirements: a2a.SecurityRequirementsOptions{{a2a.SecuritySchemeName(scheme): {}}},
	}
	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/invoke", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(idleExec{}, a2asrv.WithCallInterceptors(signedInUser{}))))
	srv := &http.Server{Handler: p.Guard().Wrap(mux)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return base
}

// `a2atop login AGENT`, tried as a new user would: it prints the page and
// the code, waits while the person approves it on the provider, keeps the
// refresh token in a 0600 file in the state directory, and `check` then
// reaches the agent and says which scheme it used.
func TestLoginDeviceFlow(t *testing.T) {
	dir := isolate(t)
	p := oidctest.Start(t, oidctest.Options{})
	p.AddDeviceClient("a2atop-cli")
	base := guardedAgent(t, p, "people", a2a.DeviceCodeOAuthFlow{TokenURL: p.TokenURL(), DeviceAuthorizationURL: p.DeviceAuthURL()})
	op, _ := url.Parse(p.Issuer)
	cfgPath := filepath.Join(dir, "a2atop.toml")
	writeText(t, cfgPath, "[[agent]]\nname = \"guarded\"\nurl = \""+base+"\"\n[agent.auth]\ntype = \"oauth2_device\"\n"+
		"client_id = \"a2atop-cli\"\nallowed_hosts = [\""+op.Host+"\"]\n")

	code, out, _ := runCmd(context.Background(), "check", "--config", cfgPath, "--timeout", "10s")
	if code != exitFailed || !strings.Contains(out, "not signed in: press L to sign in (or run a2atop login guarded)") {
		t.Fatalf("check before signing in = %d:\n%s", code, out)
	}

	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"login", "--config", cfgPath, "guarded"}, Streams{Out: &stdout, Err: &stderr})
	}()
	codeRE := regexp.MustCompile(`enter the code\n\n    (\S+)`)
	var userCode string
	for deadline := time.Now().Add(10 * time.Second); userCode == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := codeRE.FindStringSubmatch(stdout.String()); m != nil {
			userCode = m[1]
		}
	}
	if userCode == "" || !strings.Contains(stdout.String(), p.Issuer+"/device") {
		t.Fatalf("login printed no page and code:\n%s%s", stdout.String(), stderr.String())
	}
	resp, err := http.PostForm(p.Issuer+"/device/approve", url.Values{"user_code": {userCode}, "subject": {"alice"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("login = %d:\n%s%s", code, stdout.String(), stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("login did not end after the approval:\n%s", stdout.String())
	}
	store := config.RefreshTokenPath("guarded")
	fi, err := os.Stat(store)
	if err != nil || fi.Mode().Perm() != 0o600 || !strings.HasPrefix(store, filepath.Join(dir, "state")) {
		t.Fatalf("refresh token file %s: %v, %v", store, fi, err)
	}
	if !strings.Contains(stdout.String(), "Signed in.") {
		t.Errorf("login output:\n%s", stdout.String())
	}
	b, _ := os.ReadFile(cfgPath)
	if strings.Contains(string(b), "refresh") {
		t.Error("the refresh token went into the config")
	}

	code, out, _ = runCmd(context.Background(), "check", "--config", cfgPath, "--timeout", "10s")
	if code != exitOK || !strings.Contains(out, `OAuth 2.0 device sign-in (card scheme "people")`) {
		t.Fatalf("check after signing in = %d:\n%s", code, out)
	}
}

// With nothing configured, check says which scheme the card requires and
// what to set.
func TestCheckSaysWhatAuthIsMissing(t *testing.T) {
	isolate(t)
	p := oidctest.Start(t, oidctest.Options{})
	base := guardedAgent(t, p, "corp", a2a.ClientCredentialsOAuthFlow{TokenURL: p.TokenURL()})
	code, out, _ := runCmd(context.Background(), "check", "--timeout", "10s", base)
	if code != exitFailed {
		t.Fatalf("check = %d, want %d:\n%s", code, exitFailed, out)
	}
	for _, want := range []string{"AUTH", `none (missing: scheme "corp" is OAuth 2.0 client credentials: set client_id and client_secret_env`} {
		if !strings.Contains(out, want) {
			t.Errorf("check lacks %q:\n%s", want, out)
		}
	}
}

// login refuses what it cannot do, in words.
func TestLoginUsage(t *testing.T) {
	isolate(t)
	if code, _, errOut := runCmd(context.Background(), "login"); code != exitUsage || !strings.Contains(errOut, "a2atop login AGENT") {
		t.Errorf("login without an agent = %d %q", code, errOut)
	}
	if code, _, errOut := runCmd(context.Background(), "login", "nobody"); code != exitUsage || !strings.Contains(errOut, `no agent "nobody"`) {
		t.Errorf("login nobody = %d %q", code, errOut)
	}
}

func writeText(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// signedInUser authenticates every call the guard let through (the guard
// checked the token), so the agent lists the tasks of its user.
type signedInUser struct {
	a2asrv.PassthroughCallInterceptor
}

func (signedInUser) Before(ctx context.Context, cc *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	cc.User = a2asrv.NewAuthenticatedUser("alice", nil)
	return ctx, nil, nil
}
