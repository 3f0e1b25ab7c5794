// Package natsembed runs a NATS server with JetStream inside a2atop
// serve, so that a team's hubs form a JetStream cluster among
// themselves (NATS's own routes and Raft) and share one record with no
// other server to run: `a2atop serve --cluster-listen ADDR --peers
// A,B`. Its state lives in the hub's state directory; every write is
// synced to disk before it is acknowledged.
//
// It imports the standard library and github.com/nats-io/nats-server/v2
// only.
package natsembed
