// Package layers holds no code: its test checks the import direction that
// DESIGN.md and CONTRACTS.md set, with `go list`, so a forbidden import
// fails `go test ./...` instead of waiting for a reviewer.
//
// The rules: model, a2aclient and approvals never depend on bubbletea,
// bubbles or lipgloss; only package main and a2atop/ui/... import them;
// model imports no a2atop package; approvals imports only model and
// internal packages; a2aclient imports only model and internal packages;
// demo imports no a2atop package.
package layers
