package hub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/model"
)

// The names of the feed's SSE events (the "event:" field). Every event's
// data is one JSON object.
const (
	// EventHello opens every connection: Hello.
	EventHello = "hello"
	// EventSnapshotBegin starts a snapshot: SnapshotBegin. Until
	// EventSnapshotEnd, the events carry the fleet, the journal and the
	// claims as the hub holds them, in chunks.
	EventSnapshotBegin = "snapshot-begin"
	// EventAgents is a chunk of agent events (card and health): Events.
	EventAgents = "agents"
	// EventTasks is a chunk of task snapshots: Events.
	EventTasks = "tasks"
	// EventJournal is a run of journal lines: Journal.
	EventJournal = "journal"
	// EventClaims lists the claims held: Claims.
	EventClaims = "claims"
	// EventSnapshotEnd ends a snapshot; its id is the feed position the
	// snapshot stands at: SnapshotEnd.
	EventSnapshotEnd = "snapshot-end"
	// EventEvents are watcher events, as the hub's fleet applied them:
	// Events.
	EventEvents = "events"
	// EventClaim says an operator claimed a prompt: Claim.
	EventClaim = "claim"
	// EventRelease says a claim ended: Release.
	EventRelease = "release"
	// EventResync says the subscriber fell out of the replay window; a
	// snapshot follows: Resync.
	EventResync = "resync"
	// EventPosition moves the subscriber's position past events it may
	// not see (another agent's), so that a resume starts after them:
	// Position.
	EventPosition = "position"
	// EventRecord says the hub lost the team's record (a shared journal
	// in NATS JetStream) or has it back: Record. A snapshot says where it
	// stands in SnapshotBegin.Record.
	EventRecord = "record"
)

// Hello is the data of EventHello.
type Hello struct {
	Epoch    string `json:"epoch"`
	Operator string `json:"operator"`
	// Resumed is true when what follows is exactly what the subscriber
	// missed since its Last-Event-ID; false when a snapshot follows.
	Resumed bool `json:"resumed"`
	// HeartbeatMS is how often, in milliseconds, an idle feed sends a
	// comment: a client that reads nothing for a few of them is cut off.
	HeartbeatMS int64 `json:"heartbeatMs"`
}

// SnapshotBegin is the data of EventSnapshotBegin: how much follows.
type SnapshotBegin struct {
	Epoch  string `json:"epoch"`
	Agents int    `json:"agents"`
	Tasks  int    `json:"tasks"`
	Lines  int    `json:"lines"`
	Claims int    `json:"claims"`
	// Reason says why a snapshot is sent: "first" (no Last-Event-ID),
	// "epoch" (an id of another run of the hub: it restarted), "window"
	// (an id older than the replay window) or "resync" (the connection
	// fell behind it).
	Reason string `json:"reason"`
	// JournalFrom is the journal line after which the snapshot's lines
	// start: the client's own position when the hub's line of that
	// number is the one it has, else 0 (all of them).
	JournalFrom int `json:"journalFrom"`
	// JournalTrimmed is the last journal line the hub no longer holds in
	// memory (0 for none): its lines are those of the open decisions and
	// the newest entries (journal_memory); the file has them all. A
	// client that followed lines up to before it is sent the held lines
	// from the start (JournalFrom 0).
	JournalTrimmed int `json:"journalTrimmed,omitempty"`
	// Record is, while the hub cannot reach the team's record, since
	// when and why; nil while it can, and for a journal file.
	Record *Record `json:"record,omitempty"`
}

// Record is the data of EventRecord: whether the hub can reach the
// team's record it keeps its journal in (a shared record: NATS
// JetStream). While it cannot, the hub refuses every decision ("not
// sent: the team's record is unreachable"), sends nothing, and tries
// again by itself.
type Record struct {
	Reachable bool `json:"reachable"`
	// Since is when the hub saw the record go, or come back, by its
	// clock.
	Since time.Time `json:"since"`
	// Why says why it cannot be reached, in words ("" while it can).
	Why string `json:"why,omitempty"`
}

// SnapshotEnd is the data of EventSnapshotEnd.
type SnapshotEnd struct {
	Epoch string `json:"epoch"`
}

// Resync is the data of EventResync.
type Resync struct {
	Reason string `json:"reason"`
}

// Position is the data of EventPosition.
type Position struct{}

// Events is the data of EventEvents, EventAgents and EventTasks.
type Events struct {
	Events []Event `json:"events"`
}

// Event is one model.Event on the wire.
type Event struct {
	Kind     string                       `json:"kind"`
	Agent    string                       `json:"agent"`
	Source   string                       `json:"source,omitempty"`
	At       time.Time                    `json:"at,omitzero"`
	Task     *a2a.Task                    `json:"task,omitempty"`
	Status   *a2a.TaskStatusUpdateEvent   `json:"status,omitempty"`
	Artifact *a2a.TaskArtifactUpdateEvent `json:"artifact,omitempty"`
	Health   *model.HealthUpdate          `json:"health,omitempty"`
	Info     *model.AgentInfo             `json:"info,omitempty"`
}

var kindNames = map[model.EventKind]string{
	model.EventTask: "task", model.EventStatus: "status", model.EventArtifact: "artifact",
	model.EventHealth: "health", model.EventAgent: "agent", model.EventGone: "gone",
}

var sourceNames = map[model.Source]string{
	model.SourceStream: "stream", model.SourceSweep: "sweep", model.SourcePoll: "poll", model.SourceReply: "reply", model.SourcePush: "push",
}

// EventOf puts a model.Event on the wire.
func EventOf(ev model.Event) Event {
	return Event{Kind: kindNames[ev.Kind], Agent: ev.Agent, Source: sourceNames[ev.Source], At: ev.At,
		Task: ev.Task, Status: ev.Status, Artifact: ev.Artifact, Health: ev.Health, Info: ev.Info}
}

// Model is the model.Event e stands for. An unknown kind or an event
// without its payload is an error.
func (e Event) Model() (model.Event, error) {
	ev := model.Event{Agent: e.Agent, At: e.At, Task: e.Task, Status: e.Status, Artifact: e.Artifact, Health: e.Health, Info: e.Info}
	for k, n := range kindNames {
		if n == e.Kind {
			ev.Kind = k
		}
	}
	for s, n := range sourceNames {
		if n == e.Source {
			ev.Source = s
		}
	}
	ok := false
	switch ev.Kind {
	case model.EventTask, model.EventGone:
		ok = e.Task != nil
	case model.EventStatus:
		ok = e.Status != nil
	case model.EventArtifact:
		ok = e.Artifact != nil
	case model.EventHealth:
		ok = e.Health != nil
	case model.EventAgent:
		ok = e.Info != nil
	}
	if !ok || e.Agent == "" {
		return model.Event{}, fmt.Errorf("hub feed: an event of kind %q without its agent or payload", e.Kind)
	}
	return ev, nil
}

// Journal is the data of EventJournal: lines of the hub's journal, in
// order.
type Journal struct {
	Lines []Line `json:"lines"`
}

// Line is one journal line on the wire. A line that is compact JSON is
// carried as itself (Rec), byte for byte; any other line (a damaged
// one) as its bytes (B64). Either way the bytes are the line's exactly,
// so its checksum means the same at both ends.
type Line struct {
	N    int             `json:"n"`
	Rec  json.RawMessage `json:"rec,omitempty"`
	B64  []byte          `json:"b64,omitempty"`
	Torn bool            `json:"torn,omitempty"`
}

// LineOf puts a journal line on the wire.
func LineOf(l approvals.JournalLine) Line {
	w := Line{N: l.N, Torn: l.Torn}
	if verbatim(l.Raw) {
		w.Rec = json.RawMessage(l.Raw)
	} else {
		w.B64 = l.Raw
	}
	return w
}

// JournalLine is the line w carries.
func (w Line) JournalLine() approvals.JournalLine {
	raw := []byte(w.Rec)
	if w.B64 != nil {
		raw = w.B64
	}
	return approvals.JournalLine{N: w.N, Raw: raw, Torn: w.Torn}
}

// verbatim reports whether raw survives being carried as a JSON value
// (encoded with HTML escaping off, decoded into json.RawMessage) byte for
// byte: valid UTF-8, valid JSON, compact, and without the characters the
// encoder escapes even then (U+2028, U+2029).
func verbatim(raw []byte) bool {
	if len(raw) == 0 || !utf8.Valid(raw) || !json.Valid(raw) || bytes.ContainsRune(raw, '\u2028') || bytes.ContainsRune(raw, '\u2029') {
		return false
	}
	var c bytes.Buffer
	return json.Compact(&c, raw) == nil && bytes.Equal(c.Bytes(), raw)
}

// Claim is the data of EventClaim, and one entry of Claims: an operator
// has the reply editor or a confirmation open on a task ("alice is
// answering"). It informs; it never blocks anyone.
type Claim struct {
	Agent    string     `json:"agent"`
	Task     a2a.TaskID `json:"task"`
	Operator string     `json:"operator"`
	// What the operator is doing: "answering", "approving", "denying".
	What  string    `json:"what"`
	At    time.Time `json:"at"`
	Until time.Time `json:"until"`
}

// Claims is the data of EventClaims.
type Claims struct {
	Claims []Claim `json:"claims"`
}

// Release is the data of EventRelease.
type Release struct {
	Agent    string     `json:"agent"`
	Task     a2a.TaskID `json:"task"`
	Operator string     `json:"operator"`
	// Reason is "closed" (the operator closed the dialog) or "idle".
	Reason string `json:"reason"`
}

// Me is the answer of GET /v1/me: who the token is, what the operator
// may do, and what a dashboard needs to prepare decisions as the hub
// does.
type Me struct {
	Operator string `json:"operator"`
	// Approver is the name the hub records and sends as the approver
	// of this operator's decisions.
	Approver string            `json:"approver"`
	Roles    map[string][]Role `json:"roles"`
	Agents   []Agent           `json:"agents"`
	// Templates are the approve/deny shapes, by agent name.
	Templates map[string]approvals.Template `json:"templates"`
	// ChainKeys are the metadata keys that name a task's blocker, by
	// agent (model.Options.ChainKeys), for a fleet built from the feed.
	ChainKeys map[string]string `json:"chainKeys,omitempty"`
	// TerminalPerAgent is how many terminal tasks per agent the hub
	// keeps: a fleet built from the feed keeps as many, or it would
	// drop what the hub shows.
	TerminalPerAgent int    `json:"terminalPerAgent,omitempty"`
	Epoch            string `json:"epoch"`
	// Policies are the agents' approval policies, by agent name, and
	// Groups the operator's groups: a dashboard counts votes as the hub
	// does (the hub counts them again when it records one).
	Policies map[string]approvals.Policy `json:"policies,omitempty"`
	Groups   []string                    `json:"groups,omitempty"`
	// JournalKey is the public key that signs the checkpoints of the
	// hub's journal ("ed25519:BASE64"; a2atop journal verify --key).
	JournalKey string `json:"journalKey,omitempty"`
	// Record, when the hub keeps its journal in a shared record (NATS
	// JetStream), says what holds its lines instead of the hash chain
	// (approvals.ChainStatus.Shared); "" for a journal file.
	Record string `json:"record,omitempty"`
}

// Allows reports whether the operator may act in role on agent.
func (m Me) Allows(agent string, r Role) bool { return allows(m.Roles, agent, r) }

// Agent is one agent the hub watches: its name and identity.
type Agent struct {
	Name   string `json:"name"`
	URL    string `json:"url"`
	Tenant string `json:"tenant,omitempty"`
}

// DecisionRequest is the body of POST /v1/decisions: a decision as the
// dashboard prepared it, and what the operator typed.
type DecisionRequest struct {
	MessageID string         `json:"messageId"`
	Agent     string         `json:"agent"`
	TaskID    a2a.TaskID     `json:"taskId"`
	ContextID string         `json:"contextId"`
	Kind      approvals.Kind `json:"kind"`
	Prompt    string         `json:"prompt"`
	State     a2a.TaskState  `json:"state"`
	Reason    string         `json:"reason,omitempty"`
	Approver  string         `json:"approver"`
	SentBy    string         `json:"sentBy,omitempty"` // a retry: the operator sending the approver's decision again
	At        time.Time      `json:"at"`
	Message   *a2a.Message   `json:"message"`
	Attempt   int            `json:"attempt"`
	Again     bool           `json:"again,omitempty"`
	PriorID   string         `json:"priorId,omitempty"`
	Text      string         `json:"text,omitempty"`
	JSON      string         `json:"json,omitempty"`
}

// RequestOf puts a decision on the wire.
func RequestOf(r approvals.Request) DecisionRequest {
	d := r.Decision
	return DecisionRequest{MessageID: d.MessageID, Agent: d.Agent, TaskID: d.TaskID, ContextID: d.ContextID, Kind: d.Kind,
		Prompt: d.Prompt, State: d.State, Reason: d.Reason, Approver: d.Approver, SentBy: d.SentBy, At: d.At, Message: d.Message,
		Attempt: d.Attempt, Again: d.Again, PriorID: d.PriorID, Text: r.Input.Text, JSON: r.Input.JSON}
}

// decision is the approvals.Decision the request carries, and the input.
func (r DecisionRequest) decision() (*approvals.Decision, approvals.Input) {
	d := &approvals.Decision{MessageID: r.MessageID, Agent: r.Agent, TaskID: r.TaskID, ContextID: r.ContextID, Kind: r.Kind,
		Prompt: r.Prompt, State: r.State, Reason: r.Reason, Approver: r.Approver, SentBy: r.SentBy, At: r.At, Message: r.Message,
		Attempt: r.Attempt, Again: r.Again, PriorID: r.PriorID}
	return d, approvals.Input{Kind: r.Kind, Text: r.Text, JSON: r.JSON, Reason: r.Reason, Again: r.Again}
}

// Outcome is the answer to a decision, a reconcile (one per decision)
// and a refusal: an approvals.Outcome on the wire.
type Outcome struct {
	MessageID string            `json:"messageId,omitempty"`
	Agent     string            `json:"agent,omitempty"`
	TaskID    a2a.TaskID        `json:"taskId,omitempty"`
	Kind      approvals.Kind    `json:"kind,omitempty"`
	Result    approvals.Result  `json:"result"`
	State     a2a.TaskState     `json:"state,omitempty"`
	Problem   approvals.Problem `json:"problem,omitempty"`
	Error     string            `json:"error,omitempty"`
	FollowUp  bool              `json:"followUp,omitempty"`
	Winner    *approvals.Winner `json:"winner,omitempty"`
	// Votes is, for a vote under an approval policy, what it did.
	Votes *approvals.Tally `json:"votes,omitempty"`
	// Feed is the feed position (an event id) at which the journal holds
	// what this outcome says: a client waits for its feed to pass it.
	Feed string `json:"feed,omitempty"`
}

// OutcomeOf puts an outcome on the wire.
func OutcomeOf(o approvals.Outcome) Outcome {
	w := Outcome{MessageID: o.MessageID, Agent: o.Agent, TaskID: o.TaskID, Kind: o.Kind, Result: o.Result, State: o.State,
		Problem: o.Problem, FollowUp: o.FollowUp, Winner: o.Winner, Votes: o.Votes}
	if o.Err != nil {
		w.Error = o.Err.Error()
	}
	return w
}

// Reconciled is the answer of POST /v1/reconcile.
type Reconciled struct {
	Outcomes []Outcome `json:"outcomes"`
	Feed     string    `json:"feed,omitempty"`
}

// NoteRequest is the body of POST /v1/notes (see approvals.Service.NoteLeft).
type NoteRequest struct {
	Agent string        `json:"agent"`
	Task  a2a.TaskID    `json:"task"`
	From  a2a.TaskState `json:"from"`
	To    a2a.TaskState `json:"to"`
	Text  string        `json:"text"`
}

// ClaimRequest is the body of POST /v1/claims and DELETE /v1/claims.
type ClaimRequest struct {
	Agent string     `json:"agent"`
	Task  a2a.TaskID `json:"task"`
	What  string     `json:"what,omitempty"`
}

// CancelRequest is the body of POST /v1/cancel.
type CancelRequest struct {
	Agent string     `json:"agent"`
	Task  a2a.TaskID `json:"task"`
}

// TaskAnswer is the answer of GET /v1/task and POST /v1/cancel: the
// task (nil when none could be read) and the error, in words.
type TaskAnswer struct {
	Task  *a2a.Task `json:"task,omitempty"`
	Error string    `json:"error,omitempty"`
	// Code is the A2A error's JSON-RPC code when there was one.
	Code int `json:"code,omitempty"`
	// NotFound and NotCancelable name the A2A errors a dashboard tells
	// apart (a2a.ErrTaskNotFound, a2a.ErrTaskNotCancelable).
	NotFound      bool `json:"notFound,omitempty"`
	NotCancelable bool `json:"notCancelable,omitempty"`
}

// Capture is the answer of GET /v1/capture.
type Capture struct {
	Exchanges []model.Exchange `json:"exchanges"`
}

// ErrorBody is the body of every refusal that is not an Outcome: 400,
// 401, 403, 404, 503, said in words.
type ErrorBody struct {
	Error string `json:"error"`
}
