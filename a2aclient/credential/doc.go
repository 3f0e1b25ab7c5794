// Package credential is every kind of credential an agent's calls carry
// and every flow that gets one: static headers' kin (a token from the
// environment or a file read again when it changes, credential.go,
// token_file.go), a credential command (token_command.go), OAuth 2.0
// client credentials and the device sign-in that refreshes with the
// token it keeps (token_oauth2.go, refresh_store.go, device.go), the
// choice among them by the card's security requirements (Chooser,
// auth_choose.go; what the card fetch may carry before, card_fetch.go),
// the client certificate and where it may be presented (Certificate,
// client_cert*.go), and the retry of a read refused 401 (Retry,
// retry_unauthorized.go).
//
// The connection (package a2aclient) asks it through one small
// interface, Credential: the headers for a call now (Headers), and
// "refused, try again?" (Refused); the TLS side is Certificate (its
// TLS configuration and what the agent's server asked of it). The rule
// of where a secret may go is the connection's: it is handed in as a
// func(Origin) bool (Origin, origin.go, is how requests are judged).
//
// It may import the standard library, the SDK's a2a types (the card),
// golang.org/x/oauth2, google.golang.org/grpc (the retry's
// interceptors), a2atop/a2aclient/a2aerr and a2atop/internal/secretfile
// and statefile. It never imports a2aclient, its edge, model, ui or
// terminal packages; no value it holds is logged, shown or sent but to
// the origins the rule allows and the token endpoints.
package credential
