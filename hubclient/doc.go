// Package hubclient is a dashboard's side of team mode: the client of
// an a2atop hub (package hub, a2atop serve).
//
// A Client reads the hub's feed with r3labs/sse/v2's client, one per
// connection, with its own reconnect loop (backoff with jitter, for as
// long as it runs) and Last-Event-ID from what it applied, so a dropped
// connection resumes with exactly what it missed, or gets a snapshot.
// It turns the feed into what a local dashboard has: model.Events on one
// channel (Events, for Fleet.Apply: the dashboard's ui.Options.Events),
// and the hub's journal, line by line, for the approvals.Service it
// attaches (OpenService: a Service with Options.Hub set, whose Send,
// Reconcile and NoteLeft come back here). It is an approvals.Hub and the
// dashboard's common.Backend (Get, Cancel, Capture through the hub), and
// it makes and lists soft claims (Claim, Release, Claims).
//
// When the hub is unreachable it keeps the last picture, marks every
// agent stale (a health event each, naming the hub and the next
// attempt), refuses writes (nothing is sent that the hub could not
// check), and reconnects. A feed that stays silent for three heartbeats
// is taken for dead. When the hub says it cannot reach the team's
// record (a shared journal in NATS JetStream), RecordReachable says so,
// since when and why, until the hub says it is back. The operator token is sent to the hub's URL only
// (redirects are not followed) and never appears in an error or a log.
//
// hubclient may import the standard library, the SDK's a2a types,
// r3labs/sse/v2 (and its backoff package), a2atop/model,
// a2atop/approvals and a2atop/hub (the wire types). It never imports ui
// or terminal packages.
package hubclient
