package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/agenttest"
	"a2atop/internal/oidctest"
	"a2atop/model"
)

// A hub whose agent takes OAuth 2.0 client credentials from a real
// OpenID provider: the hub fetches the token with its client id and
// secret, the agent's guard accepts it, and an attached dashboard sees
// the agent's tasks. The client secret goes to the token endpoint only,
// never to the agent or to the dashboard.
func TestHubWithClientCredentialsTowardItsAgent(t *testing.T) {
	dir := isolate(t)
	p := oidctest.Start(t, oidctest.Options{})
	const secret = "cc-hub-secret-5e4d3c2b"
	p.AddServiceClient("a2atop-hub", secret)
	guard := p.Guard()
	ag := agenttest.StartAgentWith(t, guard.Wrap)
	secretFile := filepath.Join(dir, "client-secret")
	must(t, os.WriteFile(secretFile, []byte(secret+"\n"), 0o600))
	var b strings.Builder
	fmt.Fprintf(&b, "journal_path = %q\nlog_path = %q\nsweep_interval = \"200ms\"\n", filepath.Join(dir, "j.jsonl"), filepath.Join(dir, "hub.log"))
	fmt.Fprintf(&b, "[[agent]]\nname = \"guarded\"\nurl = %q\n[agent.auth]\ntype = \"oauth2_client_credentials\"\n"+
		"client_id = \"a2atop-hub\"\nclient_secret_file = %q\ntoken_url = %q\n", ag.URL, secretFile, p.TokenURL())
	for _, op := range testOperators {
		tf := filepath.Join(dir, op.name+".token")
		must(t, os.WriteFile(tf, []byte(op.token+"\n"), 0o600))
		fmt.Fprintf(&b, "[[operator]]\nname = %q\ntoken_file = %q\nroles = { \"*\" = [%s] }\n", op.name, tf, op.roles)
	}
	cfg := filepath.Join(dir, "hub.toml")
	must(t, os.WriteFile(cfg, []byte(b.String()), 0o600))

	url := startHub(t, cfg)
	d := attachHeadless(t, url, "alice")
	id := ag.Start("deploy")
	k := model.TaskKey{Agent: "guarded", ID: id}
	eventually(t, "the guarded agent's task on the dashboard", func() bool { st, ok := d.task(k); return ok && st != a2a.TaskStateUnspecified })
	if accepted, _ := guard.Counts(); accepted == 0 {
		t.Fatal("the agent's guard accepted no token")
	}
	if p.TokenRequests() == 0 {
		t.Fatal("the hub asked the provider for no token")
	}
	for _, s := range p.SecretsSeen() {
		if s != secret {
			t.Errorf("the provider was sent another secret: %q", s)
		}
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "hub.log")); strings.Contains(string(log), secret) {
		t.Error("the hub's log holds the client secret")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
