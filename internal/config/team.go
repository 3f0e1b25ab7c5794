package config

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"a2atop/hub"
)

// EnvHubToken is the environment variable a dashboard attached to a hub
// reads its operator token from, before hub_token_file.
const EnvHubToken = "A2ATOP_HUB_TOKEN"

// Operator is one [[operator]] table: a person (or script) the hub
// serves. The token is read from token_env or token_file (exactly one)
// and kept only as a hash; Roles lists, per agent name or "*", what the
// operator may do there: "watch", "answer", "approve", "cancel" (an
// agent's own entry replaces "*" for it).
type Operator struct {
	Name      string              `toml:"name"`
	TokenEnv  string              `toml:"token_env"`
	TokenFile string              `toml:"token_file"`
	Roles     map[string][]string `toml:"roles"`
	// Groups are the groups the operator is in, for an agent's approval
	// policy (approvers = ["release"]).
	Groups []string `toml:"groups"`
	// Token exists only to refuse a literal secret.
	Token *string `toml:"token"`
	// The operator's SSH keys and dashboard over SSH (ssh.go).
	OperatorSSH
}

// validateTeam checks the [[operator]] tables and the TLS pair.
func (c *Config) validateTeam() error {
	fail := func(key, format string, args ...any) error {
		return &Error{File: c.Path, Line: c.lines.lineOf(key), Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		return fail("tls_cert_file", "set both tls_cert_file and tls_key_file, or neither")
	}
	seen := map[string]bool{}
	for i, op := range c.Operators {
		at := fmt.Sprintf("operator[%d]", i+1)
		if err := checkName(op.Name); err != nil {
			return fail(at+".name", "%s", strings.Replace(err.Error(), "agent", "operator", 1))
		}
		if seen[op.Name] {
			return fail(at+".name", "operator %q is named twice; names must be unique", op.Name)
		}
		seen[op.Name] = true
		switch {
		case op.Token != nil:
			return fail(at+".token", "secrets are not written in the config file: put the operator's token in an environment variable or a file and name it with token_env or token_file")
		case (op.TokenEnv == "") == (op.TokenFile == ""):
			return fail(at, "operator %q: set exactly one of token_env or token_file", op.Name)
		case len(op.Roles) == 0:
			return fail(at+".roles", "operator %q has no roles: give them per agent or for \"*\", like roles = { \"*\" = [\"watch\", \"answer\"] }", op.Name)
		}
		if err := c.validateRoles(at, op); err != nil {
			return err
		}
	}
	return c.validateSSH()
}

// validateRoles checks one operator's roles: known agents (or "*") and
// known roles.
func (c *Config) validateRoles(at string, op Operator) error {
	names := append([]string{hub.AllAgents}, c.AgentNames()...)
	known := make([]string, len(hub.Roles))
	for i, r := range hub.Roles {
		known[i] = string(r)
	}
	for _, agent := range sortedKeys(op.Roles) {
		key := at + ".roles." + agent
		if !slices.Contains(names, agent) {
			return &Error{File: c.Path, Line: c.lines.lineOf(key), Key: key,
				Msg: fmt.Sprintf("%q is not a configured agent; use \"*\" or one of %s", agent, strings.Join(names[1:], ", "))}
		}
		for _, r := range op.Roles[agent] {
			if !slices.Contains(known, r) {
				return &Error{File: c.Path, Line: c.lines.lineOf(key), Key: key,
					Msg: fmt.Sprintf("%q is not a role; use %s", r, strings.Join(known, ", "))}
			}
		}
	}
	return nil
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// HubOperators reads every operator's token (token_env or token_file)
// and returns the operators as the hub keeps them: the token's hash,
// never the token. Two operators with one token are an error. Errors
// name the operator and the key, never the secret.
func (c *Config) HubOperators() ([]hub.Operator, error) {
	out := make([]hub.Operator, 0, len(c.Operators))
	owner := map[[32]byte]string{}
	for i, op := range c.Operators {
		key := fmt.Sprintf("operator[%d]", i+1)
		tok, err := c.secret(key+".token_env", op.TokenEnv, key+".token_file", op.TokenFile)
		if err != nil {
			err.(*Error).Msg = fmt.Sprintf("operator %q: %s", op.Name, err.(*Error).Msg)
			return nil, c.located(err)
		}
		h := hub.HashToken(tok)
		if other, dup := owner[h]; dup {
			key += ".token_env"
			if op.TokenFile != "" {
				key = strings.Replace(key, "_env", "_file", 1)
			}
			return nil, c.located(&Error{Key: key, Msg: fmt.Sprintf("operators %q and %q have the same token: each operator needs a token of their own", other, op.Name)})
		}
		owner[h] = op.Name
		roles := map[string][]hub.Role{}
		for agent, rs := range op.Roles {
			for _, r := range rs {
				roles[agent] = append(roles[agent], hub.Role(r))
			}
		}
		out = append(out, hub.Operator{Name: op.Name, TokenHash: h, Roles: roles, Groups: op.Groups})
	}
	return out, nil
}

// HubToken is the operator token a dashboard attached to a hub sends:
// $A2ATOP_HUB_TOKEN, else the file hub_token_file names. The error says
// where to put it.
func (c *Config) HubToken() (string, error) {
	if v := strings.TrimSpace(os.Getenv(EnvHubToken)); v != "" {
		return v, nil
	}
	if c.HubTokenFile == "" {
		return "", fmt.Errorf("no operator token for the hub: export %s, or name a file holding it with hub_token_file in the config", EnvHubToken)
	}
	tok, err := c.secret("", "", "hub_token_file", c.HubTokenFile)
	return tok, c.located(err)
}
