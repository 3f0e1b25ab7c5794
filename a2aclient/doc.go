// Package a2aclient is how a2atop talks to A2A agents, on the official Go
// SDK (github.com/a2aproject/a2a-go/v2). It owns the Manager: a watcher
// per agent that reads its card, sweeps, polls and streams its tasks and
// reports them, with the agent's health, as model.Event values on one
// bounded channel; the operations the screens and approvals need (Get,
// Reply, Cancel, Watch); the raw capture of each agent's exchanges; and
// the HTTP edge under the SDK (transport.go), where each workaround for
// the SDK is a file named after what it fixes.
//
// It owns the agents' credentials too (AuthOptions): the origin rule that
// says where a secret may go (origin_guard.go), the gRPC targets it will
// dial (grpc_dial.go), token files, credential commands and OAuth 2.0
// tokens that refresh (credential.go, token_*.go, auth_choose.go, which
// lets the card's security requirements choose), the retry of a read
// refused 401 (retry_unauthorized.go), the device sign-in
// (device_login.go), and the trust in a card: its signatures against
// pinned keys (card_signature.go) and the extended card.
//
// It may import the standard library, the SDK, google.golang.org/grpc,
// golang.org/x/oauth2, go-jose, gowebpki/jcs, a2atop/internal/statefile
// (the refresh token's file), a2atop/model and its subpackage a2aerr, the
// failure vocabulary it shares with approvals. It never imports ui, approvals or terminal
// packages, and never touches UI state.
package a2aclient
