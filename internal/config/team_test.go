package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"a2atop/hub"
)

func TestTeamKeysValidate(t *testing.T) {
	const agent = "[[agent]]\nname = \"deployer\"\nurl = \"http://127.0.0.1:9003\"\n"
	const op = "[[operator]]\nname = \"alice\"\ntoken_env = \"T\"\n"
	tests := []struct {
		name, doc string
		line      int
		key, msg  string
	}{
		{"cert without key", "tls_cert_file = \"a.crt\"\n", 1, "tls_cert_file", "both"},
		{"literal token", "[[operator]]\nname = \"alice\"\ntoken = \"s3cret\"\nroles = { \"*\" = [\"watch\"] }\n", 3, "operator[1].token", "secrets are not written"},
		{"no token", "[[operator]]\nname = \"alice\"\nroles = { \"*\" = [\"watch\"] }\n", 1, "operator[1]", "exactly one of token_env or token_file"},
		{"no roles", op, 1, "operator[1].roles", "no roles"},
		{"unknown role", agent + op + "roles = { \"*\" = [\"watch\", \"deploy\"] }\n", 7, "operator[1].roles.*", `"deploy" is not a role`},
		{"unknown agent", agent + op + "roles = { \"deployr\" = [\"watch\"] }\n", 7, "operator[1].roles.deployr", "not a configured agent; use \"*\" or one of deployer"},
		{"twice", op + "roles = { \"*\" = [\"watch\"] }\n" + op + "roles = { \"*\" = [\"watch\"] }\n", 6, "operator[2].name", "named twice"},
		{"bad name", "[[operator]]\nname = \"al ice\"\ntoken_env = \"T\"\nroles = { \"*\" = [\"watch\"] }\n", 2, "operator[1].name", "space"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(t, tc.doc)
			ce, ok := err.(*Error)
			if !ok {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if ce.Line != tc.line || ce.Key != tc.key || !strings.Contains(ce.Msg, tc.msg) {
				t.Errorf("got line %d key %q msg %q; want line %d key %q msg containing %q", ce.Line, ce.Key, ce.Msg, tc.line, tc.key, tc.msg)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error repeats the secret: %v", err)
			}
		})
	}
}

func TestHubOperatorsKeepOnlyHashes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bob.token"), []byte("bob-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ALICE_T", "alice-token")
	doc := "[[agent]]\nname = \"deployer\"\nurl = \"http://127.0.0.1:9003\"\n" +
		"[[operator]]\nname = \"alice\"\ntoken_env = \"ALICE_T\"\nroles = { \"*\" = [\"watch\", \"approve\"] }\n" +
		"[[operator]]\nname = \"bob\"\ntoken_file = \"bob.token\"\nroles = { \"*\" = [\"answer\"], \"deployer\" = [\"watch\"] }\n"
	c, err := Parse([]byte(doc), filepath.Join(dir, "config.toml"))
	if err != nil || c.Validate() != nil {
		t.Fatalf("parse: %v / %v", err, c.Validate())
	}
	ops, err := c.HubOperators()
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || ops[0].TokenHash != hub.HashToken("alice-token") || ops[1].TokenHash != hub.HashToken("bob-token") {
		t.Fatalf("operators = %+v", ops)
	}
	if got := ops[1].Roles["deployer"]; len(got) != 1 || got[0] != hub.RoleWatch {
		t.Errorf("bob's roles on deployer = %v", got)
	}
	t.Setenv("ALICE_T", "bob-token")
	if _, err := c.HubOperators(); err == nil || !strings.Contains(err.Error(), "same token") || strings.Contains(err.Error(), "bob-token") {
		t.Errorf("one token for two operators: %v", err)
	}
	t.Setenv("ALICE_T", "")
	if _, err := c.HubOperators(); err == nil || !strings.Contains(err.Error(), "ALICE_T is not set") {
		t.Errorf("a missing token: %v", err)
	}
}

func TestHubToken(t *testing.T) {
	dir := t.TempDir()
	c := Default()
	c.Path = filepath.Join(dir, "config.toml")
	t.Setenv(EnvHubToken, "")
	if _, err := c.HubToken(); err == nil || !strings.Contains(err.Error(), EnvHubToken) {
		t.Errorf("no token anywhere: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hub.token"), []byte(" from-file \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.HubTokenFile = "hub.token"
	if tok, err := c.HubToken(); err != nil || tok != "from-file" {
		t.Errorf("from the file: %q %v", tok, err)
	}
	t.Setenv(EnvHubToken, "from-env")
	if tok, _ := c.HubToken(); tok != "from-env" {
		t.Errorf("the environment first: %q", tok)
	}
}
