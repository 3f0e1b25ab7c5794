package approvals

import (
	"context"
	"errors"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient/a2aerr"
)

// Sender is what approvals needs from the network: send a message on an
// existing task (with returnImmediately, so the call does not wait for the
// next interrupted or terminal state) and read a task back. It is
// satisfied by *a2aclient.Manager. Reply returns a nil task when the agent
// answered with a Message.
//
// Its errors are classified with a2aerr.Classify: they should wrap the
// SDK's a2a sentinels (errors.Is(err, a2a.ErrTaskNotFound)) and
// context.DeadlineExceeded, and may carry the wire's facts through the
// methods a2aerr reads (RPCCode, HTTPStatus, GRPCCode).
type Sender interface {
	Reply(ctx context.Context, agent string, msg *a2a.Message) (*a2a.Task, error)
	Get(ctx context.Context, agent string, id a2a.TaskID, historyLength int, withArtifacts bool) (*a2a.Task, error)
}

// Problem names why a send did not simply succeed. The zero value,
// ProblemNone, means there was no problem.
type Problem string

// The problems a send or a reconcile can meet.
const (
	ProblemNone         Problem = ""
	ProblemTaskEnded    Problem = "task-ended"      // the task reached a terminal state first (-32004)
	ProblemOutOfBand    Problem = "out-of-band"     // the agent takes authorization out of band only
	ProblemMoved        Problem = "moved-on"        // the task left the prompt before we sent
	ProblemNotFound     Problem = "task-not-found"  // -32001
	ProblemUnauthorized Problem = "unauthorized"    // 401/403, -31401/-31403
	ProblemTimeout      Problem = "timeout"         // no answer in time: outcome unknown
	ProblemNoAnswer     Problem = "no-answer"       // the connection broke: outcome unknown
	ProblemUnreachable  Problem = "unreachable"     // nothing was delivered (connection refused)
	ProblemRejected     Problem = "rejected"        // the agent answered with another error
	ProblemJournal      Problem = "journal"         // the journal could not be written: nothing sent
	ProblemReadOnly     Problem = "read-only"       // the agent is read-only: nothing was sent to it
	ProblemInFlight     Problem = "in-flight"       // this decision is being sent already
	ProblemDecided      Problem = "already-decided" // the prompt has a decision and the operator did not confirm another
	ProblemOpen         Problem = "outcome-open"    // the prompt's last decision may have arrived: reconcile, then retry it
)

// Errors callers can test for with errors.Is.
var (
	// ErrJournalReadOnly is returned by every call that would record in a
	// journal opened for reading only (Options.ReadOnly): a decision is
	// journaled before it is sent, so such a Service decides nothing. It
	// is not a2aerr.ErrReadOnly, the refusal to send to an agent: that
	// comes only from the layer that sends (the a2aclient Manager), for an
	// agent configured read_only or a run with --read-only.
	ErrJournalReadOnly = errors.New("the journal was opened for reading only: nothing is recorded, so nothing is decided")
	// ErrAlreadyDecided is returned when the prompt already has a decision
	// in the journal and the operator has not confirmed a second one.
	ErrAlreadyDecided = errors.New("this prompt already has a decision in the journal; confirm again to send another")
	// ErrOutcomeOpen is returned for a new decision on a prompt whose last
	// decision is pending or unknown: it may have reached the agent, and a
	// new messageId would make a second decision the agent cannot tell
	// from a repeat. Reconcile, then Retry it (same messageId) if it was
	// not delivered, or decide again once it is resolved.
	ErrOutcomeOpen = errors.New("the last decision on this prompt has no known outcome yet; reconcile it, then retry it with the same messageId if it was not delivered")
	// ErrNotActionable is returned for a task that waits on another task of its chain.
	ErrNotActionable = errors.New("this task waits on another task; answer the one at the end of its chain")
	// ErrNotInterrupted is returned for a task that no longer waits for an answer.
	ErrNotInterrupted = errors.New("the task no longer waits for an answer")
	// ErrInvalidJSON is returned when a reply's JSON data does not parse.
	ErrInvalidJSON = errors.New("the data part is not valid JSON")
	// ErrEmptyReply is returned for a reply with neither text nor data.
	ErrEmptyReply = errors.New("the reply is empty: write text, JSON data, or both")
	// ErrReasonRequired is returned for a deny without a reason.
	ErrReasonRequired = errors.New("a deny needs a reason: say why, the agent and the journal keep it")
	// ErrUnknownDecision is returned for a messageId the journal does not hold.
	ErrUnknownDecision = errors.New("no decision with this messageId in the journal")
)

// classify names the problem in err, from its class in the shared
// vocabulary. state is the task's state when the decision was made: the
// Go SDK's "already in progress" refusal of a message is out-of-band
// authorization only on an AUTH_REQUIRED task. Whatever else the agent
// answered (a JSON-RPC code, an HTTP status) refused the message; an
// error with no answer leaves the outcome unknown.
func classify(err error, state a2a.TaskState) Problem {
	if err == nil {
		return ProblemNone
	}
	switch a2aerr.Classify(err) {
	case a2aerr.ReadOnly:
		return ProblemReadOnly
	case a2aerr.Unauthenticated, a2aerr.Forbidden:
		return ProblemUnauthorized
	case a2aerr.TaskNotFound:
		return ProblemNotFound
	case a2aerr.Unsupported, a2aerr.TaskEnded:
		return ProblemTaskEnded
	case a2aerr.InProgress:
		if state == a2a.TaskStateAuthRequired {
			return ProblemOutOfBand
		}
	case a2aerr.Timeout:
		return ProblemTimeout
	case a2aerr.Unreachable:
		return ProblemUnreachable
	case a2aerr.NoAnswer:
		return ProblemNoAnswer
	}
	if a2aerr.Answered(err) {
		return ProblemRejected
	}
	return ProblemNoAnswer
}
