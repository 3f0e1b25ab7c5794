// Package a2aclient is how a2atop talks to A2A agents, on the official Go
// SDK (github.com/a2aproject/a2a-go/v2). It owns the Manager: a watcher
// per agent that reads its card, sweeps, polls and streams its tasks and
// reports them, with the agent's health, as model.Event values on one
// bounded channel; the operations the screens and approvals need (Get,
// Reply, Cancel, Watch); and the wiring of each agent's connection
// (connect.go, transport.go) from the two packages below it.
//
// The HTTP edge under the SDK is package edge: the RoundTrippers, one
// concern each (origin guard, limits, raw capture and redaction, byte
// count), and each workaround for the SDK in a file named after what it
// fixes. transport.go lists the chain in order, with why; the layers
// that are about watching (sweepBytesLayer, sweep_budget.go) and the
// refusal of plain http to an agent configured https (downgrade.go)
// stay here, with the state they read.
//
// The agents' credentials are package credential, below it: every kind
// of token and flow, the client certificate and the retry of a read
// refused 401, asked for through credential.Credential and
// credential.Certificate. a2aclient wires them into each connection
// (connect.go, secrets.go, auth.go): the origin rule that says where a
// secret may go (origin_rule.go), the gRPC targets it will dial
// (grpc_dial.go), the device sign-in's Manager side (device_login.go),
// and the trust in a card: its signatures against pinned keys
// (card_signature.go) and the extended card.
//
// It may import the standard library, the SDK, google.golang.org/grpc,
// go-jose, gowebpki/jcs, a2atop/model, its subpackages credential, edge
// and a2aerr (the failure vocabulary it shares with approvals) and the
// internal packages below it. It never imports ui, approvals or terminal
// packages, and never touches UI state.
package a2aclient
