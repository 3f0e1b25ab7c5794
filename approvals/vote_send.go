package approvals

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// prepareVote makes d, an approve or deny on t under the policy p, a
// vote: it refuses an approver outside p's groups, an approval without
// a reason p wants, and a second vote of one person; d.Vote says what
// the vote does as the journal stands now, and d.Message is what is sent
// if it completes the policy.
func (s *Service) prepareVote(d *Decision, t *model.Task, p Policy) error {
	if !p.mayVote(s.o.Groups[d.Approver]) {
		return fmt.Errorf("%w (%s: %s)", ErrNotApprover, d.Approver, groupWords(p.Approvers))
	}
	if d.Kind == KindApprove && p.RequireReason && d.Reason == "" {
		return ErrApprovalReason
	}
	s.mu.Lock()
	vs := s.voteState(s.book.idOf(d.Agent), d.TaskID, d.Prompt, p, p.RequiredOf(t), s.o.Now())
	s.mu.Unlock()
	if err := votedErr(vs, p, d.Approver); err != nil {
		return err
	}
	tally := tallyOf(vs, p, d.Kind, Voter{Name: d.Approver, At: d.At, Reason: d.Reason})
	d.Vote = &tally
	m, err := s.voteMessage(d)
	if err != nil {
		return err
	}
	d.Message = m
	return nil
}

func groupWords(groups []string) string {
	return "only " + strings.Join(groups, ", ") + " may vote; groups = [...] on the [[operator]] gives the group"
}

// votedErr refuses approver's second vote on the prompt, unless the
// policy lets one person's votes count more than once.
func votedErr(vs VoteState, p Policy, approver string) error {
	if p.Repeat {
		return nil
	}
	if v, kind, ok := vs.Voted(approver); ok {
		what := "approved"
		if kind == KindDeny {
			what = "denied"
		}
		return fmt.Errorf("%w (you %s at %s); the others' votes decide the rest", ErrAlreadyVoted, what, v.At.Local().Format("15:04:05"))
	}
	return nil
}

// voteMessage builds the approve or deny d sends if it completes the
// policy: every counted voter of its side named in the data part, d's
// approver last at d's time.
func (s *Service) voteMessage(d *Decision) (*a2a.Message, error) {
	votes := append([]Voter(nil), d.Vote.Votes...)
	if n := len(votes); n > 0 {
		votes[n-1].At = d.At
	}
	v := DecisionValues{Approve: d.Kind == KindApprove, Reason: d.Reason, Approver: d.Approver, At: d.At, Approvers: votes}
	return BuildDecision(d.snap, v, s.o.Templates[d.Agent], d.MessageID)
}

// sendVote is Send for a vote: under the journal's hold it counts the
// votes again and records this one, and, when it completes the policy,
// the decision it sends in the same hold; that decision then goes out
// as any other (at most once). A vote that does not complete the policy
// is ResultVoted: nothing is sent.
func (s *Service) sendVote(ctx context.Context, d *Decision) Outcome {
	out := Outcome{MessageID: d.MessageID, Agent: d.Agent, TaskID: d.TaskID, Kind: d.Kind}
	if p, err := s.claimVote(d); err != nil {
		return s.refuseOver(out, d, p, err)
	}
	defer s.releaseVote(d)
	c, p, err := s.commitVote(d)
	if err != nil {
		return s.refuseOver(out, d, p, err)
	}
	t := *c.Vote
	out.Votes = &t
	if !t.Complete {
		out.Result = ResultVoted
		return out
	}
	s.mu.Lock()
	s.inFlightPrompt[s.promptOf(c)] = c.MessageID
	s.mu.Unlock()
	return s.deliver(ctx, c, out)
}

// claimVote marks the vote in flight in this process; other votes on the
// prompt are counted under the journal's hold, one after the other.
func (s *Service) claimVote(d *Decision) (Problem, error) {
	if d.Message == nil || d.MessageID == "" || d.Message.ID != d.MessageID || d.Vote == nil || d.snap == nil {
		return ProblemRejected, fmt.Errorf("send: the vote is incomplete; build it with Prepare")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight[d.MessageID] {
		return ProblemInFlight, fmt.Errorf("send: vote %s is being sent already", d.MessageID)
	}
	s.inFlight[d.MessageID] = true
	return ProblemNone, nil
}

func (s *Service) releaseVote(d *Decision) {
	s.mu.Lock()
	delete(s.inFlight, d.MessageID)
	if s.inFlightPrompt[s.promptOf(d)] == d.MessageID {
		delete(s.inFlightPrompt, s.promptOf(d))
	}
	s.mu.Unlock()
}

// commitVote records the vote, and the decision when it completes the
// policy, under the store's exclusive hold, after reading what the
// others appended: the journal as it is then decides what the vote
// does. It returns the decision as recorded (its Vote and Message built
// from the votes then).
func (s *Service) commitVote(d *Decision) (*Decision, Problem, error) {
	p, _ := s.policyOf(d.Agent)
	c := *d
	prob := ProblemNone
	err := s.appendChecked(func() ([]record, error) {
		var err error
		if prob, err = s.admitVote(&c, p); err != nil {
			return nil, err
		}
		vote := record{Type: recVote, ID: c.MessageID, At: c.At, Agent: c.Agent, Task: c.TaskID, Kind: c.Kind, Prompt: c.Prompt,
			State: c.State, Reason: c.Reason, Approver: c.Approver}
		if !c.Vote.Complete {
			return []record{vote}, nil
		}
		dec := record{Type: recDecision, ID: c.MessageID, At: c.At, Agent: c.Agent, Task: c.TaskID, Context: c.ContextID,
			Kind: c.Kind, Prompt: c.Prompt, State: c.State, Parts: c.Message.Parts, Reason: c.Reason, Approver: c.Approver,
			Attempt: 1, Votes: c.Vote.Votes, Host: s.host, PID: os.Getpid(), Svc: s.id, Until: s.o.Now().UTC().Add(2*s.o.SendTimeout + sendMargin)}
		return []record{vote, dec}, nil
	})
	if err != nil && prob == ProblemNone {
		prob = ProblemJournal
	}
	return &c, prob, err
}

// admitVote refuses the vote c on the journal as it is now, and makes
// c's tally and message the journal's. Callers hold s.mu.
func (s *Service) admitVote(c *Decision, p Policy) (Problem, error) {
	if dm := s.blocked(s.book.idOf(c.Agent)); dm != nil {
		return ProblemDamaged, damagedErr(dm)
	}
	if _, recorded := s.entries[c.MessageID]; recorded || s.hasVote(c) {
		return ProblemInFlight, fmt.Errorf("send: vote %s was recorded already", c.MessageID)
	}
	if ids := s.byPrompt[s.promptOf(c)]; len(ids) > 0 {
		last := s.entries[ids[len(ids)-1]]
		// A decision the agent never took (refused, nothing delivered)
		// may be voted again, by those who confirm over it: a new round.
		if !c.Again || c.PriorID != last.MessageID || last.Result != ResultRefused {
			return ProblemDecided, &decidedError{is: ErrAlreadyDecided, words: WinnerOf(copyEntry(last)).Words() + "; your vote was not recorded"}
		}
	}
	vs := s.voteState(s.book.idOf(c.Agent), c.TaskID, c.Prompt, p, c.Vote.Required, s.o.Now())
	if err := votedErr(vs, p, c.Approver); err != nil {
		return ProblemVoted, err
	}
	t := tallyOf(vs, p, c.Kind, Voter{Name: c.Approver, At: c.At, Reason: c.Reason})
	c.Vote = &t
	m, err := s.voteMessage(c)
	if err != nil {
		return ProblemRejected, err
	}
	c.Message = m
	return ProblemNone, nil
}

// hasVote reports whether the journal holds a vote with c's id. Callers
// hold s.mu.
func (s *Service) hasVote(c *Decision) bool {
	tv := s.votes[taskRef{s.book.idOf(c.Agent), c.TaskID}]
	if tv == nil {
		return false
	}
	for _, v := range tv.list {
		if v.id == c.MessageID {
			return true
		}
	}
	return false
}
