package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"a2atop/demo"
	"a2atop/internal/agenttest"
)

// syncBuffer is a buffer safe for a command writing while the test reads.
type syncBuffer = agenttest.Buffer

// isolate points every a2atop path (config, log, journal) into a temp dir.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	t.Setenv("A2ATOP_CONFIG", "")
	return dir
}

// runCmd runs a command line with buffers and returns status, stdout, stderr.
func runCmd(ctx context.Context, args ...string) (int, string, string) {
	var out, errOut syncBuffer
	code := run(ctx, args, Streams{Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}

// startDemo runs the real demo fleet on loopback for one test.
func startDemo(t *testing.T, o demo.Options) []demo.Agent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f, err := demo.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = f.Close() })
	return f.Agents()
}

func urlsOf(agents []demo.Agent) []string {
	var urls []string
	for _, a := range agents {
		urls = append(urls, a.URL)
	}
	return urls
}

// writeConfig writes a config naming the agents and returns its path.
func writeConfig(t *testing.T, dir string, agents []demo.Agent) string {
	t.Helper()
	var b strings.Builder
	for _, a := range agents {
		b.WriteString("[[agent]]\nname = \"" + a.Name + "\"\nurl = \"" + a.URL + "\"\n")
	}
	path := filepath.Join(dir, "agents.toml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// twoApprovers writes the configs of alice and bob on the demo's
// agents, top (TOML, "" for none) first: the deployer's staging prompts
// take two approvals that say why.
func twoApprovers(t *testing.T, dir string, agents []demo.Agent, top string) (alice, bob string) {
	t.Helper()
	fleet := top
	for _, a := range agents {
		fleet += "[[agent]]\nname = \"" + a.Name + "\"\nurl = \"" + a.URL + "\"\n"
		if a.Name == demo.Deployer {
			fleet += "[agent.approval]\nrequire_reason = true\n[[agent.approval.rule]]\nwhen = { environment = \"staging\" }\nrequired = 2\n"
		}
	}
	configFor := func(approver string) string {
		path := filepath.Join(dir, approver+".toml")
		if err := os.WriteFile(path, []byte("approver = \""+approver+"\"\n"+fleet), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	return configFor("alice"), configFor("bob")
}

func TestUsageAndVersion(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	tests := []struct {
		args []string
		code int
		out  string // in stdout or stderr
	}{
		{[]string{"help"}, exitOK, "Exit status:"},
		{[]string{"--help"}, exitOK, "a2atop check"},
		{[]string{"version"}, exitOK, "a2atop "},
		{[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{[]string{"tasks"}, exitUsage, "no agents"},
		{[]string{"watch", "http://127.0.0.1:1"}, exitUsage, "add --jsonl"},
		{[]string{"check"}, exitUsage, "no agents"},
		{[]string{"tasks", "--json"}, exitUsage, "no agents"},
		{[]string{"watch", "--jsonl"}, exitUsage, "no agents"},
		{[]string{}, exitUsage, "a2atop demo"},
		{[]string{"check", "--bogus"}, exitUsage, "flag provided but not defined"},
		{[]string{"check", "localhost:9000"}, exitUsage, "absolute http:// or https:// URL"},
		{[]string{"demo", "--pace", "0s"}, exitUsage, "--pace must be positive"},
		{[]string{"reply", "deployer", "t1", "--approve"}, exitUsage, `no agent "deployer": no config file was read`},
		{[]string{"check", "--config", "/nonexistent.toml"}, exitUsage, "a2atop check: config: /nonexistent.toml"},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(ctx, tt.args...)
		if code != tt.code || !strings.Contains(out+errOut, tt.out) {
			t.Errorf("a2atop %v = %d, %q %q; want %d and %q", tt.args, code, out, errOut, tt.code, tt.out)
		}
	}
}

// TestCheckDemoFleet checks the demo fleet end to end: every demo agent is
// reachable, with the 0.3 agent reported as unable to list.
func TestCheckDemoFleet(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true})
	code, out, errOut := runCmd(context.Background(), "check", "--config", writeConfig(t, dir, agents))
	if code != exitOK {
		t.Fatalf("check = %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "5 of 5 agents reachable") {
		t.Errorf("output:\n%s", out)
	}
	for _, want := range []string{"test-runner", "code-reviewer", "deployer", "planner", "legacy-intake",
		"HTTP+JSON", "0.3", "no task listing (A2A 0.3)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if errOut != "" {
		t.Errorf("stderr: %q", errOut)
	}
}

// TestCheckWrongURLs: a closed loopback port and a server answering 404
// are each explained, and check exits 1.
func TestCheckWrongURLs(t *testing.T) {
	isolate(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()

	code, out, _ := runCmd(context.Background(), "check", "--timeout", "10s", closed, notFound.URL)
	if code != exitFailed {
		t.Fatalf("check = %d, want %d\n%s", code, exitFailed, out)
	}
	for _, want := range []string{"0 of 2 agents reachable", "unreachable", "connection refused",
		"card not found (404", "base URL"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCheckConfigErrors(t *testing.T) {
	dir := isolate(t) // an unset token_env fails that agent alone: TestCheckOneAgentWithoutItsSecret
	tests := []struct{ name, doc, want string }{
		{"typo", "theme = \"dark\"\n[[agent]]\nname = \"a\"\nurl = \"http://127.0.0.1:1\"\nhistroy_length = 3\n",
			"typo.toml:5: agent.histroy_length: unknown key"},
		{"literal", "[[agent]]\nname = \"a\"\nurl = \"http://127.0.0.1:1\"\n[agent.auth]\ntoken = \"s3cr3t\"\n",
			"token_env or token_file"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name+".toml")
		if err := os.WriteFile(path, []byte(tt.doc), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCmd(context.Background(), "check", "--config", path)
		if code != exitUsage || !strings.Contains(errOut, tt.want) || strings.Contains(out+errOut, "s3cr3t") {
			t.Errorf("%s: check = %d, stderr %q; want %d and %q", tt.name, code, errOut, exitUsage, tt.want)
		}
	}
	// $A2ATOP_CONFIG is used when --config is absent.
	t.Setenv("A2ATOP_CONFIG", filepath.Join(dir, "typo.toml"))
	if code, _, errOut := runCmd(context.Background(), "check"); code != exitUsage || !strings.Contains(errOut, ":5:") {
		t.Errorf("check via $A2ATOP_CONFIG = %d %q", code, errOut)
	}
}

func TestDemoAgentsOnly(t *testing.T) {
	isolate(t)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"demo", "--agents-only"}, Streams{Out: &out, Err: &errOut}) }()
	deadline := time.After(20 * time.Second)
	for strings.Count(out.String(), "\n") < 5 {
		select {
		case <-deadline:
			cancel()
			t.Fatalf("no agents printed: %q %q", out.String(), errOut.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	names := map[string]bool{}
	for _, l := range lines {
		name, url, ok := strings.Cut(l, " ")
		if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
			t.Errorf("line %q is not NAME URL", l)
		}
		names[name] = true
	}
	for _, n := range []string{"test-runner", "code-reviewer", "deployer", "planner", "legacy-intake"} {
		if !names[n] {
			t.Errorf("agent %q not printed: %q", n, out.String())
		}
	}
	cancel() // what SIGINT does through signal.NotifyContext
	if code := <-done; code != exitOK {
		t.Errorf("demo --agents-only = %d, stderr %q", code, errOut.String())
	}
	// The agents are gone once it returned.
	_, url, _ := strings.Cut(lines[0], " ")
	if resp, err := http.Get(url + "/.well-known/agent-card.json"); err == nil {
		resp.Body.Close()
		t.Errorf("agent still serving after shutdown")
	}
}

func TestWriteJSONEscapesRisky(t *testing.T) {
	in := map[string]string{"s": "a\u009b31m\u202eb\u2066c\x1b[0m\x7f\u2028日本"}
	var b bytes.Buffer
	if err := writeJSON(&b, in); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"\u009b", "\u202e", "\u2066", "\x1b", "\x7f", "\u2028"} {
		if strings.Contains(out, bad) {
			t.Errorf("output %q contains %q", out, bad)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["s"] != in["s"] {
		t.Errorf("round trip = %q, %v; want %q", back["s"], err, in["s"])
	}
}
