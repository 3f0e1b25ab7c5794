package credential

import "time"

// Header is one resolved secret header (a bearer token, an API key). Its
// value is never logged, shown or captured.
type Header struct{ Name, Value string }

// The values of AuthOptions.Type.
const (
	// AuthAuto lets the card's security requirements choose among what the
	// config provides (a token, a client id, a command, a certificate).
	AuthAuto = ""
	// AuthBearer sends Token as "Authorization: Bearer".
	AuthBearer = "bearer"
	// AuthAPIKey sends Token in APIKeyHeader, else in the header the
	// card's apiKey scheme names, else in X-API-Key.
	AuthAPIKey = "api_key"
	// AuthClientCredentials gets tokens from the token endpoint with
	// ClientID and ClientSecret (OAuth 2.0 client credentials grant).
	AuthClientCredentials = "oauth2_client_credentials"
	// AuthDevice signs a person in with the OAuth 2.0 device authorization
	// grant (Manager.StartLogin) and refreshes with the refresh token kept
	// in RefreshTokenFile.
	AuthDevice = "oauth2_device"
	// AuthCommand runs Command and sends the token it prints.
	AuthCommand = "command"
	// AuthMTLS sends no token: the client certificate in AgentOptions.TLS
	// is the credential. A certificate may accompany any other type too.
	AuthMTLS = "mtls"
)

// AuthTypes lists the values of AuthOptions.Type a config may name.
var AuthTypes = []string{AuthBearer, AuthAPIKey, AuthClientCredentials, AuthDevice, AuthCommand, AuthMTLS}

// AuthOptions says how an agent's calls are authenticated. The zero value
// sends no credential but AgentOptions.Headers. No field holds a secret
// but Secret values, which are never logged, shown or sent elsewhere than
// the agent's origin, AllowedHosts and the token endpoint.
type AuthOptions struct {
	// Type is one of the Auth* constants; AuthAuto (""), the default,
	// lets the card choose.
	Type string
	// Token is the bearer token or API key (bearer, api_key, auto).
	Token Secret
	// APIKeyHeader is the header an API key goes in (or a command's
	// token); "" means the card's apiKey scheme's, else X-API-Key (for a
	// command: Authorization: Bearer).
	APIKeyHeader string
	// ClientID and ClientSecret identify a2atop to the token endpoint
	// (OAuth 2.0); the device flow needs no secret.
	ClientID     string
	ClientSecret Secret
	// Scopes are asked for; none means the scopes the card's security
	// requirement lists.
	Scopes []string
	// TokenURL and DeviceAuthURL are the OAuth 2.0 endpoints; "" means
	// the ones the card's OAuth 2.0 scheme names (which must then be on
	// the agent's origin or in AllowedHosts).
	TokenURL, DeviceAuthURL string
	// Command is a credential command and its arguments, run with
	// CommandTimeout (0 = 30s).
	Command        []string
	CommandTimeout time.Duration
	// RefreshTokenFile is where the device flow keeps its sign-in (a 0600
	// file in the state directory, locked through RefreshTokenFile+".lock"
	// while it is refreshed).
	RefreshTokenFile string
	// ClientCertificate reports that AgentOptions.TLS holds a client
	// certificate (for the card's mutualTLS scheme).
	ClientCertificate bool
	// CertFile and KeyFile are the PEM files the client certificate in
	// AgentOptions.TLS was read from: a TLS handshake reads them again
	// when they change, keeping the last good pair while they do not
	// make one. "" when the certificate is not from files.
	CertFile, KeyFile string
	// CardKeys are the keys the card's signatures are checked against.
	CardKeys CardKeys
}

// CardKeys pins the keys an agent's card must be signed with.
type CardKeys struct {
	// JWKSURL is a JSON Web Key Set to fetch (https, or http on loopback).
	JWKSURL string
	// File is a local JWK, JWK Set or PEM public key.
	File string
	// Require refuses an agent whose card does not verify.
	Require bool
}
