// Package push is a2atop's webhook for the agents' push notifications
// (A2A §3.1.7–3.1.10, §4.3.3, §13.2): the Receiver that a2atop serve, or a
// dashboard an agent can reach (push_listen, push_public_url), serves at
// /push/AGENT.
//
// For each open task a2atop watches on an agent whose card offers push,
// a2aclient asks Issue for the webhook URL and a fresh random token, and
// registers a push config with the agent carrying that token (as the
// config's token and as its Bearer authentication). A POST is accepted
// only when:
//
//   - its path names a configured agent (else 404, counted apart: it never
//     creates or hides an agent);
//   - it carries the token of a config a2atop issued for that agent, in
//     "Authorization: Bearer", A2A-Notification-Token or
//     X-A2A-Notification-Token, compared in constant time (else 401);
//   - its body, at most MaxBody bytes, is one StreamResponse for the task
//     that config was registered on (a task of another config of a2atop:
//     401; any other: 404; too large 413; unreadable 400).
//
// An agent named "." or ".." gets no webhook (a URL resolves such a
// segment away, so the agent would POST, or be redirected, elsewhere);
// its row says to rename it. The receiver itself never redirects.
//
// Everything refused is counted on the agent's row (model.PushHealth) with
// why, in words; the token never reaches a log, a row or an error. An
// accepted delivery goes to the Sink (a2aclient.Manager), which sends it
// down the same event path as a stream's, into model.Fleet.Apply: duplicates
// and out-of-order deliveries are harmless there. Push never replaces the
// sweeps; it only makes a change arrive before the next one.
//
// push may import the standard library, the SDK's a2a types and
// a2atop/model; it does not import a2aclient (Sink is what it needs of it).
package push
