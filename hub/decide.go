package hub

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/model"
)

// winnerWait is how long a decision that came second waits for the first
// one's send to end, to say how it ended rather than "being sent".
const winnerWait = 10 * time.Second

// deciding is a decision the hub is sending on a prompt: the first one;
// any other on the prompt meanwhile is refused with it.
type deciding struct {
	messageID string
	winner    approvals.Winner
	done      chan struct{}
}

// refusal is an Outcome the hub answers without sending, and its status.
type refusal struct {
	status int
	out    Outcome
}

func (h *Hub) refuse(d *approvals.Decision, status int, p approvals.Problem, format string, args ...any) *refusal {
	return &refusal{status: status, out: Outcome{MessageID: d.MessageID, Agent: d.Agent, TaskID: d.TaskID, Kind: d.Kind,
		Result: approvals.ResultRefused, Problem: p, Error: fmt.Sprintf(format, args...)}}
}

// decided is the 409 of a decision that came second: the winner.
func (h *Hub) decided(d *approvals.Decision, w *approvals.Winner) *refusal {
	r := h.refuse(d, http.StatusConflict, approvals.ProblemDecided, "%s; nothing was sent", w.Words())
	r.out.Winner = w
	return r
}

// serveDecision is POST /v1/decisions.
func (h *Hub) serveDecision(w http.ResponseWriter, r *http.Request, op *Operator) {
	var req DecisionRequest
	if !readJSON(w, r, &req) {
		return
	}
	d, in := req.decision()
	if !h.decisionOK(w, d) {
		return
	}
	start := time.Now()
	out, status := h.decide(r.Context(), op, d, in)
	h.metrics.decided(out.Result, status, time.Since(start))
	out.Feed = h.feed.id(h.feed.position())
	h.log.Info("decision", "operator", op.Name, "agent", cut(d.Agent, 200), "task", cut(string(d.TaskID), 200), "kind", cut(string(d.Kind), 40),
		"id", d.MessageID, "status", status, "result", string(out.Result), "problem", string(out.Problem))
	writeJSON(w, status, out)
}

// decide checks a decision a dashboard sent and, when it is the first
// on its prompt, sends it with the hub's Service: the role, then the
// prompt (the task still shows the prompt the operator saw), then that
// the message is the one the hub builds for this operator from the same
// input; then no other decision is being sent on the prompt.
func (h *Hub) decide(ctx context.Context, op *Operator, d *approvals.Decision, in approvals.Input) (Outcome, int) {
	if d.Message == nil || d.MessageID == "" || d.Agent == "" {
		r := h.refuse(d, http.StatusBadRequest, approvals.ProblemRejected, "the decision is incomplete (messageId, agent, message)")
		return r.out, r.status
	}
	want, ref := h.rebuild(ctx, op, d, in)
	if ref != nil {
		return ref.out, ref.status
	}
	if err := approvals.SameMessage(d, want); err != nil {
		r := h.refuse(d, http.StatusUnprocessableEntity, approvals.ProblemMismatch, "%v; nothing was sent", err)
		return r.out, r.status
	}
	key := string(d.Agent) + "\x00" + string(d.TaskID) + "\x00" + d.Prompt
	mine, ref := h.first(key, want)
	if ref != nil {
		return ref.out, ref.status
	}
	defer h.finish(key, mine)
	o := h.svc.Send(h.context(), want)
	if o.Problem == approvals.ProblemDecided || o.Problem == approvals.ProblemOpen {
		if p, ok := h.svc.Prior(d.Agent, d.TaskID, d.Prompt); ok && p.MessageID != d.MessageID {
			r := h.decided(d, approvals.WinnerOf(p))
			return r.out, r.status
		}
		return OutcomeOf(o), http.StatusConflict
	}
	if o.Problem == approvals.ProblemVoted {
		return OutcomeOf(o), http.StatusConflict
	}
	return OutcomeOf(o), http.StatusOK
}

// rebuild checks the role and the prompt and prepares the decision
// again for op, as the hub's Service would build it.
func (h *Hub) rebuild(ctx context.Context, op *Operator, d *approvals.Decision, in approvals.Input) (*approvals.Decision, *refusal) {
	if !h.agents[d.Agent] {
		return nil, h.refuse(d, http.StatusNotFound, approvals.ProblemRejected, "this hub watches no agent %q", d.Agent)
	}
	if skew := h.o.Now().Sub(d.At); skew > h.o.ClockSkew || -skew > h.o.ClockSkew {
		return nil, h.refuse(d, http.StatusUnprocessableEntity, approvals.ProblemMismatch,
			"the decision's time is %s off the hub's clock (more than %s); set this machine's clock, then decide again", skew.Round(time.Second), h.o.ClockSkew)
	}
	a := approvals.Author{Approver: op.Name, MessageID: d.MessageID, At: d.At}
	switch {
	case d.Kind == approvals.KindFollowUp:
		of := strings.TrimPrefix(d.Prompt, "follow-up:")
		if ref := h.mayOnEntry(op, d, of); ref != nil {
			return nil, ref
		}
		want, err := h.svc.FollowUpAs(of, a)
		return want, h.prepareError(d, err)
	case d.Attempt > 1:
		if ref := h.mayOnEntry(op, d, d.MessageID); ref != nil {
			return nil, ref
		}
		want, err := h.svc.RetryAs(d.MessageID, a)
		return want, h.prepareError(d, err)
	}
	if role := roleFor(d.Kind, d.State); !op.may(d.Agent, role) {
		return nil, h.refuse(d, http.StatusForbidden, approvals.ProblemForbidden, "%s", op.forbidden(d.Agent, role))
	}
	var want *approvals.Decision
	var ref *refusal
	if err := h.call(ctx, func() { want, ref = h.prepareOnLoop(d, in, a) }); err != nil {
		return nil, h.refuse(d, http.StatusServiceUnavailable, approvals.ProblemHub, "%v; nothing was sent", err)
	}
	return want, ref
}

// mayOnEntry checks op's role for a retry or a follow-up of the
// decision messageID: the role the decision itself needed.
func (h *Hub) mayOnEntry(op *Operator, d *approvals.Decision, messageID string) *refusal {
	e, ok := h.svc.Entry(messageID)
	if !ok || e.Agent != d.Agent {
		return h.refuse(d, http.StatusNotFound, approvals.ProblemRejected, "the hub's journal holds no decision %s on agent %s", messageID, d.Agent)
	}
	if role := roleFor(e.Kind, e.PromptState); !op.may(d.Agent, role) {
		return h.refuse(d, http.StatusForbidden, approvals.ProblemForbidden, "%s", op.forbidden(d.Agent, role))
	}
	return nil
}

// prepareOnLoop checks, on the fleet, that the task still shows the
// prompt the operator saw, and prepares the decision for a. It runs on
// the loop.
func (h *Hub) prepareOnLoop(d *approvals.Decision, in approvals.Input, a approvals.Author) (*approvals.Decision, *refusal) {
	k := model.TaskKey{Agent: d.Agent, ID: d.TaskID}
	t := h.fleet.Task(k)
	if t == nil || t.Snapshot == nil {
		return nil, h.refuse(d, http.StatusNotFound, approvals.ProblemNotFound, "the hub does not know task %s of agent %s", d.TaskID, d.Agent)
	}
	if t.Class != model.ClassInterrupted || approvals.PromptOf(t.Snapshot) != d.Prompt || t.State != d.State {
		if p, ok := h.svc.Prior(d.Agent, d.TaskID, d.Prompt); ok {
			return nil, h.decided(d, approvals.WinnerOf(p))
		}
		r := h.refuse(d, http.StatusConflict, approvals.ProblemMoved, "the task moved on since this dashboard showed it (now %s); nothing was sent", model.ShortState(t.State))
		r.out.State = t.State
		return nil, r
	}
	it, _ := h.svc.ItemOf(h.fleet, k)
	want, err := h.svc.PrepareAs(it, in, a)
	if ref := h.prepareError(d, err); ref != nil {
		return nil, ref
	}
	if want.PriorID != d.PriorID || want.PriorID != "" && h.taken(want.PriorID) {
		// A decision on this prompt the operator did not confirm over, or
		// one the agent took: the first decision stands.
		if p, ok := h.svc.Entry(want.PriorID); ok {
			return nil, h.decided(d, approvals.WinnerOf(p))
		}
	}
	return want, nil
}

// taken reports whether the decision may have reached its agent: a
// second decision on its prompt is refused in team mode, confirmed or
// not (one that was refused or never delivered may be decided again).
func (h *Hub) taken(messageID string) bool {
	e, ok := h.svc.Entry(messageID)
	return ok && (e.Result == approvals.ResultAccepted || e.Result.Open())
}

// prepareError turns what Prepare, Retry or PrepareFollowUp refused into
// the hub's answer; nil for nil.
func (h *Hub) prepareError(d *approvals.Decision, err error) *refusal {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, approvals.ErrAlreadyDecided), errors.Is(err, approvals.ErrOutcomeOpen):
		if p, ok := h.svc.Prior(d.Agent, d.TaskID, d.Prompt); ok {
			return h.decided(d, approvals.WinnerOf(p))
		}
		return h.refuse(d, http.StatusConflict, approvals.ProblemDecided, "%v", err)
	case errors.Is(err, approvals.ErrAlreadyVoted):
		return h.refuse(d, http.StatusConflict, approvals.ProblemVoted, "%v; nothing was recorded or sent", err)
	case errors.Is(err, approvals.ErrJournalDamaged):
		return h.refuse(d, http.StatusConflict, approvals.ProblemDamaged, "%v", err)
	case errors.Is(err, approvals.ErrJournalReadOnly):
		return h.refuse(d, http.StatusForbidden, approvals.ProblemJournal, "the hub's journal is read-only: %v", err)
	case errors.Is(err, approvals.ErrUnknownDecision):
		return h.refuse(d, http.StatusNotFound, approvals.ProblemRejected, "%v", err)
	}
	return h.refuse(d, http.StatusUnprocessableEntity, approvals.ProblemRejected, "%v; nothing was sent", err)
}

// take makes want the one being sent (or recorded) on its prompt when
// none is, and returns it as mine; else it returns the one that is.
func (h *Hub) take(key string, want *approvals.Decision) (mine, cur *deciding) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if cur = h.deciding[key]; cur != nil {
		return nil, cur
	}
	mine = newDeciding(want)
	h.deciding[key] = mine
	return mine, nil
}

// first makes want the decision being sent on its prompt, or refuses it
// with the one that is (after waiting a moment for that send to end).
func (h *Hub) first(key string, want *approvals.Decision) (*deciding, *refusal) {
	if want.Vote != nil {
		return h.firstVote(key, want)
	}
	mine, cur := h.take(key, want)
	if mine != nil {
		return mine, nil
	}
	if cur.messageID == want.MessageID {
		return nil, h.refuse(want, http.StatusConflict, approvals.ProblemInFlight, "decision %s is being sent already", want.MessageID)
	}
	select {
	case <-cur.done:
	case <-time.After(winnerWait):
	}
	w := &cur.winner
	if e, ok := h.svc.Entry(cur.messageID); ok {
		w = approvals.WinnerOf(e)
	}
	return nil, h.decided(want, w)
}

func newDeciding(want *approvals.Decision) *deciding {
	return &deciding{messageID: want.MessageID, done: make(chan struct{}),
		winner: approvals.Winner{Approver: want.Approver, At: want.At, Kind: want.Kind, Result: approvals.ResultPending,
			Said: approvals.SaidOf(want.Kind, want.Reason, want.Message.Parts)}}
}

func (h *Hub) finish(key string, mine *deciding) {
	h.mu.Lock()
	delete(h.deciding, key)
	h.mu.Unlock()
	close(mine.done)
}

// roleFor is the role a decision of kind needs on a task in state: an
// approve or deny, and any answer to AUTH_REQUIRED, needs approve; a
// reply to anything else needs answer.
func roleFor(kind approvals.Kind, state a2a.TaskState) Role {
	if kind == approvals.KindApprove || kind == approvals.KindDeny || model.NormalizeState(state) == a2a.TaskStateAuthRequired {
		return RoleApprove
	}
	return RoleAnswer
}

// serveReconcile is POST /v1/reconcile: the hub reconciles its open
// decisions (GetTask; nothing is sent) and answers those the operator
// may watch.
func (h *Hub) serveReconcile(w http.ResponseWriter, r *http.Request, op *Operator) {
	if !op.anywhere(RoleAnswer) && !op.anywhere(RoleApprove) {
		writeError(w, http.StatusForbidden, "operator "+op.Name+" may not answer or approve on any agent, so has no decisions to reconcile")
		return
	}
	var out Reconciled
	for _, o := range h.svc.Reconcile(r.Context()) {
		if op.may(o.Agent, RoleWatch) {
			out.Outcomes = append(out.Outcomes, OutcomeOf(o))
		}
	}
	out.Feed = h.feed.id(h.feed.position())
	writeJSON(w, http.StatusOK, out)
}

// serveNote is POST /v1/notes: a task left the inbox while the operator
// was writing an answer (see approvals.Service.NoteLeft). The hub
// journals it once, on a task its fleet holds (see checkNote).
func (h *Hub) serveNote(w http.ResponseWriter, r *http.Request, op *Operator) {
	var n NoteRequest
	if !readJSON(w, r, &n) || !namesOK(w, n.Agent, n.Task) {
		return
	}
	if !h.mayDecide(w, op, n.Agent) {
		return
	}
	var status int
	var refusal string
	write := false
	if err := h.call(r.Context(), func() { status, refusal, write = h.checkNote(op, &n) }); err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	if refusal != "" {
		writeError(w, status, refusal)
		return
	}
	if !write { // the same note again
		writeJSON(w, http.StatusOK, Reconciled{Feed: h.feed.id(h.feed.position())})
		return
	}
	if err := h.svc.NoteLeft(n.Agent, n.Task, n.From, n.To, op.Name+": "+n.Text); err != nil {
		h.forgetNote(op, n)
		writeError(w, http.StatusInternalServerError, "journal: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, Reconciled{Feed: h.feed.id(h.feed.position())})
}
