// Package jetstore keeps a team's journal in NATS JetStream, so that
// several hubs share one record: the journal is a stream
// (A2ATOP_JOURNAL), one subject per prompt; a decision is appended with
// the expected last sequence on its prompt's subject, so the first
// append wins on every hub at once; each append is acknowledged once a
// majority of the stream's replicas hold it, before anything is sent.
// Journal implements approvals.SharedLog; the hub's claims are a KV
// bucket with a TTL (Claims), and so are the watch leases that have each
// agent watched by one hub at a time (Leases); the watching hub
// publishes its watchers' events to a stream kept for a while (Events).
//
// It may import the standard library, github.com/nats-io/nats.go,
// a2atop/approvals (for the seam's types) and a2atop/internal/secretfile
// (the one reader of credential, key and CA files); never hub, ui or
// internal/config (internal/cli wires it from the config).
package jetstore
