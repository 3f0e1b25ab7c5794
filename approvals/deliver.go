package approvals

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// Send delivers a decision at most once. Holding the journal's lock, it
// reads what other processes appended, refuses the decision as Prepare
// would on the journal as it now is, and records it (fsync). Then, the
// lock let go and before anything leaves, it checks with GetTask that
// the task still waits at the same prompt (and that our messageId is not
// already in its history), sends it, and records the outcome and the
// agent's state change as two separate facts. A timeout is an unknown
// outcome: it is never retried here (see Reconcile and Retry).
//
// It blocks on the network and the disk: call it from a tea.Cmd.
func (s *Service) Send(ctx context.Context, d *Decision) Outcome {
	out := Outcome{MessageID: d.MessageID, Agent: d.Agent, TaskID: d.TaskID, Kind: d.Kind}
	if s.o.ReadOnly {
		return s.refuse(out, ProblemJournal, ErrJournalReadOnly)
	}
	if s.o.Hub != nil {
		return s.sendViaHub(ctx, d)
	}
	if s.o.Sender == nil {
		return s.refuse(out, ProblemRejected, errNoSender)
	}
	if d != nil && d.Vote != nil {
		return s.sendVote(ctx, d)
	}
	if p, err := s.claim(d); err != nil {
		return s.refuseOver(out, d, p, err)
	}
	defer s.release(d)
	if p, err := s.commit(d); err != nil {
		return s.refuseOver(out, d, p, err)
	}
	return s.deliver(ctx, d, out)
}

// deliver sends a decision the journal holds: the check with GetTask,
// the send, and the outcome and state change recorded.
func (s *Service) deliver(ctx context.Context, d *Decision, out Outcome) Outcome {
	if !d.Kind.startsTask() {
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
	if out.Problem != ProblemUnauthorized && out.Problem != ProblemUnreachable && !d.Kind.startsTask() {
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

var errNoSender = errors.New("send: this a2atop reads the journal only; it has no connection to agents")

// sendMargin is added to a decision's send window for the journal writes
// around the calls.
const sendMargin = 10 * time.Second

// claim marks d and its prompt in flight in this process until Send
// returns, refusing a decision that is being sent already and any
// decision while another one on the same prompt is being sent here. It
// also refuses early what the journal, as this Service last read it,
// refuses (see admit); commit asks again under the store's hold.
func (s *Service) claim(d *Decision) (Problem, error) {
	if d == nil || d.Message == nil || d.MessageID == "" || d.Message.ID != d.MessageID {
		return ProblemRejected, errors.New("send: the decision is incomplete; build it with Prepare")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight[d.MessageID] {
		return ProblemInFlight, fmt.Errorf("send: decision %s is being sent already", d.MessageID)
	}
	k := s.promptOf(d)
	if other, busy := s.inFlightPrompt[k]; busy {
		// Another decision on this prompt is between its claim and its
		// journal record, where admit cannot see it.
		return ProblemDecided, fmt.Errorf("%w: decision %s on this prompt is being sent now", ErrAlreadyDecided, other)
	}
	if p, err := s.admit(d); err != nil {
		return p, err
	}
	s.inFlight[d.MessageID] = true
	s.inFlightPrompt[k] = d.MessageID
	return ProblemNone, nil
}

// commit journals d (a decision record, or a retry record for a later
// attempt) under the store's exclusive hold, after reading what other
// processes appended and asking admit again. Nothing is sent before it
// returns nil; the hold ends before anything is sent.
func (s *Service) commit(d *Decision) (Problem, error) {
	rec := record{Type: recDecision, ID: d.MessageID, At: d.At, Agent: d.Agent, Task: d.TaskID, Context: d.ContextID,
		Kind: d.Kind, Prompt: d.Prompt, State: d.State, Parts: d.Message.Parts, Reason: d.Reason,
		Approver: d.Approver, Refs: d.Message.ReferenceTasks, Attempt: d.Attempt}
	if d.Attempt > 1 {
		// The message sent again is its approver's; By is who sends it again.
		rec = record{Type: recRetry, ID: d.MessageID, Agent: d.Agent, Task: d.TaskID, Approver: d.Approver, By: d.SentBy, Attempt: d.Attempt}
	}
	p := ProblemNone
	err := s.appendChecked(func() ([]record, error) {
		var err error
		if p, err = s.admit(d); err != nil {
			return nil, err
		}
		rec.Host, rec.PID, rec.Svc, rec.Until = s.host, os.Getpid(), s.id, s.o.Now().UTC().Add(2*s.o.SendTimeout+sendMargin)
		return []record{rec}, nil
	})
	if err != nil && p == ProblemNone {
		p = ProblemJournal
		if errors.Is(err, ErrRecordUnreachable) {
			p = ProblemRecord
			s.unsent.add(d.MessageID)
		}
	}
	return p, err
}

// admit refuses what the journal holds against d: a damaged line that may
// hide a decision on its agent; a messageId in the journal already (a
// double confirm); a retry of a decision that is no longer unknown or
// not-delivered; a new decision on a prompt whose last decision is being
// sent by another process, or is pending or unknown (it may have arrived:
// only Retry, with its messageId, may follow it); a second decision on a
// prompt the operator has not confirmed again, or confirmed over an
// earlier decision than the last one. Callers hold s.mu.
func (s *Service) admit(d *Decision) (Problem, error) {
	if dm := s.blocked(s.book.idOf(d.Agent)); dm != nil {
		return ProblemDamaged, damagedErr(dm)
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
	ids := s.byPrompt[s.promptOf(d)]
	if len(ids) == 0 || d.Attempt > 1 {
		return ProblemNone, nil
	}
	last := s.entries[ids[len(ids)-1]]
	switch {
	case s.sendingElsewhere(last):
		return ProblemDecided, fmt.Errorf("%w: another a2atop is sending %s's %s on this prompt now (decided at %s)",
			ErrAlreadyDecided, last.Approver, last.Kind, last.DecidedAt.Local().Format("15:04:05"))
	case last.Result.Open():
		return ProblemOpen, openErr(copyEntry(last), d.Approver)
	case !d.Again:
		return ProblemDecided, fmt.Errorf("%w (%s)", ErrAlreadyDecided, priorWords(last))
	case d.PriorID != last.MessageID:
		return ProblemDecided, fmt.Errorf("%w: %s, after you confirmed yours", ErrAlreadyDecided, priorWords(last))
	}
	return ProblemNone, nil
}

// sendingElsewhere reports whether another Service recorded e and may
// be sending it now: it is pending, that Service's send window (its
// timeouts for the check and the send) has not passed, and, when it ran
// on this host, it is still running: its process, or, in this process
// (two hubs in one process), the Service itself, still open. Otherwise
// e is open like any decision a crash left pending. A record written
// before Services had ids names only its process: one of this process
// counts as this Service's own, as it did then. Callers hold s.mu.
func (s *Service) sendingElsewhere(e *Entry) bool {
	if e.self || e.Result != ResultPending || !s.o.Now().Before(e.until) {
		return false
	}
	if e.host != "" && e.host == s.host {
		if e.pid == os.Getpid() {
			return e.svc != "" && e.svc != s.id && serviceOpen(e.svc)
		}
		return processAlive(e.pid)
	}
	return true
}

// priorWords names a decision for a refusal: "approve by ops@host at
// 2026-11-29T20:00:00Z: accepted", "answered elsewhere by …".
func priorWords(e *Entry) string {
	if w := e.ElsewhereWords(); w != "" {
		return w
	}
	return fmt.Sprintf("%s by %s at %s: %s", e.Kind, e.Approver, e.DecidedAt.UTC().Format(time.RFC3339), e.Result)
}

func (s *Service) promptOf(d *Decision) string {
	return promptKey(s.book.idOf(d.Agent), d.TaskID, d.Prompt)
}

func (s *Service) release(d *Decision) {
	s.mu.Lock()
	delete(s.inFlight, d.MessageID)
	delete(s.inFlightPrompt, s.promptOf(d))
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

// refuseOver is refuse, naming as the Winner the prompt's last decision
// when d was refused over it and it is another approver's: the words
// then say who decided what, and offer nothing of theirs to retry.
func (s *Service) refuseOver(out Outcome, d *Decision, p Problem, err error) Outcome {
	out = s.refuse(out, p, err)
	if p != ProblemDecided && p != ProblemOpen {
		return out
	}
	if last, ok := s.Prior(d.Agent, d.TaskID, d.Prompt); ok && last.MessageID != d.MessageID && last.Approver != d.Approver {
		out.Winner = WinnerOf(last)
	}
	return out
}

// record journals an outcome. A failure is logged: the decision then stays
// pending, and Reconcile resolves it later.
func (s *Service) record(out Outcome, via string) {
	s.recordIf(out, via, nil)
}

// recordIf journals an outcome if still (under the store's hold, after
// reading what others appended) holds for the decision's entry; nil
// always holds. It reports whether the outcome was written.
func (s *Service) recordIf(out Outcome, via string, still func(*Entry) bool) bool {
	r := record{Type: recOutcome, ID: out.MessageID, Agent: out.Agent, Task: out.TaskID, Result: out.Result, State: out.State,
		Problem: out.Problem, Via: via}
	if out.Err != nil {
		r.Error = out.Err.Error()
	}
	wrote := false
	err := s.appendChecked(func() ([]record, error) {
		e := s.entries[out.MessageID]
		if e != nil {
			r.Attempt = e.Attempts
		}
		if still != nil && (e == nil || !still(e)) {
			return nil, nil
		}
		wrote = true
		return []record{r}, nil
	})
	if err != nil {
		s.log.Error("journal: outcome not recorded; the decision stays pending until reconciled", "id", out.MessageID, "err", err)
		return false
	}
	return wrote
}

// noteState journals the agent's state after a decision, when it differs
// from the last one recorded for it.
func (s *Service) noteState(d *Decision, t *a2a.Task, source, note string) {
	to := model.NormalizeState(t.Status.State)
	err := s.appendChecked(func() ([]record, error) {
		from := d.State
		if e := s.entries[d.MessageID]; e != nil && e.AgentState() != "" {
			from = e.AgentState()
		}
		if to == from && note == "" {
			return nil, nil
		}
		return []record{{Type: recState, ID: d.MessageID, Agent: d.Agent, Task: t.ID, From: from, To: to, Source: source, Note: note}}, nil
	})
	if err != nil {
		s.log.Error("journal: state change not recorded", "id", d.MessageID, "err", err)
	}
}
