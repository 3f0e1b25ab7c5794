package approvals

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Sender is what approvals needs from the network: send a message on an
// existing task (with returnImmediately, so the call does not wait for the
// next interrupted or terminal state) and read a task back. It is
// satisfied by *a2aclient.Manager. Reply returns a nil task when the agent
// answered with a Message.
//
// Errors should wrap the SDK's a2a sentinel errors (errors.Is(err,
// a2a.ErrTaskNotFound)) and context.DeadlineExceeded, and may implement
// RPCCode() int and HTTPStatus() int; approvals classifies through those.
type Sender interface {
	Reply(ctx context.Context, agent string, msg *a2a.Message) (*a2a.Task, error)
	Get(ctx context.Context, agent string, id a2a.TaskID, historyLength int, withArtifacts bool) (*a2a.Task, error)
}

// rpcCoder is implemented by errors that carry the JSON-RPC error code.
type rpcCoder interface{ RPCCode() int }

// httpStatuser is implemented by errors that carry the HTTP status.
type httpStatuser interface{ HTTPStatus() int }

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
	ProblemReadOnly     Problem = "read-only"       // the service was opened read-only
	ProblemInFlight     Problem = "in-flight"       // this decision is being sent already
	ProblemDecided      Problem = "already-decided" // the prompt has a decision and the operator did not confirm another
	ProblemOpen         Problem = "outcome-open"    // the prompt's last decision may have arrived: reconcile, then retry it
)

// Errors callers can test for with errors.Is.
var (
	// ErrReadOnly is returned by every write when the service is read-only.
	ErrReadOnly = errors.New("read-only mode: a2atop sends nothing to agents; restart without --read-only to answer")
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

// rpcCode returns the JSON-RPC code the error carries, or the code its a2a
// sentinel stands for when the transport did not expose it.
func rpcCode(err error) int {
	var c rpcCoder
	if errors.As(err, &c) && c.RPCCode() != 0 {
		return c.RPCCode()
	}
	for _, s := range sentinelCodes {
		if errors.Is(err, s.err) {
			return s.code
		}
	}
	return 0
}

// sentinelCodes maps the SDK's sentinels to their JSON-RPC codes (spec §9.5).
var sentinelCodes = []struct {
	err  error
	code int
}{
	{a2a.ErrTaskNotFound, -32001}, {a2a.ErrTaskNotCancelable, -32002},
	{a2a.ErrUnsupportedOperation, -32004}, {a2a.ErrUnsupportedContentType, -32005},
	{a2a.ErrInvalidAgentResponse, -32006}, {a2a.ErrVersionNotSupported, -32009},
	{a2a.ErrUnauthenticated, -31401}, {a2a.ErrUnauthorized, -31403},
	{a2a.ErrInvalidParams, -32602}, {a2a.ErrInternalError, -32603},
	{a2a.ErrMethodNotFound, -32601}, {a2a.ErrInvalidRequest, -32600},
}

// httpStatus returns the HTTP status the error carries, or 0.
func httpStatus(err error) int {
	var h httpStatuser
	if errors.As(err, &h) {
		return h.HTTPStatus()
	}
	return 0
}

// answered reports whether the agent certainly received and answered the
// request (an RPC error code or an HTTP status), or certainly never got it
// (connection refused). Anything else — a timeout, a reset, a cut
// connection — leaves the outcome unknown.
func answered(err error) (got bool, delivered bool) {
	if rpcCode(err) != 0 || httpStatus(err) != 0 {
		return true, true
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true, false
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true, false
	}
	return false, false
}

// classify names the problem in err. state is the task's state when the
// decision was made; it tells the Go SDK's "already in progress" refusal
// of an AUTH_REQUIRED task apart from other internal errors.
func classify(err error, state a2a.TaskState) Problem {
	code, status := rpcCode(err), httpStatus(err)
	msg := strings.ToLower(err.Error())
	switch {
	case err == nil:
		return ProblemNone
	case errors.Is(err, ErrReadOnly):
		return ProblemReadOnly
	case status == 401 || status == 403 || code == -31401 || code == -31403:
		return ProblemUnauthorized
	case code == -32001:
		return ProblemNotFound
	case code == -32004:
		return ProblemTaskEnded
	case code == -32602 && strings.Contains(msg, "terminal state"):
		return ProblemTaskEnded // the Go SDK server's answer to a message on an ended task
	case code == -32603 && strings.Contains(msg, "already in progress") && state == a2a.TaskStateAuthRequired:
		return ProblemOutOfBand
	case code != 0 || status != 0:
		return ProblemRejected
	case errors.Is(err, context.DeadlineExceeded):
		return ProblemTimeout
	}
	if got, delivered := answered(err); got && !delivered {
		return ProblemUnreachable
	}
	return ProblemNoAnswer
}
