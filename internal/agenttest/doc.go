// Package agenttest runs the A2A agents that the tests of several
// packages talk to on loopback:
//
//   - Agent, a real A2A server (the SDK's a2asrv, JSON-RPC) whose tasks
//     wait for a person, that counts what it receives and can hold the
//     answer to a message it has taken, as an agent does when the
//     network fails at the worst moment;
//   - RESTAgent, a real A2A server over HTTP+JSON whose task store the
//     test fills, with a catch-all on its origin that records every
//     request outside the A2A routes;
//   - Child, the test binary run again as another process, for tests
//     of two processes at once;
//   - Lister, a raw JSON-RPC agent whose ListTasks never ends, in ways
//     the SDK's server cannot be made to answer, and HeapSampler, the
//     peak heap the tests that face it measure.
//
// Buffer is a log sink a test reads while the code under test writes.
//
// It is for tests only. It may import the standard library and the A2A
// SDK; no a2atop package, so that the tests of every package may use it.
package agenttest
