package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAgentOptionsResolvesSecrets(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "team"), "team-secret\n")
	t.Setenv("A2ATOP_TEST_TOKEN", "tok-123")
	doc := "read_only = true\nsweep_interval = \"7s\"\n" +
		"[[agent]]\nname = \"a\"\nurl = \"http://127.0.0.1:1\"\nbinding = \"rest\"\nsubscribe = false\ntasks = [\"t1\"]\n" +
		"chain_metadata_key = \"waitingOn\"\n" +
		"[agent.auth]\ntoken_env = \"A2ATOP_TEST_TOKEN\"\nallowed_hosts = [\"h:1\"]\n" +
		"[[agent.auth.headers]]\nname = \"X-Team\"\nvalue_file = \"team\"\n" +
		"[[agent]]\nname = \"b\"\nurl = \"http://127.0.0.1:2\"\nsweep_interval = \"1s\"\n" +
		"[agent.auth]\ntoken_env = \"A2ATOP_TEST_TOKEN\"\napi_key_header = \"X-Api-Key\"\n"
	c, err := Parse([]byte(doc), filepath.Join(dir, "c.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	opts, err := c.AgentOptions()
	if err != nil {
		t.Fatal(err)
	}
	a, b := opts[0], opts[1]
	if len(a.Headers) != 1 || a.Headers[0].Name != "X-Team" || a.Headers[0].Value != "team-secret" ||
		a.Auth.Token.Value != "tok-123" || a.Auth.Type != "" {
		t.Errorf("a headers = %+v, auth = %+v", a.Headers, a.Auth)
	}
	if a.Binding != "rest" || a.Protocol != "auto" || a.Subscribe || !a.ReadOnly || a.SweepInterval != 7*time.Second ||
		len(a.Tasks) != 1 || a.Tasks[0] != "t1" || a.ChainMetadataKey != "waitingOn" || a.AllowedHosts[0] != "h:1" {
		t.Errorf("a = %+v", a)
	}
	if len(b.Headers) != 0 || b.Auth.APIKeyHeader != "X-Api-Key" || b.Auth.Token.Value != "tok-123" ||
		!b.Subscribe || b.SweepInterval != time.Second || b.MaxStreams != 32 || b.MaxMessageBytes != 8<<20 {
		t.Errorf("b = %+v", b)
	}
	if got := c.ChainKeys(); len(got) != 1 || got["a"] != "waitingOn" {
		t.Errorf("ChainKeys = %v", got)
	}
}

func TestAgentOptionsMissingSecret(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "empty"), "\n")
	writeFile(t, filepath.Join(dir, "two"), "a\nb\n")
	tests := []struct{ auth, want string }{
		{"token_env = \"A2ATOP_TEST_UNSET\"", `c.toml:5: agent "a".auth.token_env: environment variable A2ATOP_TEST_UNSET is not set`},
		{"token_file = \"nope\"", `c.toml:5: agent "a".auth.token_file: cannot read ` + filepath.Join(dir, "nope")},
		{"token_file = \"empty\"", "is empty"},
		{"token_file = \"two\"", "more than one line"},
	}
	for _, tt := range tests {
		c, err := Parse([]byte("[[agent]]\nname = \"a\"\nurl = \"http://x\"\n[agent.auth]\n"+tt.auth+"\n"), filepath.Join(dir, "c.toml"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.AgentOptions()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.auth, err, tt.want)
		}
	}
}

func TestTemplates(t *testing.T) {
	c, err := parse(t, "[[agent]]\nname = \"a\"\nurl = \"http://x\"\n[agent.approval]\napprove_text = \"ok {{approver}}\"\nno_data = true\n"+
		"[[agent]]\nname = \"b\"\nurl = \"http://y\"\n")
	if err != nil {
		t.Fatal(err)
	}
	m := c.Templates()
	if len(m) != 1 || m["a"].ApproveText != "ok {{approver}}" || !m["a"].NoData {
		t.Errorf("Templates = %+v", m)
	}
}

func TestMaxStreamsZeroTurnsStreamsOff(t *testing.T) {
	c, err := parse(t, "max_streams = 0\n[[agent]]\nname = \"a\"\nurl = \"http://x\"\nsubscribe = true\n")
	if err != nil {
		t.Fatal(err)
	}
	opts, err := c.AgentOptions()
	if err != nil {
		t.Fatal(err)
	}
	if opts[0].Subscribe {
		t.Errorf("max_streams = 0 should turn streams off: %+v", opts[0])
	}
}
