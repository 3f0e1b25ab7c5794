package approvals

import (
	"fmt"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

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
	MessageID string
	// Agent is the name the agent has now (see Options.Agents): the name
	// the fleet and the Sender know it by.
	Agent string
	// AgentURL and Tenant are the agent's identity, by which decisions are
	// keyed; "" for an agent known by name only.
	AgentURL, Tenant string
	// RecordedAs is the name in the record when the agent has another now.
	RecordedAs string
	// AgentNote says how an agent of an older record was matched, or that
	// it matches no configured agent; "" when there is nothing to say.
	AgentNote   string
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
	// Votes are, for a decision that completed an approval policy, the
	// votes it counted (its approver last); nil for one click.
	Votes []Voter
	// RetriedBy is who sent the decision again last (a retry record), ""
	// for none; the message sent again is still Approver's.
	RetriedBy string

	Result   Result
	ResultAt time.Time
	Problem  Problem
	Error    string
	Via      string // "send", "check", "reconcile"

	States []StateChange // the agent's state changes, oldest first

	// Lines are the journal lines of the entry's records, in order: what
	// an auditor checks against the file's chain (chain.go).
	Lines []LineRef

	// Elsewhere is true when another process or another approver made
	// the decision: a record this Service did not write, that another
	// process appended while it was open or that names another approver.
	// ElsewhereWords puts it in words for the inbox.
	Elsewhere bool

	agentID string    // identity(AgentURL, Tenant), or nameID(Agent)
	self    bool      // this Service wrote the decision
	host    string    // the host and process that wrote its last decision or retry record
	pid     int       //
	svc     string    // the id of the Service that wrote it, in its process ("" in records before ids)
	until   time.Time // that process's send is over by then (see sendingElsewhere)
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

// ElsewhereWords says, for a decision made by another process or
// approver, who made it, when (local time; with the date when it was not
// today) and where it stands:
// "answered elsewhere by ops@host at 14:02:11: approved". It is "" for a
// decision of this Service's.
func (e Entry) ElsewhereWords() string {
	if !e.Elsewhere || e.MessageID == "" {
		return ""
	}
	by := e.Approver
	if by == "" {
		by = "another a2atop"
	}
	what := map[Kind]string{KindApprove: "approved", KindDeny: "denied", KindReply: "replied", KindFollowUp: "sent a follow-up", KindMessage: "started a task"}[e.Kind]
	if what == "" {
		what = string(e.Kind)
	}
	switch e.Result {
	case ResultAccepted:
	case ResultPending:
		what += " (being sent, or its process stopped before the outcome)"
	default:
		what += " (" + e.Words() + ")"
	}
	at := e.DecidedAt.Local()
	layout := "15:04:05"
	if y, m, d := time.Now().Date(); at.Year() != y || at.Month() != m || at.Day() != d {
		layout = "2006-01-02 15:04:05"
	}
	return fmt.Sprintf("answered elsewhere by %s at %s: %s", by, at.Format(layout), what)
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
		e.MessageID, e.TaskID, e.ContextID = r.ID, r.Task, r.Context
		e.Kind, e.Prompt, e.PromptState = r.Kind, r.Prompt, r.State
		e.Parts, e.Reason, e.Approver, e.DecidedAt = r.Parts, r.Reason, r.Approver, r.At
		e.Refs, e.Attempts, e.Votes = r.Refs, max(r.Attempt, 1), r.Votes
		e.Result, e.host, e.pid, e.svc, e.until = ResultPending, r.Host, r.PID, r.Svc, r.Until
	case recRetry:
		e.Attempts = max(r.Attempt, e.Attempts+1)
		e.RetriedBy = r.By
		if e.RetriedBy == "" { // written before retries named the decision's approver apart
			e.RetriedBy = r.Approver
		}
		e.Result, e.ResultAt, e.Problem, e.Error, e.Via = ResultPending, r.At, "", "", ""
		e.host, e.pid, e.svc, e.until = r.Host, r.PID, r.Svc, r.Until
	case recOutcome:
		e.Result, e.ResultAt, e.Problem, e.Error, e.Via = r.Result, r.At, r.Problem, r.Error, r.Via
	case recState:
		if e.TaskID == "" {
			e.TaskID = r.Task
		}
		e.States = append(e.States, StateChange{At: r.At, From: r.From, To: r.To, Source: r.Source, Note: r.Note})
	}
}
