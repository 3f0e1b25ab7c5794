// Package sshd serves the hub's dashboard over SSH: `ssh -t -p 2222
// hub.example.com` opens the operator's dashboard, known by their key,
// with nothing installed on their side.
//
// It is built on charmbracelet/wish (v1.4.7) and its bubbletea
// middleware, over charmbracelet/ssh and golang.org/x/crypto/ssh. It
// knows SSH and nothing of the hub: the operators and their public keys,
// the host key (HostKey: ed25519, generated once into the state
// directory, 0600), the bounds (sessions per operator, an idle timeout,
// the input rate, the time to start a session), the session log
// (operator, key fingerprint, client address, start, end) and the
// refusals. Options.Dashboard builds each session's Bubble Tea program
// (a2atop/internal/cli: the operator's dashboard attached to the hub's
// own HTTP API, so that roles, claims and refusals are those of
// `a2atop --hub`).
//
// A session is the dashboard and nothing else: public keys only (no
// password, no keyboard-interactive), no shell or command besides the
// screen to open (tasks, inbox, agents, journal), no port, agent or X11
// forwarding, no subsystem (SFTP). A session without a pty gets one line
// saying to use `ssh -t`.
//
// sshd imports bubbletea and lipgloss (it runs the dashboard's program
// on the session) and the ui's termbg; never internal/cli.
package sshd
