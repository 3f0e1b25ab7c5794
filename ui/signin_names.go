package ui

import "a2atop/ui/agents"

// The names of the agents screen's device sign-in that the commands
// (internal/cli) implement and build, kept here for them.

// SignInBackend is what the agents screen's sign-in needs of the
// backend (agents.SignInBackend).
type SignInBackend = agents.SignInBackend

// DeviceCode is what the person needs to sign in (agents.DeviceCode).
type DeviceCode = agents.DeviceCode
