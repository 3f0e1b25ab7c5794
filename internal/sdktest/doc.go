// Package sdktest runs the A2A SDK's own servers (a2asrv) on loopback, as
// the tests of a2aclient and of its edge talk to them:
//
//   - Agent, one server of a Kind (JSON-RPC, REST and gRPC of A2A 1.0,
//     JSON-RPC and REST of 0.3) that can be stopped and started again on
//     its port keeping its task store; Exec, what its tasks do, named by
//     the first word of the message; Interceptor, what it received. Bare
//     is the SDK's client alone, with none of a2atop's layers: what the
//     TestSDK… tests pin.
//   - What a test puts in front of an Agent's handler (Start's wrap):
//     RouteGuard (every request on or off the A2A routes), RefServer (a
//     conformant 0.3 REST agent's referenceTaskIds), ReshapeErrors with
//     JSShape and ProblemShape (the Go server's REST errors, GoStatus, as
//     other agents send them), GETOnlySubscribe, RequireBearer.
//   - What a client is given: RequestLog keeps every request, SSETee the
//     bytes of every stream; the Hostile ids of issue 21.
//   - Hostile, a raw A2A-shaped peer that misbehaves on purpose, the one
//     server here that is not the SDK's.
//
// It is for tests only. It may import the standard library, the A2A SDK
// and gRPC; no a2atop package, so that the tests of every package may use
// it.
package sdktest
