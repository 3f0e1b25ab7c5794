package config

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"a2atop/a2aclient"
	"a2atop/internal/secretfile"
)

// validateCredential checks the [agent.auth] keys of the credential beyond
// a static token and of the card's trust; keys are relative to the agent.
func (au *Auth) validateCredential() error {
	fail := func(key, format string, args ...any) error {
		return &Error{Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	if au.ClientSecret != nil {
		return fail("auth.client_secret", "secrets are not written in the config file: put the client secret in an "+
			"environment variable or a file and name it with client_secret_env or client_secret_file")
	}
	if au.Type != "" && !slices.Contains(a2aclient.AuthTypes, au.Type) {
		return fail("auth.type", "%q is not an auth type; use one of %s, or leave it out to let the card choose",
			au.Type, strings.Join(a2aclient.AuthTypes, ", "))
	}
	if au.ClientSecretEnv != "" && au.ClientSecretFile != "" {
		return fail("auth", "set client_secret_env or client_secret_file, not both")
	}
	hasToken := au.TokenEnv != "" || au.TokenFile != ""
	hasSecret := au.ClientSecretEnv != "" || au.ClientSecretFile != ""
	switch au.Type {
	case a2aclient.AuthBearer, a2aclient.AuthAPIKey:
		if !hasToken {
			return fail("auth.type", "%q needs token_env or token_file", au.Type)
		}
	case a2aclient.AuthCommand:
		if len(au.Command) == 0 || strings.TrimSpace(au.Command[0]) == "" {
			return fail("auth.command", "type \"command\" needs the command and its arguments, like [\"gcloud\", \"auth\", \"print-identity-token\"]")
		}
	case a2aclient.AuthClientCredentials:
		if au.ClientID == "" || !hasSecret {
			return fail("auth.type", "\"oauth2_client_credentials\" needs client_id and client_secret_env or client_secret_file")
		}
	case a2aclient.AuthDevice:
		if au.ClientID == "" {
			return fail("auth.client_id", "\"oauth2_device\" needs the client_id registered for a2atop at the provider")
		}
	case a2aclient.AuthMTLS:
		if au.CertFile == "" {
			return fail("auth.type", "\"mtls\" needs cert_file and key_file")
		}
	}
	if hasSecret && au.ClientID == "" {
		return fail("auth.client_id", "a client secret needs the client_id it belongs to")
	}
	if len(au.Command) > 0 && au.Type != "" && au.Type != a2aclient.AuthCommand {
		return fail("auth.command", "a command is used with type \"command\" (or no type), not %q", au.Type)
	}
	if au.CommandTimeout != nil && au.CommandTimeout.Duration <= 0 {
		return fail("auth.command_timeout", "must be a positive duration like \"30s\", not %s", au.CommandTimeout)
	}
	if (au.CertFile == "") != (au.KeyFile == "") {
		return fail("auth.cert_file", "a client certificate needs both cert_file and key_file")
	}
	for key, u := range map[string]string{"auth.token_url": au.TokenURL, "auth.device_authorization_url": au.DeviceAuthorizationURL, "auth.jwks_url": au.JWKSURL} {
		if err := checkEndpoint(u); err != nil {
			return fail(key, "%v", err)
		}
	}
	if au.JWKSURL != "" && au.CardKeyFile != "" {
		return fail("auth.jwks_url", "pin the card's keys with jwks_url or card_key_file, not both")
	}
	if au.RequireSignedCard && au.JWKSURL == "" && au.CardKeyFile == "" {
		return fail("auth.require_signed_card", "needs the keys to check against: jwks_url or card_key_file")
	}
	return nil
}

// checkEndpoint accepts "" or an absolute https URL, or http on a
// loopback host: a token endpoint or a key set in clear text would give
// the secrets (or the trust) away.
func checkEndpoint(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("%q must be an absolute https:// URL", shown(raw))
	}
	if u.User != nil {
		return errors.New("the URL holds a user name or password; a2atop sends the client's credentials itself")
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return fmt.Errorf("%q is plain http: use https (http is accepted only on a loopback address)", shown(raw))
	}
	return nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// resolveCredential turns an [agent.auth] table into the credential
// options of package a2aclient and the agent's TLS configuration,
// reading now what must exist (the environment, the files), so that a
// missing one is a configuration error at start; token and secret files
// are read again by a2aclient whenever they change.
func (c *Config) resolveCredential(agent string, au Auth) (a2aclient.AuthOptions, *tls.Config, error) {
	o := a2aclient.AuthOptions{
		Type: au.Type, APIKeyHeader: au.APIKeyHeader, ClientID: au.ClientID,
		Scopes: append([]string(nil), au.Scopes...), TokenURL: au.TokenURL, DeviceAuthURL: au.DeviceAuthorizationURL,
		Command: append([]string(nil), au.Command...), RefreshTokenFile: RefreshTokenPath(agent),
		CardKeys: a2aclient.CardKeys{JWKSURL: au.JWKSURL, Require: au.RequireSignedCard},
	}
	if au.CommandTimeout != nil {
		o.CommandTimeout = au.CommandTimeout.Duration
	}
	if au.CardKeyFile != "" {
		o.CardKeys.File = c.resolvePath(au.CardKeyFile)
		if _, err := secretfile.Read(o.CardKeys.File); err != nil {
			return o, nil, &Error{Key: "auth.card_key_file", Msg: fmt.Sprintf("cannot read %s: %v", o.CardKeys.File, secretfile.Reason(err)), Err: err}
		}
	}
	var err error
	if o.Token, err = c.secretSource("auth.token_env", au.TokenEnv, "auth.token_file", au.TokenFile); err != nil {
		return o, nil, err
	}
	if o.ClientSecret, err = c.secretSource("auth.client_secret_env", au.ClientSecretEnv, "auth.client_secret_file", au.ClientSecretFile); err != nil {
		return o, nil, err
	}
	tlsCfg, err := c.tlsConfig(au)
	if err != nil {
		return o, nil, err
	}
	o.ClientCertificate = au.CertFile != ""
	if au.CertFile != "" {
		o.CertFile, o.KeyFile = c.resolvePath(au.CertFile), c.resolvePath(au.KeyFile)
	}
	return o, tlsCfg, nil
}

// secretSource checks the secret named by env or file (at most one) and
// returns where a2aclient finds it: the environment's value now, or the
// file's path, which it reads again when the file changes.
func (c *Config) secretSource(envKey, env, fileKey, file string) (a2aclient.Secret, error) {
	if env == "" && file == "" {
		return a2aclient.Secret{}, nil
	}
	v, err := c.secret(envKey, env, fileKey, file)
	if err != nil {
		return a2aclient.Secret{}, err
	}
	if env != "" {
		return a2aclient.Secret{Value: v}, nil
	}
	return a2aclient.Secret{File: c.resolvePath(file)}, nil
}

// tlsConfig is the agent's TLS configuration: the roots of ca_file and
// the client certificate of cert_file and key_file; nil for the defaults.
func (c *Config) tlsConfig(au Auth) (*tls.Config, error) {
	if au.CAFile == "" && au.CertFile == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if au.CAFile != "" {
		p := c.resolvePath(au.CAFile)
		b, err := secretfile.Read(p)
		if err != nil {
			return nil, &Error{Key: "auth.ca_file", Msg: fmt.Sprintf("cannot read %s: %v", p, secretfile.Reason(err)), Err: err}
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, &Error{Key: "auth.ca_file", Msg: p + " holds no PEM certificate"}
		}
		cfg.RootCAs = pool
	}
	if au.CertFile != "" {
		cert, err := secretfile.KeyPair(c.resolvePath(au.CertFile), c.resolvePath(au.KeyFile))
		if err != nil {
			return nil, &Error{Key: "auth.cert_file", Msg: fmt.Sprintf("cannot load the client certificate %s with key %s: %v",
				c.resolvePath(au.CertFile), c.resolvePath(au.KeyFile), err), Err: err}
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

func plainPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// unsafeName matches what a file name made from an agent name may not hold.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// RefreshTokenPath is the 0600 file in the state directory where the
// device flow keeps agent's refresh token: never in the config.
func RefreshTokenPath(agent string) string {
	name := unsafeName.ReplaceAllString(agent, "_")
	if name != agent || strings.HasPrefix(name, ".") {
		name = fmt.Sprintf("%s-%08x", strings.TrimLeft(name, "."), fnv32(agent))
	}
	return filepath.Join(StateDir(), "tokens", name+".json")
}

// fnv32 is the FNV-1a hash of s, to keep distinct names distinct.
func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}
