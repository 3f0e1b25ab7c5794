package approvals

import (
	"fmt"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// Input is what the operator decided for one item.
type Input struct {
	Kind   Kind
	Text   string // reply text
	JSON   string // reply data, as JSON text; validated
	Reason string // required for KindDeny, optional for KindApprove
	// Again is the operator's second confirmation: the prompt already has
	// a decision in the journal (Item.Prior) and they mean to send another.
	Again bool
}

// Decision is a validated message ready to be sent, with everything the
// journal records about it. Build one with Prepare, PrepareFollowUp or
// Retry; show Message to the operator; then Send it once.
type Decision struct {
	MessageID string
	Agent     string
	TaskID    a2a.TaskID // the task answered (for a follow-up: the task that ended)
	ContextID string
	Kind      Kind
	Prompt    string        // the prompt answered (see PromptOf)
	State     a2a.TaskState // the task's state when decided
	Reason    string
	Approver  string
	At        time.Time
	Message   *a2a.Message // exactly what will be sent
	Attempt   int          // 1; n for the n-th send of the same messageId
	// SentBy is, for a retry (Attempt > 1), the operator who confirmed
	// sending it again; Approver stays the one whose decision the
	// message is (it carries their name and time, unchanged).
	SentBy string
	Again  bool // the operator confirmed a second decision on this prompt
	// PriorID is the last decision on the prompt when this one was
	// prepared ("" for none): a confirmed second decision is sent only
	// over that one, not over a decision made since, here or elsewhere.
	PriorID string
	// Vote is, for an approve or deny under an approval policy, what it
	// does as the journal stood when it was prepared (Send counts again);
	// nil for one click.
	Vote *Tally

	in   Input     // what the operator typed, for a hub that builds the message again
	snap *a2a.Task // the task as decided on, to build an approve/deny again at its confirmation
}

// Prepare validates the operator's input for an item and builds the
// message: a reply (text, JSON data, or both) or an approve/deny in the
// agent's template shape, on the task's taskId and contextId with a new
// messageId. Nothing is sent or journaled yet.
func (s *Service) Prepare(it Item, in Input) (*Decision, error) {
	return s.prepare(it, in, s.author())
}

func (s *Service) prepare(it Item, in Input, a Author) (*Decision, error) {
	if s.o.ReadOnly {
		return nil, ErrJournalReadOnly
	}
	t := it.Task
	if t == nil || t.Snapshot == nil {
		return nil, fmt.Errorf("%w: no snapshot of the task yet", ErrNotInterrupted)
	}
	if t.Class != model.ClassInterrupted {
		return nil, fmt.Errorf("%w (it is %s)", ErrNotInterrupted, model.ShortState(t.State))
	}
	if !it.Actionable {
		w := "another task"
		if it.WaitingOn != nil {
			w = it.WaitingOn.Key.Agent + " · " + shortID(it.WaitingOn.Key.ID)
		}
		return nil, fmt.Errorf("%w: it waits on %s", ErrNotActionable, w)
	}
	if err := s.Blocked(t.Key.Agent); err != nil {
		return nil, err
	}
	prompt := PromptOf(t.Snapshot)
	priorID := ""
	if prior, ok := s.Prior(t.Key.Agent, t.Key.ID, prompt); ok {
		if prior.Result.Open() {
			return nil, openErr(prior, a.who(s.o))
		}
		if !in.Again {
			return nil, fmt.Errorf("%w (%s)", ErrAlreadyDecided, priorWords(&prior))
		}
		priorID = prior.MessageID
	}
	a = a.fill(s.o)
	now, id := a.At, a.MessageID
	d := &Decision{MessageID: id, Agent: t.Key.Agent, TaskID: t.Key.ID, ContextID: t.Snapshot.ContextID,
		Kind: in.Kind, Prompt: prompt, State: t.State, Approver: a.Approver, At: now, Attempt: 1, Again: in.Again,
		PriorID: priorID, in: in, snap: t.Snapshot}
	var err error
	switch in.Kind {
	case KindReply:
		if p, voted := s.policyOf(t.Key.Agent); voted && t.State == a2a.TaskStateAuthRequired && p.RequiredOf(t) > 1 {
			return nil, ErrVoteNeeded
		}
		d.Message, err = BuildReply(t.Snapshot, in.Text, in.JSON, id)
	case KindApprove, KindDeny:
		if t.State != a2a.TaskStateAuthRequired {
			return nil, fmt.Errorf("approve and deny answer AUTH_REQUIRED; this task is %s: reply instead", model.ShortState(t.State))
		}
		d.Reason = strings.TrimSpace(in.Reason)
		v := DecisionValues{Approve: in.Kind == KindApprove, Reason: d.Reason, Approver: a.Approver, At: now}
		d.Message, err = BuildDecision(t.Snapshot, v, s.o.Templates[t.Key.Agent], id)
		if p, voted := s.policyOf(t.Key.Agent); voted && err == nil {
			err = s.prepareVote(d, t, p)
		}
	default:
		return nil, fmt.Errorf("unknown decision kind %q: use reply, approve or deny", in.Kind)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Confirmed returns d as the operator confirmed it now: its time (the
// journal's "at", and the "at" an approve or deny carries) is the
// moment of the confirmation, not the moment the dialog opened. An
// answer for many calls it for each task just before that task's Send.
// Everything else is d's, the messageId too. It builds the message
// again only where the time is in it; d itself is not changed.
func (s *Service) Confirmed(d *Decision) (*Decision, error) {
	if d == nil || d.Message == nil {
		return d, nil
	}
	c := *d
	c.At = s.o.Now().UTC()
	if (c.Kind != KindApprove && c.Kind != KindDeny) || c.Attempt > 1 || c.snap == nil {
		return &c, nil // a retry is the same message; a reply carries no time
	}
	v := DecisionValues{Approve: c.Kind == KindApprove, Reason: c.Reason, Approver: c.Approver, At: c.At}
	m, err := BuildDecision(c.snap, v, s.o.Templates[c.Agent], c.MessageID)
	if c.Vote != nil && err == nil {
		m, err = s.voteMessage(&c)
	}
	if err != nil {
		return nil, fmt.Errorf("confirm: building the %s again at the time of the confirmation: %w", c.Kind, err)
	}
	c.Message = m
	return &c, nil
}

// PrepareFollowUp builds the follow-up for a decision that was refused
// because its task had ended: a new task in the same context, naming the
// ended task in referenceTaskIds, with the same parts and a new messageId.
func (s *Service) PrepareFollowUp(messageID string) (*Decision, error) {
	return s.prepareFollowUp(messageID, s.author())
}

func (s *Service) prepareFollowUp(messageID string, a Author) (*Decision, error) {
	if s.o.ReadOnly {
		return nil, ErrJournalReadOnly
	}
	e, ok := s.Entry(messageID)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownDecision, messageID)
	}
	if e.Problem != ProblemTaskEnded {
		return nil, fmt.Errorf("follow-up: the decision %s was not refused for an ended task (%s)", messageID, e.Result)
	}
	if err := s.Blocked(e.Agent); err != nil {
		return nil, err
	}
	ended := &a2a.Task{ID: e.TaskID, ContextID: e.ContextID}
	a = a.fill(s.o)
	id := a.MessageID
	return &Decision{MessageID: id, Agent: e.Agent, TaskID: e.TaskID, ContextID: e.ContextID, Kind: KindFollowUp,
		Prompt: "follow-up:" + messageID, State: e.AgentState(), Reason: e.Reason, Approver: a.Approver,
		At: a.At, Message: BuildFollowUp(ended, e.Parts, id), Attempt: 1}, nil
}

// Retry rebuilds a decision whose outcome is unknown or not-delivered, to
// send it again with the SAME messageId (so the agent can tell it is a
// repeat). Call it only after the operator has confirmed again.
func (s *Service) Retry(messageID string) (*Decision, error) {
	return s.retry(messageID, s.author())
}

func (s *Service) retry(messageID string, a Author) (*Decision, error) {
	if s.o.ReadOnly {
		return nil, ErrJournalReadOnly
	}
	e, ok := s.Entry(messageID)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownDecision, messageID)
	}
	if !e.Result.Retryable() {
		return nil, fmt.Errorf("retry: the decision is %s; only unknown or not-delivered decisions can be sent again", e.Result)
	}
	if err := s.Blocked(e.Agent); err != nil {
		return nil, err
	}
	a.MessageID = e.MessageID // a retry is the same message
	a = a.fill(s.o)
	m := a2a.NewMessage(a2a.MessageRoleUser, clonePart(e.Parts)...)
	m.ID, m.ContextID, m.ReferenceTasks = e.MessageID, e.ContextID, e.Refs
	if !e.Kind.startsTask() {
		m.TaskID = e.TaskID
	}
	// The message is the decider's, as they decided it: the journal names
	// them as its approver and the one sending it again as SentBy.
	return &Decision{MessageID: e.MessageID, Agent: e.Agent, TaskID: e.TaskID, ContextID: e.ContextID, Kind: e.Kind,
		Prompt: e.Prompt, State: e.PromptState, Reason: e.Reason, Approver: e.Approver, SentBy: a.Approver, At: a.At,
		Message: m, Attempt: e.Attempts + 1, Again: true}, nil
}

// Blocked returns, wrapping ErrJournalDamaged, why no decision on the
// agent called name may be sent now (a damaged journal line that may
// hold one), or nil. Prepare, Retry and Send ask it; the inbox may ask
// it first to say so before the operator writes an answer.
func (s *Service) Blocked(agent string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.blocked(s.book.idOf(agent)); d != nil {
		return damagedErr(d)
	}
	return nil
}

func shortID(id a2a.TaskID) string {
	if len(id) <= 8 {
		return string(id)
	}
	return string(id[:8])
}

// openErr refuses, for approver, a new decision on a prompt whose last
// decision may have arrived: a new messageId could not be told apart
// from it by the agent. Their own is theirs to reconcile and retry;
// another's is named (who, when, what) with nothing offered to retry.
func openErr(prior Entry, approver string) error {
	if prior.Approver != approver {
		return &decidedError{is: ErrOutcomeOpen, words: WinnerOf(prior).Words() + "; nothing was sent: the first decision on a prompt is the one the agent gets"}
	}
	return fmt.Errorf("%w: decision %s (%s by %s) is %s", ErrOutcomeOpen, prior.MessageID, prior.Kind, prior.Approver, prior.Result)
}

// decidedError refuses a decision over another operator's: its words
// name that decision; it is errors.Is the refusal it stands for
// (ErrOutcomeOpen, ErrAlreadyDecided) without that refusal's advice,
// which is for one's own decisions.
type decidedError struct {
	is    error
	words string
}

func (e *decidedError) Error() string { return e.words }
func (e *decidedError) Unwrap() error { return e.is }
