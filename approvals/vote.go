package approvals

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Votes. Under an agent's Policy (Options.Policies) an approve or a deny
// of an AUTH_REQUIRED prompt is a vote: a "vote" record in the journal
// (who, when, the prompt, the reason), written under the journal's
// exclusive hold after reading what the others appended, so that two
// processes counting the same votes agree. The vote that completes the
// policy is written with the decision it sends, in one hold: that
// decision is then journaled and sent like any other, at most once.
// Votes are for one prompt: when the task asks something else, the
// votes for the earlier question no longer count (they are dropped, and
// VoteState says so).

// Voter is one counted vote as the approval names it: who, when, why.
type Voter struct {
	Name   string    `json:"name"`
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
}

// Signed is the vote as a list of votes names it, in local time:
// `alice 14:02 "rollout window ok"`.
func (v Voter) Signed() string { return v.Name + " " + v.when() }

// Words is the vote in words, what saying what it did ("approved",
// "denied"): `alice approved 14:02 "rollout window ok"`.
func (v Voter) Words(what string) string { return v.Name + " " + what + " " + v.when() }

// when is the vote's time (local) and its reason: `14:02 "rollout
// window ok"`.
func (v Voter) when() string {
	s := v.At.Local().Format("15:04")
	if v.Reason != "" {
		s += " " + strconv.Quote(v.Reason)
	}
	return s
}

// Tally is where the votes of a prompt stand for one vote: the side it
// is on, the votes counted on that side with it (it last), how many are
// needed, and whether it completes the policy (and so is sent).
type Tally struct {
	Kind     Kind    `json:"kind"`
	Votes    []Voter `json:"votes"`
	Required int     `json:"required"`
	Complete bool    `json:"complete"`
}

// Words says what the vote does: "your vote completes the approval: it
// will be sent", or "your vote is 1 of 2: nothing is sent yet".
func (t Tally) Words() string {
	what := "approval"
	if t.Kind == KindDeny {
		what = "denial"
	}
	if t.Complete {
		return "your vote completes the " + what + ": it will be sent"
	}
	return fmt.Sprintf("your vote is %d of %d: nothing is sent yet", len(t.Votes), t.Required)
}

// Names lists the voters, "alice, bob".
func (t Tally) Names() string {
	names := make([]string, len(t.Votes))
	for i, v := range t.Votes {
		names[i] = v.Name
	}
	return strings.Join(names, ", ")
}

// VoteState is where the votes of the prompt an inbox item shows stand.
type VoteState struct {
	// Policy is true when the agent's approvals are votes.
	Policy bool
	// Required is how many approvals the prompt needs.
	Required int
	// Approvals and Denials are the votes that count, oldest first.
	Approvals, Denials []Voter
	// Expired is how many votes on this prompt no longer count (older
	// than vote_ttl).
	Expired int
	// Dropped is how many votes were for an earlier prompt of the task:
	// it asks something else now, and they no longer count.
	Dropped int
}

// Row is the inbox's line for the votes: `1 of 2 · alice 14:02 "rollout
// window ok"` (the latest vote, local time), "" when there is nothing
// to show.
func (v VoteState) Row() string {
	if !v.Policy || v.Required <= 1 && len(v.Approvals)+len(v.Denials) == 0 {
		return ""
	}
	s := fmt.Sprintf("%d of %d", len(v.Approvals), v.Required)
	if n := len(v.Denials); n > 0 {
		s += fmt.Sprintf(", %d denied", n)
	}
	if last, ok := v.latest(); ok {
		s += " · " + last.Name + " " + last.At.Local().Format("15:04")
		if last.Reason != "" {
			s += " " + strconv.Quote(cut(last.Reason))
		}
	}
	if v.Dropped > 0 {
		s += fmt.Sprintf(" · the prompt changed: %d earlier %s dropped", v.Dropped, plural(v.Dropped, "vote", "votes"))
	}
	return s
}

func (v VoteState) latest() (Voter, bool) {
	var out Voter
	for _, l := range [][]Voter{v.Approvals, v.Denials} {
		for _, x := range l {
			if x.At.After(out.At) {
				out = x
			}
		}
	}
	return out, out.Name != ""
}

// Voted is the counted vote of approver, if any.
func (v VoteState) Voted(approver string) (Voter, Kind, bool) {
	for _, x := range v.Approvals {
		if x.Name == approver {
			return x, KindApprove, true
		}
	}
	for _, x := range v.Denials {
		if x.Name == approver {
			return x, KindDeny, true
		}
	}
	return Voter{}, "", false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// The refusals of a vote.
var (
	// ErrAlreadyVoted refuses a second vote of one person on a prompt.
	ErrAlreadyVoted = errors.New("you voted on this prompt already: a person's vote counts once")
	// ErrNotApprover refuses a vote from outside the policy's groups.
	ErrNotApprover = errors.New("you are not in a group that may vote on this agent's approvals")
	// ErrApprovalReason refuses an approval without a reason under a
	// policy that wants one.
	ErrApprovalReason = errors.New("this agent's approvals must say why: write a reason")
	// ErrVoteNeeded refuses a reply to a prompt whose approval is voted.
	ErrVoteNeeded = errors.New("this prompt's approval is voted: approve or deny it; a reply would go around the vote")
)

// The problem and result of votes.
const (
	// ProblemVoted: the operator voted on the prompt already, or may not
	// vote on it; nothing was recorded or sent.
	ProblemVoted Problem = "vote-refused"
	// ResultVoted: the vote is recorded and does not complete the
	// policy: nothing was sent.
	ResultVoted Result = "voted"
)

// voteWords explains a vote's result and problem.
func voteWords(r Result, p Problem) (words, bool) {
	switch {
	case r == ResultVoted:
		return words{"your vote is recorded; nothing is sent until the policy is complete", "wait for the other approvers"}, true
	case p == ProblemVoted:
		return words{"your vote was refused; nothing was recorded or sent", "another approver decides the rest"}, true
	}
	return words{}, false
}

// voteRec is a vote as the Service keeps it.
type voteRec struct {
	Voter
	id   string
	kind Kind
	rec  record // as journaled: a new segment restates it (segment_carry.go)
}

// taskVotes are the votes on a task's prompt: the latest prompt voted
// on, its votes in journal order, and how many votes for an earlier
// prompt were dropped when this one was first voted on.
type taskVotes struct {
	prompt  string
	list    []voteRec
	dropped int
}

// noteVote folds a vote record. Callers hold s.mu.
func (s *Service) noteVote(r record) {
	ref := taskRef{s.book.resolve(r.Agent, r.URL, r.Tenant).id, r.Task}
	tv := s.votes[ref]
	if tv == nil || tv.prompt != r.Prompt {
		dropped := 0
		if tv != nil {
			dropped = len(tv.list)
			s.letVotesGo(ref)
		}
		tv = &taskVotes{prompt: r.Prompt, dropped: dropped}
		s.votes[ref] = tv
	}
	if r.Carried > 0 && tv.has(r.ID, r.Approver) { // restated, and read where it was first written too
		return
	}
	tv.list = append(tv.list, voteRec{Voter: Voter{Name: r.Approver, At: r.At, Reason: r.Reason}, id: r.ID, kind: r.Kind, rec: r})
	s.voteIDs[r.ID] = true
	s.touched.add(r.Task)
	s.forgetVotes()
}

// holdsVote reports whether a vote the Service keeps (on a prompt still
// open to votes) has the id. Callers hold s.mu.
func (s *Service) holdsVote(id string) bool {
	return s.voteIDs[id]
}

// letVotesGo forgets the votes of a task (its prompt changed, it was
// decided, or memory let it go). Callers hold s.mu.
func (s *Service) letVotesGo(ref taskRef) {
	if tv := s.votes[ref]; tv != nil {
		for _, v := range tv.list {
			delete(s.voteIDs, v.id)
		}
	}
	delete(s.votes, ref)
}

// forgetVotes bounds the votes kept on prompts never decided (a task
// that ended or asked no more before its policy was complete) as forget
// bounds the entries: past the memory bound by a quarter, the tasks
// whose latest vote is oldest are let go. Callers hold s.mu.
func (s *Service) forgetVotes() {
	limit := s.o.memoryLimit()
	if limit < 0 || len(s.votes) <= limit+limit/4 {
		return
	}
	type aged struct {
		ref taskRef
		at  time.Time
	}
	all := make([]aged, 0, len(s.votes))
	for ref, tv := range s.votes {
		all = append(all, aged{ref, tv.list[len(tv.list)-1].At})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].at.Before(all[j].at) })
	for _, a := range all[:len(all)-limit] {
		s.letVotesGo(a.ref)
	}
}

// dropVotes forgets the votes on a task once a decision on it is folded:
// the decision names those it counted. Callers hold s.mu.
func (s *Service) dropVotes(e *Entry) {
	if e.Kind == KindApprove || e.Kind == KindDeny {
		s.letVotesGo(taskRef{e.agentID, e.TaskID})
	}
}

// voteState counts the votes on a prompt of a task, as of now. Callers
// hold s.mu.
func (s *Service) voteState(agentID string, id a2a.TaskID, prompt string, p Policy, required int, now time.Time) VoteState {
	vs := VoteState{Policy: true, Required: required}
	tv := s.votes[taskRef{agentID, id}]
	if tv == nil {
		return vs
	}
	if tv.prompt != prompt {
		vs.Dropped = len(tv.list)
		return vs
	}
	vs.Dropped = tv.dropped
	seen := map[string]bool{}
	for _, v := range tv.list {
		switch {
		case p.VoteTTL > 0 && now.Sub(v.At) > p.VoteTTL:
			vs.Expired++
		case !p.Repeat && seen[v.Name]:
		case v.kind == KindDeny:
			vs.Denials = append(vs.Denials, v.Voter)
		default:
			vs.Approvals = append(vs.Approvals, v.Voter)
		}
		if p.VoteTTL == 0 || now.Sub(v.At) <= p.VoteTTL {
			seen[v.Name] = true
		}
	}
	return vs
}

// VotesOn is where the votes of the prompt the item shows stand; the
// zero VoteState (Policy false) for an agent whose approvals are not
// voted or a task that does not ask for one.
func (s *Service) VotesOn(it Item) VoteState {
	t := it.Task
	if t == nil || t.Snapshot == nil || t.State != a2a.TaskStateAuthRequired {
		return VoteState{}
	}
	p, ok := s.policyOf(t.Key.Agent)
	if !ok {
		return VoteState{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.voteState(s.book.idOf(t.Key.Agent), t.Key.ID, PromptOf(t.Snapshot), p, p.RequiredOf(t), s.o.Now())
}

// Policy is the approval policy of the agent called name, and whether
// its approvals are voted.
func (s *Service) Policy(agent string) (Policy, bool) { return s.policyOf(agent) }

func (s *Service) policyOf(agent string) (Policy, bool) {
	p, ok := s.o.Policies[agent]
	return p, ok && p.Voting()
}

// tally is what a vote of d's approver on d's side makes of vs.
func tallyOf(vs VoteState, p Policy, kind Kind, me Voter) Tally {
	t := Tally{Kind: kind, Required: vs.Required}
	side := vs.Approvals
	if kind == KindDeny {
		side = vs.Denials
	}
	t.Votes = append(append([]Voter(nil), side...), me)
	switch {
	case kind == KindDeny && !p.denyCounts():
		t.Complete = true // one denial is enough
	default:
		t.Complete = len(t.Votes) >= vs.Required
	}
	if kind == KindDeny && !p.denyCounts() {
		t.Required = 1
	}
	return t
}

// VoteNow is what the vote d would do as the journal stands now (other
// votes may have come since it was prepared), for a confirmation that
// stays open; false when d is not a vote. Send counts again under the
// journal's hold.
func (s *Service) VoteNow(d *Decision) (Tally, bool) {
	if d == nil || d.Vote == nil {
		return Tally{}, false
	}
	p, _ := s.policyOf(d.Agent)
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := s.voteState(s.book.idOf(d.Agent), d.TaskID, d.Prompt, p, d.Vote.Required, s.o.Now())
	return tallyOf(vs, p, d.Kind, Voter{Name: d.Approver, At: d.At, Reason: d.Reason}), true
}

// MayVote says why this Service's approver may not vote on the prompt
// the item shows (outside the policy's groups, or voted on it already),
// so that the inbox says so before a reason is written; nil when they
// may, or when the agent's approvals are not voted. Prepare and Send
// ask again.
func (s *Service) MayVote(it Item) error {
	t := it.Task
	p, ok := s.policyOf(t.Key.Agent)
	if !ok {
		return nil
	}
	if !p.mayVote(s.o.Groups[s.o.Approver]) {
		return fmt.Errorf("%w (%s: %s)", ErrNotApprover, s.o.Approver, groupWords(p.Approvers))
	}
	return votedErr(s.VotesOn(it), p, s.o.Approver)
}
