// Package a2aclient is how a2atop talks to A2A agents. It owns:
//
//   - connecting: resolving each agent's card (card_path override; 0.3 and
//     1.0 card shapes through a2av0.NewAgentCardParser), choosing the
//     interface (binding and protocol version from the card, narrowed by
//     the config), and building the SDK client on our own http.Client;
//   - watching: one watcher per agent, all under the context given to
//     Manager.Run. A watcher sweeps with ListTasks (incremental from a
//     status-timestamp high-water mark less a 5 s overlap, because agents
//     stamp a status before they store it; the inclusive boundary and the
//     overlap deduplicated by (id, timestamp, state); pages of 100 with a
//     repeated-token guard,
//     historyLength 0, no artifacts, a periodic full resync, jittered
//     intervals); streams every non-terminal task with SubscribeToTask
//     when the card allows it (up to MaxStreams), reconciling with GetTask
//     each time a stream ends, and closing streams that sweeps show stuck; polls known tasks with GetTask when the
//     agent cannot list (A2A 0.3 JSON-RPC) or our credentials may not; and
//     fetches each newly terminal task once with GetTask so its artifacts
//     reach the model;
//   - health: per-agent exponential backoff with jitter (cap 60 s) and the
//     reason in words a person can act on (Describe);
//   - operations for the screens and approvals: Get, Reply
//     (returnImmediately, the caller's message as given), Cancel (then
//     GetTask when it fails), Watch, Capture, Agents;
//   - the raw capture: per agent, the last CaptureN HTTP exchanges and gRPC
//     calls, secrets redacted;
//   - limits: MaxMessageBytes per response body and per SSE event, a call
//     timeout on every unary call, a stall timeout on half-sent SSE events.
//
// It emits model.Event values on one bounded channel and never touches UI
// state. When the consumer falls behind, a watcher waits at most
// Options.SendWait, then stops sending task events, remembers which tasks
// it dropped and resweeps (re-reporting everything) once the channel has
// room: nothing is dropped silently and no stream is stalled for long.
//
// Imports: the standard library, a2atop/model, the official A2A Go SDK
// (github.com/a2aproject/a2a-go/v2: a2a, a2aclient aliased sdk,
// a2aclient/agentcard, a2acompat/a2av0, a2agrpc/v0 and v1) and
// google.golang.org/grpc. Never ui, approvals, bubbletea, bubbles or
// lipgloss.
//
// # SDK edges this package wraps, and why
//
//   - The JSON-RPC and REST transports default to an http.Client with a
//     3-minute Timeout, which kills long streams: we pass our own client
//     with no Timeout and put deadlines on contexts (CallTimeout).
//   - The SDK hides the real JSON-RPC error code (unknown codes become
//     ErrInternalError) and the HTTP status (401/403 are untyped strings).
//     captureTransport, the RoundTripper under the SDK, records both into a
//     per-call probe carried by the request context; *Error exposes them as
//     RPCCode() and HTTPStatus() while still unwrapping to the SDK's a2a
//     sentinels. gRPC status codes are recorded by client interceptors.
//   - The SDK's SSE reader accepts events up to 10 MB and no response size
//     limit exists: the RoundTripper enforces MaxMessageBytes on bodies
//     and on each SSE event, and fails a stream whose event stops half-way
//     for CallTimeout.
//   - The card resolver goes through no interceptor: auth headers are
//     passed with agentcard.WithRequestHeader, only when the card URL is on
//     an allowed origin. The SDK's AuthInterceptor needs a session id and
//     card security requirements, so authInterceptor adds the configured
//     headers itself, only for interfaces on the configured origin or in
//     AllowedHosts; the RoundTripper strips them from any request to
//     another host as a second guard.
//   - The v1.0 REST client sends ListTasks' statusTimestampAfter as
//     "lastUpdatedAfter" with second precision, while the v1.0 REST server
//     (and the spec) read "statusTimestampAfter": incremental sweeps over
//     REST would silently be full listings. The RoundTripper adds
//     statusTimestampAfter with the exact mark (RFC 3339 with nanoseconds).
//   - The REST client reads error bodies only as application/json
//     google.rpc.Status with an a2a-protocol.org ErrorInfo and string
//     metadata; anything else (application/a2a+json from the JS SDK and
//     spec §11.1, application/problem+json from the SDK's own 0.3 server,
//     RFC 9457 problem details as in spec §6.4) becomes ErrServerError.
//     The RoundTripper re-presents an error body that names a known A2A
//     reason in the form the SDK reads (fixRESTError), so TaskNotFound,
//     TaskNotCancelable, UnsupportedOperation, ... keep their sentinel and
//     code; the capture keeps the bytes as sent.
//   - REST :subscribe is POST in the spec and GET in the proto
//     (A2A#1574); the SDK sends POST only. On a 405 the RoundTripper
//     retries once with GET.
//   - 0.3 JSON-RPC has no ListTasks (the SDK answers
//     ErrUnsupportedOperation without a request): such agents are polled
//     over the tasks we know (AgentOptions.Tasks, Watch, replies, streams,
//     and the tasks other tasks name as the one they wait on:
//     referenceTaskIds or the chain metadata key, see chain_follow.go), and their
//     health says "no task listing (A2A 0.3)".
//   - Go servers answer SubscribeToTask on a task with no running execution
//     (INPUT_REQUIRED, or orphaned) with -32001 "no active execution";
//     that is normal: GetTask, and leave the task to sweeps until its
//     state or timestamp changes. When GetTask finds the task, the refusal
//     is logged at debug level only, never shown on the agent's row (nor
//     UnsupportedOperation on a task GetTask finds terminal, spec §3.1.6).
//   - The SDK's A2A 0.3 HTTP+JSON conversion (a2apb/v0/pbjson, used by
//     its 0.3 REST client) drops Message.referenceTaskIds both ways: a
//     follow-up would reach a 0.3 REST agent without naming the task it
//     follows, and chains through such agents could not be linked. (0.3
//     JSON-RPC keeps them.) On such an interface authInterceptor gives
//     each call a refFix (refs03.go): the RoundTripper writes the sent
//     message's referenceTaskIds back into the request JSON, and records
//     those of every message object in response bodies and SSE events by
//     messageId; the interceptor's After puts them on the decoded task,
//     message, status update or listing where the SDK left them out. A
//     message without a messageId cannot be matched.
//   - A Go SDK agent's SubscribeToTask in the instant an execution stops
//     can replay the task and then stay open with nothing more to come
//     (v2.4.0 internal/taskexec Resubscribe). Such a stream would hold a
//     MaxStreams slot for ever while the task changes unreported, so
//     streams do not rely on the server closing them (streamwatch.go):
//     each round closes a stream when a sweep or poll showed a state it
//     has not reported and it still has not by the next round, or when
//     the task is interrupted or terminal and the stream has been silent
//     for two sweep intervals. It then ends as any stream does: GetTask,
//     and a new subscribe only if the task is still active.
//   - The factory does not say which interface it picked; we filter the
//     card's interfaces first and apply the same rule (newest version,
//     then card order) to report it in model.AgentInfo.
package a2aclient
