package approvals

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// Reconcile resolves every open decision (pending after a crash, unknown
// after a timeout) with GetTask: our messageId in the task's history means
// accepted; absent while the task still waits at the same prompt means
// not-delivered (retry with the same messageId after the operator
// confirms); absent after the task moved on means superseded. Nothing is
// sent. Decisions the agent cannot be asked about now stay open. Call it
// at start and on demand, from a tea.Cmd.
//
// It first reads what other processes appended, and leaves alone a
// decision another process may be sending now (see sendingElsewhere). A
// torn decision line (see Damage) is resolved too, once GetTask shows the
// agent does not hold its messageId.
func (s *Service) Reconcile(ctx context.Context) []Outcome {
	if s.o.Hub != nil && !s.o.ReadOnly {
		return s.o.Hub.Reconcile(ctx)
	}
	if s.o.ReadOnly || s.o.Sender == nil {
		return nil
	}
	out := s.reconcileWhere(ctx, func(e *Entry) bool { return e.Result.Open() })
	s.reconcileTorn(ctx)
	return out
}

// ReconcileAbandoned resolves, as Reconcile does, the decisions left
// pending by a send that is over: its writer is gone (a process on this
// host that no longer runs, or is a zombie; one elsewhere whose send
// window has passed) or was this Service, which could not journal the
// outcome. It leaves alone what Reconcile leaves alone and the unknown
// outcomes (a timeout the operator retries). A long-running process (the
// hub) calls it on a timer: a writer that dies after the start's
// Reconcile would otherwise keep its prompt refused until someone asks
// for a reconcile. Nothing is sent.
func (s *Service) ReconcileAbandoned(ctx context.Context) []Outcome {
	if s.o.Hub != nil || s.o.ReadOnly || s.o.Sender == nil {
		return nil
	}
	return s.reconcileWhere(ctx, func(e *Entry) bool { return e.Result == ResultPending })
}

// reconcileWhere reads what other processes appended, then reconciles
// the open decisions that match and that no one may be sending now.
func (s *Service) reconcileWhere(ctx context.Context, match func(*Entry) bool) []Outcome {
	if err := s.st.follow(s.foldFrom); err != nil {
		s.log.Error("journal: reading what other processes appended", "err", err)
	}
	var open []string
	s.mu.Lock()
	for _, e := range s.order {
		if e.MessageID != "" && e.Result.Open() && match(e) && !s.inFlight[e.MessageID] && !s.sendingElsewhere(e) {
			open = append(open, e.MessageID)
		}
	}
	s.mu.Unlock()
	out := make([]Outcome, 0, len(open))
	for _, id := range open {
		out = append(out, s.ReconcileOne(ctx, id))
	}
	return out
}

// ReconcileOne resolves one decision (see Reconcile). A decision that is
// not open is returned as it stands.
func (s *Service) ReconcileOne(ctx context.Context, messageID string) Outcome {
	e, ok := s.Entry(messageID)
	if !ok {
		return Outcome{MessageID: messageID, Result: ResultRefused, Err: fmt.Errorf("%w: %s", ErrUnknownDecision, messageID)}
	}
	out := Outcome{MessageID: e.MessageID, Agent: e.Agent, TaskID: e.TaskID, Kind: e.Kind, Result: e.Result,
		Problem: e.Problem, State: e.AgentState()}
	if !e.Result.Open() || s.o.ReadOnly || s.o.Sender == nil {
		return out
	}
	// Hold the decision while reading the task back, as Send does: a
	// Retry sent meanwhile could otherwise be accepted and then have our
	// older reading ("not delivered") recorded after it.
	s.mu.Lock()
	busy := s.inFlight[messageID]
	if !busy {
		s.inFlight[messageID] = true
	}
	s.mu.Unlock()
	if busy {
		return out // being sent or reconciled: that call records the outcome
	}
	defer func() {
		s.mu.Lock()
		delete(s.inFlight, messageID)
		s.mu.Unlock()
	}()
	if e.Kind.startsTask() {
		// A follow-up or a new message starts a new task whose id we
		// never learned: its delivery cannot be read back.
		out.Err = errors.New("a follow-up or a new message starts a new task; look for it in the agent's task list before retrying")
		return out
	}
	t, err := s.get(ctx, e.Agent, e.TaskID, s.o.ReconcileHistory)
	if err != nil {
		p := classify(err, e.PromptState)
		if p != ProblemNotFound {
			out.Err = fmt.Errorf("reconcile: %w (the decision stays %s)", err, e.Result)
			return out
		}
		out.Result, out.Problem, out.Err = ResultSuperseded, ProblemNotFound, err
		return s.settle(out, e)
	}
	out.Task, out.State, out.Problem, out.Err = t, model.NormalizeState(t.Status.State), "", nil
	d := &Decision{MessageID: e.MessageID, Agent: e.Agent, State: e.PromptState}
	switch {
	case holds(t, e.MessageID):
		out.Result = ResultAccepted
	case model.ClassOf(out.State) == model.ClassInterrupted && PromptOf(t) == e.Prompt:
		out.Result = ResultNotDelivered
	default:
		out.Result = ResultSuperseded
		if model.ClassOf(out.State) == model.ClassTerminal {
			out.Problem = ProblemTaskEnded
		} else {
			out.Problem = ProblemMoved
		}
	}
	out = s.settle(out, e)
	if out.Result != ResultNotDelivered && out.Task != nil {
		s.noteState(d, t, "get", "")
	}
	return out
}

// settle journals a reconciled outcome, unless the decision moved on
// while its task was read (another process retried it or reconciled it
// first): then the outcome is the entry as it stands now.
func (s *Service) settle(out Outcome, was Entry) Outcome {
	if s.recordIf(out, "reconcile", func(e *Entry) bool { return e.Attempts == was.Attempts && e.Result.Open() }) {
		return out
	}
	e, _ := s.Entry(out.MessageID)
	return Outcome{MessageID: e.MessageID, Agent: e.Agent, TaskID: e.TaskID, Kind: e.Kind, Result: e.Result,
		Problem: e.Problem, State: e.AgentState()}
}

// ObserveState records, as a fact separate from the decision, a state the
// fleet reports for a task we decided on. It does nothing for tasks
// without a decision of ours, or when the state is the one already
// recorded (by this process or another). See Observations.
func (s *Service) ObserveState(agent string, id a2a.TaskID, state a2a.TaskState) error {
	return s.Observe([]Observation{{Agent: agent, TaskID: id, State: state}})
}

// NoteLeft records that a task left the inbox with no decision of ours
// sent (resumed out of band, answered elsewhere, canceled) while the
// operator was writing an answer, which was dropped. The journal keeps it
// as an observation, so "what happened to my reply" has an answer.
func (s *Service) NoteLeft(agent string, id a2a.TaskID, from, to a2a.TaskState, note string) error {
	if s.o.ReadOnly {
		return nil
	}
	if s.o.Hub != nil {
		return s.o.Hub.NoteLeft(context.Background(), Note{Agent: agent, TaskID: id, From: from, To: to, Text: note})
	}
	return s.write(record{Type: recState, Agent: agent, Task: id, From: model.NormalizeState(from),
		To: model.NormalizeState(to), Source: "fleet", Note: note})
}
