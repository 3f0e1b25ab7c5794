package model

import (
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Source says how a piece of task data reached us.
type Source uint8

// The sources of task data.
const (
	SourceUnknown Source = iota
	SourceStream         // a SubscribeToTask or SendStreamingMessage stream
	SourceSweep          // a ListTasks sweep
	SourcePoll           // a GetTask poll
	SourceReply          // the answer to a message or cancel we sent
	SourcePush           // a push notification the agent POSTed to our webhook
)

// String names the source for the detail view.
func (s Source) String() string {
	switch s {
	case SourceStream:
		return "stream"
	case SourceSweep:
		return "sweep"
	case SourcePoll:
		return "poll"
	case SourceReply:
		return "reply"
	case SourcePush:
		return "push"
	default:
		return "unknown"
	}
}

// EventKind says which field of an Event is set.
type EventKind uint8

// The kinds of Event.
const (
	EventTask     EventKind = iota + 1 // Task: a full snapshot
	EventStatus                        // Status: a TaskStatusUpdateEvent
	EventArtifact                      // Artifact: a TaskArtifactUpdateEvent
	EventHealth                        // Health: the agent's connection state
	EventAgent                         // Agent: what the card says about the agent
	EventGone                          // Task: the agent says this task no longer exists (TaskNotFound)
)

// Event is one thing a watcher learned about one agent. Exactly the field
// named by Kind is set. Events are values; the pointers they carry are
// owned by the Fleet once applied and must not be changed afterwards.
type Event struct {
	Kind   EventKind
	Agent  string    // the configured agent name; never empty
	Source Source    // for task events
	At     time.Time // when the watcher received it (local clock)

	Task     *a2a.Task                    // EventTask, EventGone (only ID needed for Gone)
	Status   *a2a.TaskStatusUpdateEvent   // EventStatus
	Artifact *a2a.TaskArtifactUpdateEvent // EventArtifact
	Health   *HealthUpdate                // EventHealth
	Info     *AgentInfo                   // EventAgent
}

// Health is an agent's connection state as the agents view shows it.
type Health uint8

// The health states. HealthConnecting is the zero value of an agent we
// have not heard from yet.
const (
	HealthConnecting   Health = iota
	HealthStreaming           // card resolved; streams open (and sweeps running)
	HealthSweeping            // card resolved; watched by ListTasks sweeps
	HealthPolling             // card resolved; no listing, watched by GetTask polls
	HealthBackoff             // the last attempt failed; retrying at NextRetry
	HealthUnreachable         // cannot connect (refused, DNS, TLS, timeout)
	HealthUnauthorized        // 401/403, or -31401/-31403 on ListTasks
)

// String names the health state.
func (h Health) String() string {
	switch h {
	case HealthStreaming:
		return "streaming"
	case HealthSweeping:
		return "sweeping"
	case HealthPolling:
		return "polling"
	case HealthBackoff:
		return "backing off"
	case HealthUnreachable:
		return "unreachable"
	case HealthUnauthorized:
		return "unauthorized"
	default:
		return "connecting"
	}
}

// Up reports whether the agent is answering (streaming, sweeping or polling).
func (h Health) Up() bool {
	return h == HealthStreaming || h == HealthSweeping || h == HealthPolling
}

// HealthUpdate is the payload of an EventHealth.
type HealthUpdate struct {
	State       Health
	Err         string    // the last error, in words a person can act on; "" when healthy
	LastSuccess time.Time // zero if never
	NextRetry   time.Time // zero unless backing off
	// Listing is false when the agent cannot list tasks for us: an A2A 0.3
	// JSON-RPC agent ("no task listing (A2A 0.3)") or credentials that may
	// not list (ListingNote says which).
	Listing     bool
	ListingNote string
	Streams     int // SubscribeToTask streams open now
	// StreamsShort is how many more of its open tasks the agent would
	// stream but for its share of the fleet's streams: those are
	// followed by sweeps.
	StreamsShort int
	// TerminalTotal is how many terminal tasks the agent holds for us: the
	// totalSize its status-filtered ListTasks gave at the first sweep,
	// plus the tasks seen ending since. 0 when it did not say.
	TerminalTotal int
	// Note is what the operator should know about how the agent is
	// watched that is not an error ("ListTasks ignores the status
	// filter: every full sweep lists every task"); "" when nothing.
	Note string
	// Push is what the agent's push notifications are doing; its zero
	// value is "push not configured" (and is left out of the hub's feed).
	Push PushHealth `json:",omitzero"`
	// HubDown marks the health of an agent a dashboard follows through a
	// hub that it cannot reach now: State is then the last one the hub
	// sent, not news of the agent, and its tasks are stale. Only the
	// dashboard's client sets it; the hub never sends it.
	HubDown bool `json:"-"`
}

// PushHealth is the state of an agent's push notifications (the
// webhook a2atop serves): whether they are on, the configs a2atop has
// registered with the agent, and what reached the webhook. No token is
// ever part of it.
type PushHealth struct {
	// On is true while a2atop registers push configs on the agent's open
	// tasks: a receiver is configured and the card offers push.
	On bool
	// Note says why push is off, or what went wrong with the last
	// registration ("registration refused: …"), in words; "" when none.
	Note string
	// Configs is how many push configs a2atop holds on the agent now.
	Configs int
	// Delivered counts the deliveries accepted; LastDelivery is when the
	// newest arrived (zero if none).
	Delivered    int
	LastDelivery time.Time
	// Rejected counts the POSTs refused (no or wrong token, a task that
	// is not the token's, a body too large or unreadable); LastRejected
	// says why the newest was, in words.
	Rejected     int
	LastRejected string
}

// AgentInfo is what an agent's card and our choice of interface say
// about it. It is the payload of an EventAgent.
type AgentInfo struct {
	CardName        string
	Description     string
	URL             string // the base URL from the config
	InterfaceURL    string // the URL of the interface we talk to
	ProtocolVersion string // "1.0" or "0.3"
	Binding         string // "JSONRPC", "HTTP+JSON", "GRPC"
	Tenant          string
	Streaming       bool
	Push            bool
	ReadOnly        bool // the config forbids writes to this agent
	// Auth is the credential a2atop sends, in words ("OAuth 2.0 client
	// credentials (card scheme "corp")"); "" when none is configured.
	Auth string
	// AuthMissing says what the config lacks for the card's security
	// requirements; "" when nothing.
	AuthMissing string
	// SignIn is true for an agent whose credential is a person's sign-in
	// (the device flow): the agents view offers to sign in.
	SignIn bool
	// Signature is the card's signature status: "signed ✓ (key K)",
	// "unsigned", "signature invalid: …", or "" when no key is pinned and
	// the card is unsigned.
	Signature string
	// SignatureOK is true when the card's signature verified.
	SignatureOK bool
	// Extended is what the extended card adds ("+2 skills: deploy, rollback"),
	// "" when the agent has none or it adds nothing.
	Extended string
}
