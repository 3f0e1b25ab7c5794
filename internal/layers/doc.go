// Package layers holds no code: its test checks the module's import
// direction with `go list`, so a forbidden import fails `go test ./...`
// instead of waiting for a reviewer.
//
// The rules: model, a2aclient and approvals never depend on bubbletea,
// bubbles or lipgloss; only package main, a2atop/internal/cli and
// a2atop/ui/... import them; model imports no a2atop package; approvals
// and a2aclient import only model and the internal packages below them
// (not internal/config or internal/cli, which import them); hub (the
// team's server) imports only model, approvals and those internal
// packages, not a2aclient (it reaches the agents through an interface),
// and hubclient (its client) only hub, model, approvals and those;
// push (the webhook for the agents' push notifications) only model;
// approvals/jetstore (the team's journal in NATS JetStream) only
// approvals and what it brings in; internal/natsembed (the embedded
// NATS server) no a2atop package;
// demo imports no a2atop package; a2atop/internal/cli, the commands, may import every
// package, and only package main imports it. The packages for tests only
// are never linked into the binary: internal/agenttest (the agents tests
// run on loopback) and internal/sdktest (the SDK's own servers on
// loopback) import no a2atop package, and internal/feedtest (a
// follower of a hub's feed) only hubclient and what it brings in, so the
// data and network layers may not import it.
package layers
