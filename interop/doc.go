// Package interop holds a2atop's interoperability tests: a2atop's own
// packages (a2aclient, approvals) and the raw Go SDK client driven against
// A2A agents that no one here wrote.
//
// The peers are:
//   - the JavaScript SDK (@a2a-js/sdk 1.3.0) in interop/jspeer, started as a
//     node process on 127.0.0.1 (JSON-RPC, HTTP+JSON, gRPC; one instance
//     with the SDK's 0.3 layer on);
//   - Go SDK agents (a2asrv) served over JSON-RPC, HTTP+JSON and gRPC
//     (a2agrpc/v1) on loopback listeners.
//
// The package has no non-test code besides this file. Its tests need Node.js
// 20+ and npm; without them they skip and say how to enable them, unless
// A2ATOP_REQUIRE_INTEROP=1 is set (as .ci/run does), which turns the skip
// into a failure. `npm ci` runs once per package-lock.json into
// os.UserCacheDir()/a2atop-jspeer-<hash> and is reused afterwards.
//
// # What interop owns and may import
//
// interop owns the peers' setup (interop/jspeer) and the tests against
// them, and no production code. Its tests may import every a2atop package
// and the SDK; nothing imports interop. README.md in this folder lists
// what is tested and the differences found.
package interop
