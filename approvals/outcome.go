package approvals

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// Outcome is what a Send or a Reconcile achieved for one decision.
type Outcome struct {
	MessageID string
	Agent     string
	TaskID    a2a.TaskID
	Kind      Kind
	Result    Result
	// State is the task's state as the agent returned it (or GetTask
	// showed it); "" when not known.
	State a2a.TaskState
	// Task is the task the agent returned, if any.
	Task    *a2a.Task
	Problem Problem
	Err     error
	// FollowUp is true when the task ended before the reply reached it:
	// PrepareFollowUp builds a new task in the same context instead.
	FollowUp bool
	// Winner is, for a decision refused because another one on the
	// prompt came first (through a team's hub), that decision.
	Winner *Winner
	// Votes is, for a vote under an approval policy, what it did: the
	// votes counted with it and whether it completed the policy (and
	// so was sent); nil for one click.
	Votes *Tally
}

// Words says in one line what happened.
func (o Outcome) Words() string {
	if o.Winner != nil {
		return o.Winner.Words()
	}
	if o.Votes != nil && o.Result == ResultVoted {
		return o.Votes.Words()
	}
	return explain(o.Result, o.Problem, o.State).what
}

// Next says what the operator can do now.
func (o Outcome) Next() string {
	if o.Winner != nil {
		return "nothing was sent: the first decision on a prompt is the one the agent gets"
	}
	return explain(o.Result, o.Problem, o.State).next
}

type words struct{ what, next string }

// acceptedNext says what follows a message the agent took, from the state
// the task is in now: only a task still under way is worth watching.
func acceptedNext(state a2a.TaskState) string {
	switch model.ClassOf(state) {
	case model.ClassTerminal:
		return "nothing more to do: the task has ended (" + model.ShortState(state) + "); its status says why"
	case model.ClassInterrupted:
		return "the task waits again (" + model.ShortState(state) + "): answer its new prompt"
	}
	return "watch the task; the agent decides what happens next"
}

// explain puts a result and its problem into words a person can act on.
func explain(r Result, p Problem, state a2a.TaskState) words {
	if w, ok := teamWords(p); ok {
		return w
	}
	if w, ok := voteWords(r, p); ok {
		return w
	}
	now, taskNow := "", ""
	if state != "" {
		now = " (now " + model.ShortState(state) + ")"
		taskNow = " (task now " + model.ShortState(state) + ")"
	}
	switch r {
	case ResultPending:
		return words{"recorded, not yet confirmed sent", "reconcile to check the task's history"}
	case ResultAccepted:
		return words{"the agent took the message" + taskNow, acceptedNext(state)}
	case ResultNotDelivered:
		return words{"not delivered: the task's history does not hold it and the task still waits" + now,
			"retry (same messageId) if you still mean it, or decide again"}
	case ResultSuperseded:
		if p == ProblemNotFound {
			return words{"not confirmed: the agent no longer knows the task", "nothing to send; the task expired or these credentials cannot see it"}
		}
		return words{"not confirmed, and the task has moved on" + now, "nothing to send; see the task's detail for what happened"}
	case ResultUnknown:
		if p == ProblemNoAnswer {
			return words{"unknown: the connection broke before the agent answered", "reconcile (GetTask) before deciding to retry"}
		}
		return words{"unknown: no answer in time; it may or may not have arrived", "reconcile (GetTask) before deciding to retry"}
	}
	switch p {
	case ProblemTaskEnded:
		return words{"the task ended before the reply reached it" + now, "send it as a follow-up task in the same context (it names the ended task)"}
	case ProblemOutOfBand:
		return words{"this agent expects out-of-band authorization; it refused the message", "grant or refuse through the agent's own channel; the task moves on by itself"}
	case ProblemMoved:
		return words{"the task moved on before the reply was sent; nothing was sent" + now, "nothing to do unless it asks again"}
	case ProblemNotFound:
		return words{"the agent does not know this task (-32001)", "it may have expired, or these credentials cannot see it; check the agent's config"}
	case ProblemUnauthorized:
		return words{"the agent refused our credentials (401/403)", "check the agent's auth headers in the config, then retry"}
	case ProblemUnreachable:
		return words{"the agent could not be reached; nothing was delivered", "check that the agent is up, then decide again"}
	case ProblemJournal:
		return words{"the journal could not be written; nothing was sent", "free disk space or fix the state directory's permissions, then decide again"}
	case ProblemReadOnly:
		return words{"read-only mode: nothing was sent", "restart without --read-only to answer"}
	case ProblemInFlight:
		return words{"this decision is already being sent or reconciled", "wait for its outcome"}
	case ProblemTimeout, ProblemNoAnswer:
		return words{"the agent did not answer the check before sending; nothing was sent", "try again when the agent answers"}
	case ProblemOpen:
		return words{"the last decision on this prompt may have arrived; nothing was sent", "reconcile it, then retry it (same messageId) if it was not delivered"}
	case ProblemDecided:
		return words{"this prompt already has a decision; nothing was sent", "confirm again to send a second decision"}
	case ProblemDamaged:
		return words{"a damaged journal line may hold a decision on this agent; nothing was sent", "look at the line (a2atop journal check), then accept it (a2atop journal check --accept LINE)"}
	case ProblemRejected:
		return words{"the agent refused the message", "read the error; correct the reply and decide again"}
	}
	return words{string(r), ""}
}
