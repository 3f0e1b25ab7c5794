package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"a2atop/a2aclient"
	"a2atop/internal/testcert"
)

// The credential keys are validated with the line and the key at fault.
func TestValidateCredential(t *testing.T) {
	for _, tc := range []struct{ auth, want string }{
		{`type = "kerberos"`, `auth.type: "kerberos" is not an auth type`},
		{`client_secret = "s3cret"`, "auth.client_secret: secrets are not written in the config file"},
		{`type = "bearer"`, `"bearer" needs token_env or token_file`},
		{`type = "oauth2_client_credentials"` + "\nclient_id = \"x\"", "needs client_id and client_secret_env or client_secret_file"},
		{`type = "oauth2_device"`, "auth.client_id: \"oauth2_device\" needs the client_id"},
		{`client_secret_env = "X"`, "auth.client_id: a client secret needs the client_id"},
		{`type = "command"`, `auth.command: type "command" needs the command`},
		{`type = "mtls"`, `"mtls" needs cert_file and key_file`},
		{`cert_file = "c.pem"`, "needs both cert_file and key_file"},
		{`token_url = "http://login.example.com/token"`, "auth.token_url: \"http://login.example.com/token\" is plain http"},
		{`jwks_url = "ftp://keys"`, "auth.jwks_url: \"ftp://keys\" must be an absolute https:// URL"},
		{`require_signed_card = true`, "auth.require_signed_card: needs the keys"},
		{`command = ["x"]` + "\ncommand_timeout = \"-1s\"", "auth.command_timeout: must be a positive duration"},
		{`type = "bearer"` + "\ntoken_env = \"T\"\ncommand = [\"x\"]", `a command is used with type "command"`},
	} {
		doc := "[[agent]]\nname = \"a\"\nurl = \"http://x\"\n[agent.auth]\n" + tc.auth + "\n"
		c, err := Parse([]byte(doc), "c.toml")
		if err == nil {
			err = c.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "c.toml:") {
			t.Errorf("%s: err = %v, want %q with the file and line", tc.auth, err, tc.want)
		}
	}
}

// A full credential table resolves into a2aclient's options: the secret
// files by path (read again when they change), the certificate loaded
// (and its files by path, for the same),
// the refresh token in the state directory.
func TestResolveCredential(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	ca := testcert.NewCA(t, "a2atop test")
	testcert.WriteFiles(t, dir, "client", ca.Client(t, "a2atop")) // client.crt, client.key
	ca.WriteCA(t, dir)                                            // ca.crt
	writeFile(t, filepath.Join(dir, "secret"), "cs-1\n")
	writeFile(t, filepath.Join(dir, "card.pem"), "-----BEGIN PUBLIC KEY-----\n")
	doc := "[[agent]]\nname = \"ops/deployer\"\nurl = \"https://x\"\n[agent.auth]\ntype = \"oauth2_client_credentials\"\n" +
		"client_id = \"a2atop\"\nclient_secret_file = \"secret\"\nscopes = [\"a2a.read\"]\ntoken_url = \"https://login.example.com/t\"\n" +
		"cert_file = \"client.crt\"\nkey_file = \"client.key\"\nca_file = \"ca.crt\"\ncard_key_file = \"card.pem\"\nrequire_signed_card = true\n" +
		"command_timeout = \"5s\"\n"
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
	o := opts[0]
	au := o.Auth
	if au.Type != a2aclient.AuthClientCredentials || au.ClientID != "a2atop" || au.ClientSecret.File != filepath.Join(dir, "secret") ||
		au.TokenURL != "https://login.example.com/t" || len(au.Scopes) != 1 || !au.ClientCertificate ||
		au.CardKeys.File != filepath.Join(dir, "card.pem") || !au.CardKeys.Require || au.CommandTimeout != 5*time.Second {
		t.Errorf("auth = %+v", au)
	}
	if o.TLS == nil || len(o.TLS.Certificates) != 1 || o.TLS.RootCAs == nil {
		t.Errorf("tls = %+v", o.TLS)
	}
	if au.CertFile != filepath.Join(dir, "client.crt") || au.KeyFile != filepath.Join(dir, "client.key") {
		t.Errorf("certificate files = %q, %q; want them by path, to be read again when they change", au.CertFile, au.KeyFile)
	}
	if want := filepath.Join(dir, "state", "a2atop", "tokens"); filepath.Dir(au.RefreshTokenFile) != want ||
		strings.Contains(filepath.Base(au.RefreshTokenFile), "/") || !strings.HasPrefix(filepath.Base(au.RefreshTokenFile), "ops_deployer-") {
		t.Errorf("refresh token file = %s, want one file in %s", au.RefreshTokenFile, want)
	}
}
