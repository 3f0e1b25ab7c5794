// Package hub is a2atop's team mode server (a2atop serve) and the wire
// types its clients share (package hubclient reads them).
//
// A Hub runs the watchers (an *a2aclient.Manager, through the Watchers
// interface) and the model.Fleet once for the whole team, alone holding
// the agents' credentials, and serves every operator over HTTP:
//
//   - The feed (GET /v1/feed): SSE, served with r3labs/sse/v2's Server.
//     A subscriber gets a snapshot (agents, tasks, the journal's lines,
//     the claims, in chunks under ChunkBytes), then every event: the
//     watchers' model.Events as the hub's fleet applied them, the
//     journal's lines as they are written, claims and releases. Every
//     event that moves the feed has an id, EPOCH-SEQ, the epoch naming
//     one run of the hub. A subscriber that comes back with Last-Event-ID
//     gets exactly what it missed while the id is within the replay
//     window (Window, WindowBytes), and a fresh snapshot otherwise (an id
//     older than the window, or of another run), never a silent gap. Each
//     connection has a place in the hub's one log and a pump of its own;
//     the hub never waits for a subscriber: one that falls out of the
//     window gets a snapshot, one that takes no bytes for StallTimeout is
//     closed (it reconnects and resumes). Idle feeds carry a comment
//     every Heartbeat, so that both ends notice a dead connection.
//   - Decisions (POST /v1/decisions): the dashboard prepares the message
//     it shows (approvals.Service.Prepare, with the templates and the
//     approver GET /v1/me gives), and posts it with what the operator
//     typed. The hub checks the operator's role, then the prompt (the
//     task still waits at the status the operator saw), prepares the
//     decision again for the authenticated operator (PrepareAs) and
//     sends it only if it is the same message (approvals.SameMessage),
//     with its own approvals.Service: journaled (fsync) before it leaves,
//     at most once. The first decision on a prompt wins; another on it,
//     or one on a prompt that has changed, is refused (409) with the
//     decision that won ("decided by alice at 14:02:11: approved").
//   - Operators and roles: every request carries an operator's bearer
//     token, kept only as a SHA-256 hash and compared in constant time.
//     Roles (watch, answer, approve, cancel) are given per agent or for
//     "*"; the hub refuses what they do not allow (403, in words), and
//     filters the feed to the agents an operator may watch.
//   - Soft claims (POST/DELETE /v1/claims): "alice is answering", on the
//     feed, ended by the operator or after ClaimTTL without renewal.
//   - The dashboard's backend: GetTask, CancelTask and the raw capture
//     through the hub's watchers (GET /v1/task, POST /v1/cancel,
//     GET /v1/capture).
//
// No token reaches the log, the feed or an error. When one hub is not
// enough, several hubs share one record: the journal is an
// approvals.SharedLog (Journal.Shared; NATS JetStream in
// approvals/jetstore, where the first decision on a prompt wins on every
// hub by compare-and-set), and the claims are SharedClaims (Options.Claims,
// a KV bucket with a TTL) that every hub applies to its own feed. A hub
// looks at its shared record every second and tells its feed when it
// loses it and when it has it back (EventRecord, SnapshotBegin.Record;
// record.go): the dashboards draw the banner while it refuses decisions.
// With Options.Team each agent is watched once for the whole team: a hub
// runs the watchers only of the agents it holds a watch lease on
// (SharedLeases, a KV bucket; leases.go), renewed by compare-and-set on
// the lease's revision every third of its TTL and given up, its watcher
// stopped, when it would lapse; the hubs split the agents (a hub takes
// an agent no one holds while it holds fewer than its share), and take
// over those of a hub that dies once its leases lapse. The watching hub
// publishes its watchers' events to a stream (SharedEvents; team.go),
// and every hub applies every other hub's to its own fleet, so any hub
// serves any dashboard the whole fleet. GetTask, CancelTask, the capture
// and the decisions go from whichever hub is asked straight to the
// agent (every hub holds the credentials; a Get is not a watch). Each
// hub still numbers its own feed: a dashboard that moves to another hub
// gets a snapshot there.
//
// hub may import the standard library, the SDK's a2a types,
// r3labs/sse/v2, a2atop/model and a2atop/approvals. It never imports
// ui, internal/cli, internal/config or terminal packages; it does not
// import a2aclient either (Watchers is what it needs of it).
package hub
