package a2aclient

import "a2atop/a2aclient/credential"

// The names of package credential that a2aclient's callers (the config,
// the commands) use through a2aclient: AgentOptions holds them.

// Header is one resolved secret header (credential.Header).
type Header = credential.Header

// Secret is where one secret lives (credential.Secret).
type Secret = credential.Secret

// AuthOptions says how an agent's calls are authenticated
// (credential.AuthOptions).
type AuthOptions = credential.AuthOptions

// CardKeys pins the keys an agent's card must be signed with
// (credential.CardKeys).
type CardKeys = credential.CardKeys

// DeviceCode is what a person needs to sign in with the device flow
// (credential.DeviceCode).
type DeviceCode = credential.DeviceCode

// The values of AuthOptions.Type (see credential).
const (
	AuthBearer            = credential.AuthBearer
	AuthAPIKey            = credential.AuthAPIKey
	AuthClientCredentials = credential.AuthClientCredentials
	AuthDevice            = credential.AuthDevice
	AuthCommand           = credential.AuthCommand
	AuthMTLS              = credential.AuthMTLS
)

// AuthTypes lists the values of AuthOptions.Type a config may name.
var AuthTypes = credential.AuthTypes
