// Package config reads a2atop's TOML configuration: the agents to watch,
// how to authenticate to each, and the dashboard's own settings.
//
// Loading is strict and in three steps: Default, then a decode that
// refuses unknown keys and wrong types, then Validate. Every error names
// the file, the line and the key ("config.toml:4: agent.url: ..."): Parse
// keeps the line of every key it read for Validate's errors. The file is
// found by Locate: --config, then $A2ATOP_CONFIG, then
// os.UserConfigDir()/a2atop/config.toml. Secrets are never written in the
// file: the file names an environment variable or a file, and
// Config.AgentOptions checks them when a2atop starts (a token file is read
// again by a2aclient whenever it changes). The credential keys of
// [agent.auth] (type, OAuth 2.0, command, mTLS, the card's pinned keys)
// are validated and resolved in auth.go.
// For team mode, Config.HubOperators reads the operators' tokens (kept
// as hashes) and Config.HubToken a dashboard's own. push_public_url and
// push_listen configure the webhook for the agents' push notifications
// (push.go; Config.PushOn).
//
// config owns parsing, defaults, validation and secret resolution. It may
// import the standard library, go-toml, the A2A SDK's a2a types,
// a2atop/a2aclient, a2atop/approvals and a2atop/hub (for the options,
// templates and operators it produces); never ui, bubbletea, bubbles or
// lipgloss.
package config
