package approvals

import (
	"errors"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// PrepareNew builds a message that starts a new task on agent, from the
// operator's text, JSON data or both (Input.Text, Input.JSON), with a
// new messageId. With after (a task that ended: its id, context and
// state), it is a follow-up of it (KindFollowUp): in its context and
// naming it in referenceTaskIds, whether or not a decision of ours was
// on it. Without, it is a new message (KindMessage) in a new context.
// Nothing is sent or journaled yet: Send journals it (a decision record)
// before it goes, at most once, like any decision.
func (s *Service) PrepareNew(agent string, after *a2a.Task, in Input) (*Decision, error) {
	if s.o.ReadOnly {
		return nil, ErrJournalReadOnly
	}
	if strings.TrimSpace(agent) == "" {
		return nil, errors.New("choose the agent the message goes to")
	}
	if after != nil && !after.Status.State.Terminal() && after.Status.State != "" {
		return nil, fmt.Errorf("a follow-up starts a new task after one that ended; %s is %s: reply to it instead", shortID(after.ID), after.Status.State)
	}
	if err := s.Blocked(agent); err != nil {
		return nil, err
	}
	id := s.o.NewID()
	tmp := &a2a.Task{}
	if after != nil {
		tmp.ContextID = after.ContextID
	}
	m, err := BuildReply(tmp, in.Text, in.JSON, id)
	if err != nil {
		return nil, err
	}
	d := &Decision{MessageID: id, Agent: agent, Kind: KindMessage, Prompt: "new:" + id, Approver: s.o.Approver,
		At: s.o.Now().UTC(), Message: m, Attempt: 1}
	if after != nil {
		m.ReferenceTasks = []a2a.TaskID{after.ID}
		d.Kind, d.TaskID, d.ContextID, d.State = KindFollowUp, after.ID, after.ContextID, after.Status.State
		d.Prompt = "follow-up-of:" + string(after.ID) + ":" + id
	}
	return d, nil
}
