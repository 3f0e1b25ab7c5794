package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// Every error of reading the secrets a validated config names (an unset
// environment variable, an empty or unreadable file, two operators with
// one token) says file:line: key:, as Validate's errors do: before, they
// said only the agent or the operator.
func TestSecretErrorsNameFileLineKey(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "empty"), "\n")
	writeFile(t, filepath.Join(dir, "same"), "same-token\n")
	t.Setenv("A2ATOP_TEST_UNSET", "")
	t.Setenv(EnvHubToken, "")
	t.Setenv("A2ATOP_TEST_SAME", "same-token")
	agent := "theme = \"dark\"\n[[agent]]\nname = \"x\"\nurl = \"http://127.0.0.1:1\"\n[[agent]]\nname = \"a\"\nurl = \"http://127.0.0.1:2\"\n[agent.auth]\n"
	op := "[[operator]]\nname = \"ann\"\nroles = { \"*\" = [\"watch\"] }\ntoken_env = \"A2ATOP_TEST_SAME\"\n[[operator]]\nname = \"bob\"\nroles = { \"*\" = [\"watch\"] }\n"
	tests := []struct {
		name, doc, want string
		read            func(*Config) error
	}{
		{"unset token_env", agent + "token_env = \"A2ATOP_TEST_UNSET\"\n",
			`:9: agent "a".auth.token_env: environment variable A2ATOP_TEST_UNSET is not set`, agentOpts},
		{"unset value_env", agent + "[[agent.auth.headers]]\nname = \"X-K\"\nvalue_env = \"A2ATOP_TEST_UNSET\"\n",
			`:11: agent "a".auth.headers[1].value_env: environment variable A2ATOP_TEST_UNSET is not set`, agentOpts},
		{"empty header value_file", agent + "[[agent.auth.headers]]\nname = \"X-K\"\n\nvalue_file = \"empty\"\n",
			`:12: agent "a".auth.headers[1].value_file: ` + filepath.Join(dir, "empty") + " is empty", agentOpts},
		{"missing token_file", agent + "\ntoken_file = \"nope\"\n",
			`:10: agent "a".auth.token_file: cannot read ` + filepath.Join(dir, "nope"), agentOpts},
		{"unset client_secret_env", agent + "client_id = \"c\"\nclient_secret_env = \"A2ATOP_TEST_UNSET\"\n",
			`:10: agent "a".auth.client_secret_env: environment variable`, agentOpts},
		{"ca_file without PEM", agent + "ca_file = \"empty\"\n",
			`:9: agent "a".auth.ca_file: ` + filepath.Join(dir, "empty") + " holds no PEM certificate", agentOpts},
		{"empty operator token file", op + "token_file = \"empty\"\n",
			`:8: operator[2].token_file: operator "bob": ` + filepath.Join(dir, "empty") + " is empty", hubOps},
		{"duplicate operator token", op + "\ntoken_file = \"same\"\n",
			`:9: operator[2].token_file: operators "ann" and "bob" have the same token`, hubOps},
		{"empty hub_token_file", "theme = \"dark\"\nhub_token_file = \"empty\"\n",
			`:2: hub_token_file: ` + filepath.Join(dir, "empty") + " is empty", hubToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "c.toml")
			writeFile(t, path, tt.doc)
			c, err := Load(path, nil)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			err = tt.read(c)
			if err == nil || !strings.HasPrefix(err.Error(), path+tt.want) {
				t.Errorf("err = %v\nwant it to start %q", err, path+tt.want)
			}
		})
	}
}

func agentOpts(c *Config) error { _, err := c.AgentOptions(); return err }
func hubOps(c *Config) error    { _, err := c.HubOperators(); return err }
func hubToken(c *Config) error  { _, err := c.HubToken(); return err }

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }
