package cli

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/oidctest"
)

// The dashboard's sign-in dialog against a real provider, tried as a new
// user would: the agents view (3), L, the code on screen; the test
// approves it on the provider; the dialog says signed in and the agent's
// row comes up.
func TestDashboardDeviceSignIn(t *testing.T) {
	dir := isolate(t)
	t.Setenv("NO_COLOR", "1")
	p := oidctest.Start(t, oidctest.Options{})
	p.AddDeviceClient("a2atop-cli")
	base := guardedAgent(t, p, "people", a2a.DeviceCodeOAuthFlow{TokenURL: p.TokenURL(), DeviceAuthorizationURL: p.DeviceAuthURL()})
	op, _ := url.Parse(p.Issuer)
	cfgPath := filepath.Join(dir, "a2atop.toml")
	writeText(t, cfgPath, "[[agent]]\nname = \"guarded\"\nurl = \""+base+"\"\nsweep_interval = \"200ms\"\n[agent.auth]\n"+
		"type = \"oauth2_device\"\nclient_id = \"a2atop-cli\"\nallowed_hosts = [\""+op.Host+"\"]\n")

	in, keys := io.Pipe()
	defer keys.Close()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"--config", cfgPath}, Streams{In: in, Out: &out, Err: &errOut})
	}()
	waitScreen := func(what string, ok func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !ok(out.String()) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: never on screen:\n%s", what, out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitScreen("the dashboard", func(s string) bool { return strings.Contains(s, "a2atop") })
	if _, err := keys.Write([]byte("3")); err != nil {
		t.Fatal(err)
	}
	waitScreen("the agents view, not signed in", func(s string) bool {
		return strings.Contains(s, "L sign in") && strings.Contains(s, "not signed in")
	})
	if _, err := keys.Write([]byte("L")); err != nil {
		t.Fatal(err)
	}
	codeRE := regexp.MustCompile(`[B-Z]{4}-[B-Z]{4}`)
	waitScreen("the code", func(s string) bool { return codeRE.MatchString(s) && strings.Contains(s, "enter the code") })
	userCode := codeRE.FindString(out.String())
	resp, err := http.PostForm(p.Issuer+"/device/approve", url.Values{"user_code": {userCode}, "subject": {"alice"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	waitScreen("signed in", func(s string) bool { return strings.Contains(s, "Signed in ✓") })
	mark := len(out.String())
	if _, err := keys.Write([]byte{0x1b}); err != nil { // esc closes the dialog
		t.Fatal(err)
	}
	waitScreen("the agent up", func(s string) bool {
		return len(s) > mark && strings.Contains(s[mark:], "sweeping")
	})
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != exitOK || errOut.String() != "" {
			t.Errorf("dashboard = %d, stderr %q", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the dashboard did not quit")
	}
}
