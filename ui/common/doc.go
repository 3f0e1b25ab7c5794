// Package common holds what every screen of the dashboard shares: the
// Component interface views implement, the Context they are built with,
// the Backend interface through which the UI asks the network for things
// (satisfied by *a2aclient.Manager, which ui never imports), the messages
// the root model and its components exchange, and small formatting helpers
// (ages, short task ids) so that every screen writes them the same way.
//
// common may import bubbletea, bubbles/key, model, ui/theme and the A2A
// SDK's a2a types. It does no I/O.
package common
