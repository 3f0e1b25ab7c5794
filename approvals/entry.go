package approvals

import (
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Record types in the journal file (see record).
const (
	recDecision = "decision"
	recRetry    = "retry"
	recOutcome  = "outcome"
	recState    = "state"
)

// record is one line of the journal file: one JSON object per line
// (JSONL), in a file of mode 0600, each fsynced before the call that wrote
// it returns; a line torn by a crash is skipped when the journal is read
// back. Every record has "v" (format version, 1), "type", "id" (the
// decision's messageId, which ties records together) and "at" (RFC 3339,
// when it was written). The types:
//
//   - "decision", written before anything is sent: agent, task, context,
//     kind ("reply", "approve", "deny", "follow-up"), prompt (the status
//     timestamp, or "message:ID" of the status message, the operator
//     answered), state (the task's state when decided), parts (as sent),
//     reason, approver (user@host), refs (referenceTaskIds: a follow-up
//     names the ended task), attempt 1.
//   - "retry": the operator confirmed sending the same decision again,
//     with the same messageId: approver, attempt (2, 3, …).
//   - "outcome": what a send, check or reconcile achieved: result, state
//     (what the agent returned or GetTask showed), problem, error, via
//     ("send", "check", "reconcile"), attempt.
//   - "state": the agent's state change, a separate fact from the human
//     decision (spec §7.6.4: a state change is not a grant): agent, task,
//     from, to, source ("reply", "get", "fleet"), note. Its id is empty
//     when no decision of ours is involved (a task resumed out of band
//     while a reply was being written).
type record struct {
	V        int              `json:"v"`
	Type     string           `json:"type"`
	ID       string           `json:"id,omitempty"`
	At       time.Time        `json:"at"`
	Agent    string           `json:"agent,omitempty"`
	Task     a2a.TaskID       `json:"task,omitempty"`
	Context  string           `json:"context,omitempty"`
	Kind     Kind             `json:"kind,omitempty"`
	Prompt   string           `json:"prompt,omitempty"`
	State    a2a.TaskState    `json:"state,omitempty"`
	Parts    a2a.ContentParts `json:"parts,omitempty"`
	Reason   string           `json:"reason,omitempty"`
	Approver string           `json:"approver,omitempty"`
	Refs     []a2a.TaskID     `json:"refs,omitempty"`
	Attempt  int              `json:"attempt,omitempty"`
	Result   Result           `json:"result,omitempty"`
	Problem  Problem          `json:"problem,omitempty"`
	Error    string           `json:"error,omitempty"`
	Via      string           `json:"via,omitempty"`
	From     a2a.TaskState    `json:"from,omitempty"`
	To       a2a.TaskState    `json:"to,omitempty"`
	Source   string           `json:"source,omitempty"`
	Note     string           `json:"note,omitempty"`
}

// Result is where a decision stands.
type Result string

// The results. Pending and Unknown are open: Reconcile resolves them.
const (
	ResultPending      Result = "pending"       // recorded, no outcome yet (sending, or a crash)
	ResultAccepted     Result = "accepted"      // the agent took the message
	ResultRefused      Result = "refused"       // the agent (or our pre-send check) refused; see Problem
	ResultUnknown      Result = "unknown"       // no answer (timeout): maybe delivered, maybe not
	ResultNotDelivered Result = "not-delivered" // reconciled: not in the task's history, task still waiting
	ResultSuperseded   Result = "superseded"    // reconciled: not in the history, and the task moved on
)

// Open reports whether Reconcile still has to resolve the result.
func (r Result) Open() bool { return r == ResultPending || r == ResultUnknown }

// Retryable reports whether the operator may send the same message again
// (same messageId) after confirming.
func (r Result) Retryable() bool { return r == ResultUnknown || r == ResultNotDelivered }

// StateChange is a state change of the agent's task, recorded apart from
// the decision: it is what the agent did, not what the human decided.
type StateChange struct {
	At       time.Time
	From, To a2a.TaskState
	Source   string // "reply", "get", "fleet"
	Note     string
}

// Entry is one decision as the journal holds it, with every outcome and
// state change recorded after it. An Entry with an empty MessageID is an
// observation with no decision of ours (States holds it). Entries are
// copies of the journal's view: their slices are their own, but the
// *a2a.Part values in Parts are shared with the journal and must be
// treated as read-only (copying them for every call of Journal would make
// the journal view's cost grow with the journal).
type Entry struct {
	MessageID   string
	Agent       string
	TaskID      a2a.TaskID
	ContextID   string
	Kind        Kind
	Prompt      string        // the prompt answered (see PromptOf)
	PromptState a2a.TaskState // the task's state when decided
	Parts       []*a2a.Part   // exactly what was (or would be) sent
	Reason      string
	Approver    string
	DecidedAt   time.Time
	Refs        []a2a.TaskID // referenceTaskIds (a follow-up names the ended task)
	Attempts    int

	Result   Result
	ResultAt time.Time
	Problem  Problem
	Error    string
	Via      string // "send", "check", "reconcile"

	States []StateChange // the agent's state changes, oldest first
}

// Observed reports whether the entry is a bare observation (no decision).
func (e Entry) Observed() bool { return e.MessageID == "" }

// AgentState is the latest state the agent reported after the decision,
// or "" when none is known.
func (e Entry) AgentState() a2a.TaskState {
	if n := len(e.States); n > 0 {
		return e.States[n-1].To
	}
	return ""
}

// Words says in one line where the decision stands.
func (e Entry) Words() string {
	return explain(e.Result, e.Problem, e.AgentState()).what
}

// Next says what the operator can do about the decision now.
func (e Entry) Next() string {
	return explain(e.Result, e.Problem, e.AgentState()).next
}

// applyRecord folds one record into the entry it belongs to.
func (e *Entry) applyRecord(r record) {
	switch r.Type {
	case recDecision:
		e.MessageID, e.Agent, e.TaskID, e.ContextID = r.ID, r.Agent, r.Task, r.Context
		e.Kind, e.Prompt, e.PromptState = r.Kind, r.Prompt, r.State
		e.Parts, e.Reason, e.Approver, e.DecidedAt = r.Parts, r.Reason, r.Approver, r.At
		e.Refs, e.Attempts = r.Refs, max(r.Attempt, 1)
		e.Result = ResultPending
	case recRetry:
		e.Attempts = max(r.Attempt, e.Attempts+1)
		e.Result, e.ResultAt, e.Problem, e.Error, e.Via = ResultPending, r.At, "", "", ""
	case recOutcome:
		e.Result, e.ResultAt, e.Problem, e.Error, e.Via = r.Result, r.At, r.Problem, r.Error, r.Via
	case recState:
		if e.Agent == "" {
			e.Agent, e.TaskID = r.Agent, r.Task
		}
		e.States = append(e.States, StateChange{At: r.At, From: r.From, To: r.To, Source: r.Source, Note: r.Note})
	}
}
