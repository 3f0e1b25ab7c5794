package approvals

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// Send delivers a decision at most once: it records the decision in the
// journal (fsync) BEFORE anything leaves, checks with GetTask that the
// task still waits at the same prompt (and that our messageId is not
// already in its history), sends it, and records the outcome and the
// agent's state change as two separate facts. A timeout is an unknown
// outcome: it is never retried here (see Reconcile and Retry).
//
// It blocks on the network and the disk: call it from a tea.Cmd.
func (s *Service) Send(ctx context.Context, d *Decision) Outcome {
	out := Outcome{MessageID: d.MessageID, Agent: d.Agent, TaskID: d.TaskID, Kind: d.Kind}
	if s.o.ReadOnly {
		return s.refuse(out, ProblemReadOnly, ErrReadOnly)
	}
	if p, err := s.claim(d); err != nil {
		return s.refuse(out, p, err)
	}
	defer s.release(d)

	rec := record{Type: recDecision, ID: d.MessageID, At: d.At, Agent: d.Agent, Task: d.TaskID, Context: d.ContextID,
		Kind: d.Kind, Prompt: d.Prompt, State: d.State, Parts: d.Message.Parts, Reason: d.Reason,
		Approver: d.Approver, Refs: d.Message.ReferenceTasks, Attempt: d.Attempt}
	if d.Attempt > 1 {
		rec = record{Type: recRetry, ID: d.MessageID, Approver: d.Approver, Attempt: d.Attempt}
	}
	if err := s.write(rec); err != nil {
		return s.refuse(out, ProblemJournal, err)
	}

	if d.Kind != KindFollowUp {
		if done, o := s.check(ctx, d, out); done {
			return o
		}
	}

	sctx, cancel := context.WithTimeout(ctx, s.o.SendTimeout)
	task, err := s.o.Sender.Reply(sctx, d.Agent, d.Message)
	cancel()
	if err == nil {
		out.Result, out.Task = ResultAccepted, task
		if task != nil {
			out.State = model.NormalizeState(task.Status.State)
		}
		s.record(out, "send")
		if task != nil {
			s.noteState(d, task, "reply", "")
		}
		return out
	}
	out.Err, out.Problem = err, classify(err, d.State)
	if out.Problem == ProblemTimeout || out.Problem == ProblemNoAnswer {
		out.Result = ResultUnknown
		s.record(out, "send")
		return out
	}
	out.Result = ResultRefused
	if out.Problem != ProblemUnauthorized && out.Problem != ProblemUnreachable && d.Kind != KindFollowUp {
		// Learn what the task is now: an ended task turns any refusal
		// into "ended first" with a follow-up offered.
		if t, gerr := s.get(ctx, d.Agent, d.TaskID, 1); gerr == nil {
			out.State = model.NormalizeState(t.Status.State)
			if model.ClassOf(out.State) == model.ClassTerminal {
				out.Problem, out.FollowUp = ProblemTaskEnded, true
			}
			s.noteState(d, t, "get", "")
		}
	}
	if out.Problem == ProblemTaskEnded {
		out.FollowUp = true
	}
	s.record(out, "send")
	return out
}

// claim refuses a decision that is being sent already, one whose
// messageId is in the journal (a double confirm), a retry of a decision
// that is no longer unknown or not-delivered, any decision while
// another one on the same prompt is being sent, a new decision on a
// prompt whose last decision is pending or unknown (it may have arrived:
// only Retry, with its messageId, may follow it), and a second decision on
// a prompt the operator has not confirmed again. It marks d and its prompt
// in flight until Send returns.
func (s *Service) claim(d *Decision) (Problem, error) {
	if d == nil || d.Message == nil || d.MessageID == "" || d.Message.ID != d.MessageID {
		return ProblemRejected, errors.New("send: the decision is incomplete; build it with Prepare")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight[d.MessageID] {
		return ProblemInFlight, fmt.Errorf("send: decision %s is being sent already", d.MessageID)
	}
	e, recorded := s.entries[d.MessageID]
	if recorded && d.Attempt <= 1 {
		return ProblemInFlight, fmt.Errorf("send: decision %s was recorded already (%s); use Retry to send it again", d.MessageID, e.Result)
	}
	if d.Attempt > 1 && (!recorded || !e.Result.Retryable()) {
		// A Retry built before another send of the same decision settled
		// it: only an unknown or not-delivered decision goes out again.
		what := "not in the journal"
		if recorded {
			what = string(e.Result)
		}
		return ProblemDecided, fmt.Errorf("%w: decision %s is %s now; it is not sent again", ErrAlreadyDecided, d.MessageID, what)
	}
	k := promptKey(d.Agent, d.TaskID, d.Prompt)
	if other, busy := s.inFlightPrompt[k]; busy {
		// Another decision on this prompt is between its claim and its
		// journal record, where the byPrompt check below cannot see it.
		return ProblemDecided, fmt.Errorf("%w: decision %s on this prompt is being sent now", ErrAlreadyDecided, other)
	}
	if ids := s.byPrompt[k]; len(ids) > 0 && d.Attempt <= 1 {
		if last := s.entries[ids[len(ids)-1]]; last.Result.Open() {
			return ProblemOpen, openErr(copyEntry(last))
		}
		if !d.Again {
			return ProblemDecided, ErrAlreadyDecided
		}
	}
	s.inFlight[d.MessageID] = true
	s.inFlightPrompt[k] = d.MessageID
	return ProblemNone, nil
}

func (s *Service) release(d *Decision) {
	s.mu.Lock()
	delete(s.inFlight, d.MessageID)
	delete(s.inFlightPrompt, promptKey(d.Agent, d.TaskID, d.Prompt))
	s.mu.Unlock()
}

// check reads the task back before sending. It returns done=true with the
// outcome when the decision must not be sent: the task moved on or ended,
// our message is already in its history, or the agent cannot be asked.
func (s *Service) check(ctx context.Context, d *Decision, out Outcome) (bool, Outcome) {
	hist := 1
	if d.Attempt > 1 {
		hist = s.o.ReconcileHistory // a retry: look for the first attempt in the history
	}
	t, err := s.get(ctx, d.Agent, d.TaskID, hist)
	if err != nil {
		out.Result, out.Err, out.Problem = ResultRefused, err, classify(err, d.State)
		s.record(out, "check")
		return true, out
	}
	out.State, out.Task = model.NormalizeState(t.Status.State), t
	switch {
	case d.Attempt > 1 && holds(t, d.MessageID):
		out.Result = ResultAccepted
		s.record(out, "check")
		s.noteState(d, t, "get", "our message was already in the task's history: not sent again")
		return true, out
	case model.ClassOf(out.State) == model.ClassTerminal:
		out.Result, out.Problem, out.FollowUp = ResultRefused, ProblemTaskEnded, true
		out.Err = fmt.Errorf("the task is %s: nothing was sent", model.ShortState(out.State))
	case model.ClassOf(out.State) != model.ClassInterrupted || PromptOf(t) != d.Prompt:
		out.Result, out.Problem = ResultRefused, ProblemMoved
		out.Err = fmt.Errorf("the task moved on (now %s): nothing was sent", model.ShortState(out.State))
	default:
		return false, out
	}
	s.record(out, "check")
	s.noteState(d, t, "get", "before the reply was sent")
	return true, out
}

// holds reports whether our message is in the task's history or is its
// status message.
func holds(t *a2a.Task, messageID string) bool {
	if t.Status.Message != nil && t.Status.Message.ID == messageID {
		return true
	}
	return slices.ContainsFunc(t.History, func(m *a2a.Message) bool { return m != nil && m.ID == messageID })
}

func (s *Service) get(ctx context.Context, agent string, id a2a.TaskID, hist int) (*a2a.Task, error) {
	gctx, cancel := context.WithTimeout(ctx, s.o.SendTimeout)
	defer cancel()
	t, err := s.o.Sender.Get(gctx, agent, id, hist, false)
	if err == nil && t == nil {
		err = fmt.Errorf("agent %q returned no task for %s", agent, id)
	}
	return t, err
}

// refuse is an outcome that was never journaled (nothing was recorded,
// nothing sent).
func (s *Service) refuse(out Outcome, p Problem, err error) Outcome {
	out.Result, out.Problem, out.Err = ResultRefused, p, err
	return out
}

// record journals an outcome. A failure is logged: the decision then stays
// pending, and Reconcile resolves it later.
func (s *Service) record(out Outcome, via string) {
	r := record{Type: recOutcome, ID: out.MessageID, Result: out.Result, State: out.State, Problem: out.Problem, Via: via}
	if out.Err != nil {
		r.Error = out.Err.Error()
	}
	if e, ok := s.Entry(out.MessageID); ok {
		r.Attempt = e.Attempts
	}
	if err := s.write(r); err != nil {
		s.log.Error("journal: outcome not recorded; the decision stays pending until reconciled", "id", out.MessageID, "err", err)
	}
}

// noteState journals the agent's state after a decision, when it differs
// from the last one recorded for it.
func (s *Service) noteState(d *Decision, t *a2a.Task, source, note string) {
	to := model.NormalizeState(t.Status.State)
	from := d.State
	if e, ok := s.Entry(d.MessageID); ok && e.AgentState() != "" {
		from = e.AgentState()
	}
	if to == from && note == "" {
		return
	}
	r := record{Type: recState, ID: d.MessageID, Agent: d.Agent, Task: t.ID, From: from, To: to, Source: source, Note: note}
	if err := s.write(r); err != nil {
		s.log.Error("journal: state change not recorded", "id", d.MessageID, "err", err)
	}
}
