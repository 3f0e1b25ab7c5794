package config

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"a2atop/internal/secretfile"
)

// SSH is how a hub serves its dashboard over SSH (a2atop serve
// --ssh-listen). Its keys are at the top level of the file.
type SSH struct {
	// SSHListen is where the hub serves SSH ("" = no SSH unless
	// --ssh-listen): "127.0.0.1:2222".
	SSHListen string `toml:"ssh_listen"`
	// SSHIdleTimeout closes a session that sent no key for this long.
	// Default 30m (DefaultSSHIdleTimeout).
	SSHIdleTimeout Duration `toml:"ssh_idle_timeout"`
	// SSHMaxSessions is how many SSH sessions one operator may have open
	// at once. Default 4 (DefaultSSHMaxSessions).
	SSHMaxSessions int `toml:"ssh_max_sessions"`
}

// The defaults of SSH's zero fields.
const (
	DefaultSSHIdleTimeout = 30 * time.Minute
	DefaultSSHMaxSessions = 4
)

// OperatorSSH is what an [[operator]] table says of the operator's SSH
// access and dashboard: the public keys they sign in with (inline
// OpenSSH authorized_keys lines, or a file of them), and the theme,
// keys and saved views of their dashboard over SSH (theme, [keys] and
// [[view]] as at the top of the file; the top's where the operator sets
// none).
type OperatorSSH struct {
	SSHAuthorizedKeys     []string                  `toml:"ssh_authorized_keys"`
	SSHAuthorizedKeysFile string                    `toml:"ssh_authorized_keys_file"`
	ThemeSetting          any                       `toml:"theme"`
	Keys                  map[string]map[string]any `toml:"keys"`
	Views                 []View                    `toml:"view"`
}

// validateSSH checks the SSH settings and every operator's inline keys
// and look (its theme and keys as written; the dashboard checks the
// actions, tokens and views, At).
func (c *Config) validateSSH() error {
	if c.SSHIdleTimeout.Duration < 0 {
		return c.At("ssh_idle_timeout", "must be a positive duration like \"30m\", or 0 for the default")
	}
	if c.SSHMaxSessions < 0 {
		return c.At("ssh_max_sessions", fmt.Sprintf("must be 1 or more, or 0 for the default %d", DefaultSSHMaxSessions))
	}
	for i, op := range c.Operators {
		if _, err := c.inlineKeys(i, op); err != nil {
			return err
		}
		if _, err := c.OperatorLook(op.Name); err != nil {
			return err
		}
	}
	return nil
}

// SSHTimeouts are the SSH settings with their defaults filled in.
func (c *Config) SSHTimeouts() (idle time.Duration, maxSessions int) {
	idle, maxSessions = c.SSHIdleTimeout.Duration, c.SSHMaxSessions
	if idle <= 0 {
		idle = DefaultSSHIdleTimeout
	}
	if maxSessions <= 0 {
		maxSessions = DefaultSSHMaxSessions
	}
	return idle, maxSessions
}

// operatorKey is how errors name a key of the i-th operator (0-based).
func operatorKey(i int, key string) string { return fmt.Sprintf("operator[%d].%s", i+1, key) }

// inlineKeys parses the i-th operator's ssh_authorized_keys.
func (c *Config) inlineKeys(i int, op Operator) ([]gossh.PublicKey, error) {
	var keys []gossh.PublicKey
	for j, line := range op.SSHAuthorizedKeys {
		key := fmt.Sprintf("%s[%d]", operatorKey(i, "ssh_authorized_keys"), j+1)
		k, _, _, rest, err := gossh.ParseAuthorizedKey([]byte(line))
		if err != nil {
			return nil, c.At(key, fmt.Sprintf("operator %q: not an OpenSSH public key line like \"ssh-ed25519 AAAA… alice@laptop\": %v", op.Name, err))
		}
		if len(bytes.TrimSpace(rest)) > 0 {
			return nil, c.At(key, fmt.Sprintf("operator %q: one key per string; give each its own entry in the list", op.Name))
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// SSHKeys are the public keys each operator signs in over SSH with, by
// operator name: ssh_authorized_keys and the lines of
// ssh_authorized_keys_file (blank lines and # comments skipped; options
// before a key are refused, the hub has none to apply). An operator
// without keys has no entry. A key given to two operators is an error.
// Errors name the file, the line and the key.
func (c *Config) SSHKeys() (map[string][]gossh.PublicKey, error) {
	out := map[string][]gossh.PublicKey{}
	owner := map[string]string{}
	for i, op := range c.Operators {
		keys, err := c.inlineKeys(i, op)
		if err != nil {
			return nil, err
		}
		if op.SSHAuthorizedKeysFile != "" {
			more, err := c.keysFile(i, op)
			if err != nil {
				return nil, err
			}
			keys = append(keys, more...)
		}
		for _, k := range keys {
			fp := gossh.FingerprintSHA256(k)
			if other, dup := owner[fp]; dup && other != op.Name {
				return nil, c.At(operatorKey(i, "ssh_authorized_keys"), fmt.Sprintf("the key %s is given to operators %q and %q: a key names one operator", fp, other, op.Name))
			}
			owner[fp] = op.Name
		}
		if len(keys) > 0 {
			out[op.Name] = keys
		}
	}
	return out, nil
}

// keysFile reads the i-th operator's ssh_authorized_keys_file.
func (c *Config) keysFile(i int, op Operator) ([]gossh.PublicKey, error) {
	key := operatorKey(i, "ssh_authorized_keys_file")
	path := c.resolvePath(op.SSHAuthorizedKeysFile)
	b, err := secretfile.Read(path)
	if err != nil {
		return nil, c.At(key, fmt.Sprintf("operator %q: cannot read %s: %v", op.Name, path, secretfile.Reason(err)))
	}
	var keys []gossh.PublicKey
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, _, options, _, err := gossh.ParseAuthorizedKey([]byte(line))
		switch {
		case err != nil:
			return nil, c.At(key, fmt.Sprintf("operator %q: %s line %d is not an OpenSSH public key line: %v", op.Name, path, n+1, err))
		case len(options) > 0:
			return nil, c.At(key, fmt.Sprintf("operator %q: %s line %d has options (%s) the hub does not apply; remove them", op.Name, path, n+1, strings.Join(options, ",")))
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, c.At(key, fmt.Sprintf("operator %q: %s holds no key", op.Name, path))
	}
	return keys, nil
}

// OperatorLook is the config as the named operator's dashboard over SSH
// reads it: the operator's theme, keys and views where the [[operator]]
// table sets them, the top of the file's elsewhere. Its At names the
// operator's keys ("operator[2].view[1].filter"). nil and no error for
// an operator the config does not have.
func (c *Config) OperatorLook(name string) (*Config, error) {
	for i, op := range c.Operators {
		if op.Name != name {
			continue
		}
		look := *c
		look.at = operatorKey(i, "")
		if op.ThemeSetting != nil {
			look.ThemeSetting, look.Theme, look.Colors = op.ThemeSetting, "auto", nil
			if err := look.readTheme(); err != nil {
				return nil, err
			}
			if !slices.Contains(Themes, look.Theme) {
				return nil, look.At("theme", fmt.Sprintf("%q is not a theme; use one of %s", look.Theme, strings.Join(Themes, ", ")))
			}
		}
		if op.Keys != nil {
			look.Keys = op.Keys
			if err := look.readKeys(); err != nil {
				return nil, err
			}
		}
		if op.Views != nil {
			look.Views = op.Views
		}
		return &look, nil
	}
	return nil, nil
}
