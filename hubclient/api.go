package hubclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient/a2aerr"
	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/model"
)

// Timeouts of the API's requests. A decision waits for the hub's check
// and send (each bounded by the hub's send timeout, 30 s by default).
const (
	decideTimeout  = 2 * time.Minute
	requestTimeout = 40 * time.Second
	// feedWait bounds how long an answer waits for the feed to bring the
	// journal up to what the answer says.
	feedWait = 5 * time.Second
)

// refused is what a write answers while the feed is down (or the hub's
// journal diverged): nothing is sent to the hub.
func (c *Client) refused() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.diverged != nil:
		return c.diverged
	case !c.connected:
		why := c.lastErr
		if why == "" {
			why = "not connected yet"
		}
		return fmt.Errorf("the hub at %s is unreachable (%s): nothing is sent until the dashboard reconnects", c.URL(), why)
	}
	return nil
}

// Send implements approvals.Hub: it posts the decision and returns the
// hub's outcome once the feed has brought the journal up to it. A
// decision another operator made first comes back refused, with its
// Winner; one the hub took and did not answer is unknown (the hub
// reconciles it).
func (c *Client) Send(ctx context.Context, r approvals.Request) approvals.Outcome {
	d := r.Decision
	out := approvals.Outcome{MessageID: d.MessageID, Agent: d.Agent, TaskID: d.TaskID, Kind: d.Kind, Result: approvals.ResultRefused}
	if err := c.refused(); err != nil {
		out.Problem, out.Err = approvals.ProblemHub, err
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, decideTimeout)
	defer cancel()
	var w hub.Outcome
	status, err := c.do(ctx, http.MethodPost, "/v1/decisions", hub.RequestOf(r), &w)
	if err != nil {
		var se *statusError
		switch {
		case errors.As(err, &se):
			out.Problem, out.Err = problemOf(se.status), err
		case notSent(err):
			out.Problem, out.Err = approvals.ProblemHub, err
		default:
			out.Result, out.Problem, out.Err = approvals.ResultUnknown, approvals.ProblemHubNoAnswer, err
		}
		return out
	}
	c.waitFeed(ctx, w.Feed, feedWait)
	return outcomeOf(w, status)
}

// problemOf names a refusal that came without an Outcome.
func problemOf(status int) approvals.Problem {
	switch status {
	case http.StatusForbidden, http.StatusUnauthorized:
		return approvals.ProblemForbidden
	case http.StatusConflict:
		return approvals.ProblemDecided
	}
	return approvals.ProblemHub
}

// outcomeOf is the approvals.Outcome of the hub's answer.
func outcomeOf(w hub.Outcome, status int) approvals.Outcome {
	o := approvals.Outcome{MessageID: w.MessageID, Agent: w.Agent, TaskID: w.TaskID, Kind: w.Kind, Result: w.Result,
		State: w.State, Problem: w.Problem, FollowUp: w.FollowUp, Winner: w.Winner, Votes: w.Votes}
	if w.Error != "" {
		o.Err = &hubError{status: status, msg: w.Error, problem: w.Problem}
	}
	return o
}

// hubError is the error of an outcome the hub sent: its words, and the
// approvals sentinel its problem stands for (errors.Is works as with a
// local Service).
type hubError struct {
	status  int
	msg     string
	problem approvals.Problem
}

func (e *hubError) Error() string { return e.msg }

func (e *hubError) Is(target error) bool {
	switch e.problem {
	case approvals.ProblemDecided:
		return target == approvals.ErrAlreadyDecided
	case approvals.ProblemVoted:
		return target == approvals.ErrAlreadyVoted
	case approvals.ProblemOpen:
		return target == approvals.ErrOutcomeOpen
	case approvals.ProblemDamaged:
		return target == approvals.ErrJournalDamaged
	case approvals.ProblemReadOnly:
		return target == a2aerr.ErrReadOnly
	case approvals.ProblemJournal:
		return target == approvals.ErrJournalReadOnly
	}
	return false
}

// Reconcile implements approvals.Hub: the hub reconciles its open
// decisions. An operator who decides nothing gets none.
func (c *Client) Reconcile(ctx context.Context) []approvals.Outcome {
	if c.refused() != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, decideTimeout)
	defer cancel()
	var rec hub.Reconciled
	status, err := c.do(ctx, http.MethodPost, "/v1/reconcile", struct{}{}, &rec)
	if err != nil {
		if status != http.StatusForbidden {
			c.log.Warn("hub: reconcile", "err", err)
		}
		return nil
	}
	c.waitFeed(ctx, rec.Feed, feedWait)
	out := make([]approvals.Outcome, len(rec.Outcomes))
	for i, w := range rec.Outcomes {
		out[i] = outcomeOf(w, http.StatusOK)
	}
	return out
}

// NoteLeft implements approvals.Hub.
func (c *Client) NoteLeft(ctx context.Context, n approvals.Note) error {
	if err := c.refused(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	var rec hub.Reconciled
	if _, err := c.do(ctx, http.MethodPost, "/v1/notes", hub.NoteRequest{Agent: n.Agent, Task: n.TaskID, From: n.From, To: n.To, Text: n.Text}, &rec); err != nil {
		return err
	}
	c.waitFeed(ctx, rec.Feed, feedWait)
	return nil
}

// Get is GetTask through the hub (the dashboard's Backend).
func (c *Client) Get(ctx context.Context, agent string, id a2a.TaskID, historyLength int, withArtifacts bool) (*a2a.Task, error) {
	q := url.Values{"agent": {agent}, "id": {string(id)}, "history": {strconv.Itoa(historyLength)}}
	if withArtifacts {
		q.Set("artifacts", "1")
	}
	return c.task(ctx, http.MethodGet, "/v1/task?"+q.Encode(), nil)
}

// Cancel is CancelTask through the hub (the dashboard's Backend); it is
// refused while the feed is down.
func (c *Client) Cancel(ctx context.Context, agent string, id a2a.TaskID) (*a2a.Task, error) {
	if err := c.refused(); err != nil {
		return nil, err
	}
	return c.task(ctx, http.MethodPost, "/v1/cancel", hub.CancelRequest{Agent: agent, Task: id})
}

// task makes a request that answers a TaskAnswer.
func (c *Client) task(ctx context.Context, method, path string, body any) (*a2a.Task, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	var ans hub.TaskAnswer
	if _, err := c.do(ctx, method, path, body, &ans); err != nil {
		return nil, err
	}
	if ans.Error == "" {
		return ans.Task, nil
	}
	var sentinel error
	switch {
	case ans.NotFound:
		sentinel = a2a.ErrTaskNotFound
	case ans.NotCancelable:
		sentinel = a2a.ErrTaskNotCancelable
	}
	return ans.Task, &agentError{msg: ans.Error, code: ans.Code, is: sentinel}
}

// agentError is an agent's error the hub passed on.
type agentError struct {
	msg  string
	code int
	is   error
}

func (e *agentError) Error() string { return e.msg }
func (e *agentError) Unwrap() error { return e.is }

// RPCCode is the JSON-RPC code of the agent's error, 0 if none.
func (e *agentError) RPCCode() int { return e.code }

// Capture is the agent's raw exchanges as the hub recorded them (the
// dashboard's Backend); nil when the hub cannot be asked.
func (c *Client) Capture(agent string) []model.Exchange {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	var cp hub.Capture
	if _, err := c.do(ctx, http.MethodGet, "/v1/capture?"+url.Values{"agent": {agent}}.Encode(), nil, &cp); err != nil {
		c.log.Warn("hub: capture", "agent", agent, "err", err)
		return nil
	}
	return cp.Exchanges
}

// Claim tells the team that this operator is answering (or approving,
// denying) a task: what is "answering", "approving" or "denying". The
// claim lasts two minutes; calling Claim again renews it. It informs,
// it blocks no one.
func (c *Client) Claim(ctx context.Context, agent string, id a2a.TaskID, what string) error {
	if err := c.refused(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	var cl hub.Claim
	_, err := c.do(ctx, http.MethodPost, "/v1/claims", hub.ClaimRequest{Agent: agent, Task: id, What: what}, &cl)
	if err == nil {
		c.hold(agent, id, true)
	}
	return err
}

// Release ends this operator's claim on a task.
func (c *Client) Release(ctx context.Context, agent string, id a2a.TaskID) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	_, err := c.do(ctx, http.MethodDelete, "/v1/claims", hub.ClaimRequest{Agent: agent, Task: id}, nil)
	if err == nil {
		c.hold(agent, id, false)
	}
	return err
}

// Claims are the claims held now, by agent, task and operator.
func (c *Client) Claims() []hub.Claim {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]hub.Claim, 0, len(c.claims))
	for _, cl := range c.claims {
		out = append(out, cl)
	}
	slices.SortFunc(out, func(a, b hub.Claim) int {
		return strings.Compare(a.Agent+"\x00"+string(a.Task)+"\x00"+a.Operator, b.Agent+"\x00"+string(b.Task)+"\x00"+b.Operator)
	})
	return out
}

// ClaimsOn are the claims on one task, oldest first.
func (c *Client) ClaimsOn(agent string, id a2a.TaskID) []hub.Claim {
	var out []hub.Claim
	for _, cl := range c.Claims() {
		if cl.Agent == agent && cl.Task == id {
			out = append(out, cl)
		}
	}
	slices.SortFunc(out, func(a, b hub.Claim) int { return a.At.Compare(b.At) })
	return out
}

// ClaimsVersion increments whenever the claims change, so a view can
// tell whether to read Claims again.
func (c *Client) ClaimsVersion() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.claimsVer
}

func (c *Client) setClaims(cs []hub.Claim) {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.claims)
	for _, cl := range cs {
		c.claims[claimKey{cl.Agent, string(cl.Task), cl.Operator}] = cl
	}
	c.claimsVer++
	c.changedLocked()
}

func (c *Client) addClaim(cl hub.Claim) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.claims[claimKey{cl.Agent, string(cl.Task), cl.Operator}] = cl
	c.claimsVer++
	c.changedLocked()
}

func (c *Client) dropClaim(k claimKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.claims, k)
	c.claimsVer++
	c.changedLocked()
}

// Operator is the operator the token belongs to, as Me said ("" before Me).
func (c *Client) Operator() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.me == nil {
		return ""
	}
	return c.me.Operator
}

// May reports whether the operator may act in role ("watch", "answer",
// "approve", "cancel") on agent, as Me said: what a dashboard shows keys
// for. The hub checks again, whatever a dashboard shows.
func (c *Client) May(agent, role string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.me != nil && c.me.Allows(agent, hub.Role(role))
}

// ClaimWords says who else is at work on a task: "alice is answering",
// "alice is approving · bob is answering"; "" when nobody else is.
func (c *Client) ClaimWords(agent string, id a2a.TaskID) string {
	me := c.Operator()
	var words []string
	for _, cl := range c.ClaimsOn(agent, id) {
		if cl.Operator != me {
			words = append(words, cl.Operator+" is "+cl.What)
		}
	}
	return strings.Join(words, " · ")
}
