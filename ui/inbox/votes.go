package inbox

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/theme"
)

// Votes. Under an agent's approval policy (approvals.Policy) an approve
// or a deny is a vote: the row shows where the votes stand (`1 of 2 ·
// alice 14:02 "rollout window ok"`), the selected task lists them, a
// approves asks for the reason first, the confirmation says whether
// the vote sends ("your vote completes the approval: it will be sent")
// or not ("your vote is 1 of 2: nothing is sent yet"), and a person who
// voted already is told so instead of voting again.

// votesRow is the row's votes, "" for none.
func (m *Inbox) votesRow(it approvals.Item) string {
	if !it.Actionable {
		return ""
	}
	return m.svc.VotesOn(it).Row()
}

// voteLines list, under the selected task's question, the votes on its
// prompt: how many of how many, each vote with who, when and why, and
// the votes dropped when the prompt changed or left by vote_ttl.
func (m *Inbox) voteLines(it approvals.Item) []string {
	vs := m.svc.VotesOn(it)
	if !vs.Policy {
		return nil
	}
	th := m.ctx.Theme
	head := fmt.Sprintf("votes: %d of %d approvals", len(vs.Approvals), vs.Required)
	if vs.Required <= 1 {
		head = "votes: one approval sends"
	}
	lines := []string{th.Label.Render(sanitize.Line(head, m.w))}
	for _, v := range vs.Approvals {
		lines = append(lines, sanitize.Line("  ✓ "+v.Words("approved"), m.w))
	}
	for _, v := range vs.Denials {
		lines = append(lines, sanitize.Line("  ✗ "+v.Words("denied"), m.w))
	}
	if vs.Dropped > 0 {
		lines = append(lines, th.Warn.Render(sanitize.Line(droppedWords(vs.Dropped), m.w)))
	}
	if vs.Expired > 0 {
		lines = append(lines, th.Muted.Render(sanitize.Line(fmt.Sprintf("  %d older %s no longer count (vote_ttl)", vs.Expired, plural(vs.Expired, "vote", "votes")), m.w)))
	}
	if v, kind, ok := vs.Voted(m.svc.Approver()); ok {
		lines = append(lines, th.Muted.Render(sanitize.Line(fmt.Sprintf("you %s at %s: your vote counts once", kindWord(kind), v.At.Local().Format("15:04")), m.w)))
	}
	return lines
}

func droppedWords(n int) string {
	return fmt.Sprintf("the prompt changed while votes were open: %d %s for the earlier question %s dropped",
		n, plural(n, "vote", "votes"), plural(n, "was", "were"))
}

func kindWord(k approvals.Kind) string {
	if k == approvals.KindDeny {
		return "denied"
	}
	return "approved"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// approveVote is the approve key under a policy: it refuses, in words, a
// second vote of the person at the keys, and otherwise asks for the
// reason (required or optional as the policy says) before the
// confirmation. It reports false for an agent whose approvals are one
// click.
func (m *Inbox) approveVote(it approvals.Item) (tea.Cmd, bool) {
	p, ok := m.svc.Policy(it.Task.Key.Agent)
	if !ok {
		return nil, false
	}
	if m.votedAlready(it) {
		return nil, true
	}
	m.target, m.tstate, m.tprompt = it.Key(), it.Task.State, it.Prompt
	m.openReasonAs(approvals.KindApprove, p.RequireReason)
	return nil, true
}

// openReasonAs opens the reason of an approve or deny for m.target.
func (m *Inbox) openReasonAs(kind approvals.Kind, required bool) {
	m.openReasonFor()
	m.reasonKind = kind
	if kind == approvals.KindApprove {
		m.reason.Placeholder = "why? (optional: the approvers named in the approval carry it)"
		if required {
			m.reason.Placeholder = "why? (required by this agent's approval policy)"
		}
	}
}

// reasonTitle is the title above the reason input.
func (m *Inbox) reasonTitle() string {
	if m.reasonKind == approvals.KindApprove {
		return "Approve: say why"
	}
	return "Deny: say why"
}

// voteLines say, in the confirmation of a vote, what it does and the
// votes it joins.
func (c *confirm) voteLines(th *theme.Theme, w int) []string {
	t := c.vote
	if t == nil {
		return nil
	}
	words := t.Words()
	if n := len(t.Votes); n > 1 {
		var with []string
		for _, v := range t.Votes[:n-1] {
			with = append(with, v.Name+" "+v.At.Local().Format("15:04"))
		}
		words += " (with " + strings.Join(with, ", ") + ")"
	}
	style := th.Warn
	if t.Complete {
		style = th.Label
	}
	return strings.Split(style.Render(wrapText(line(words), w)), "\n")
}

// sendsLabel is what the payload's label says: a vote that does not
// complete the policy sends nothing now.
func (c *confirm) sendsLabel() string {
	if c.vote != nil && !c.vote.Complete {
		return "sends, once the votes are complete:"
	}
	return "sends:"
}

// newReasonInput is a text input for a reason.
func newReasonInput(w int, placeholder string) textinput.Model {
	ti := textinput.New()
	ti.Placeholder = placeholder
	ti.Prompt = "reason: "
	ti.Width = max(w-12, 10)
	ti.Cursor.SetMode(cursor.CursorStatic)
	ti.Focus()
	return ti
}

// votedAlready refuses, in words, a vote the person at the keys may not
// cast on the item's prompt (outside the policy's groups, or voted on it
// already) before a reason is written; it reports whether it did.
func (m *Inbox) votedAlready(it approvals.Item) bool {
	err := m.svc.MayVote(it)
	if err != nil {
		m.ctx.Warn(err.Error() + "; nothing was sent")
	}
	return err != nil
}

// yesWord is what y does: a vote that does not complete the policy
// records the vote and sends nothing.
func (c *confirm) yesWord() string {
	if c.vote != nil && !c.vote.Complete {
		return "vote"
	}
	return "send"
}

// votesLine lists, in the journal, the votes a decision counted:
// `alice 14:02 "rollout window ok", bob 14:05`.
func votesLine(votes []approvals.Voter) string {
	parts := make([]string, len(votes))
	for i, v := range votes {
		parts[i] = v.Signed()
	}
	return strings.Join(parts, ", ")
}

// liveVote is what the confirmation's vote does as the journal stands
// now: another approver's vote while the dialog is open may make it the
// one that completes the policy (Send counts again when it records it).
func (c *confirm) liveVote(svc *approvals.Service) {
	if t, ok := svc.VoteNow(c.d); ok {
		c.vote = &t
	}
}

// batchVotes reports whether an approval of the marked tasks keys is a
// vote on any of them (it then asks its one reason first), and whether
// one of their policies requires the reason.
func (m *Inbox) batchVotes(keys []model.TaskKey) (voted, required bool) {
	for _, k := range keys {
		if p, ok := m.svc.Policy(k.Agent); ok {
			voted, required = true, required || p.RequireReason
		}
	}
	return voted, required
}

// when is when the payload is sent: "" (on y), or, for a vote that does
// not complete the policy, once the votes are.
func (c *confirm) when() string {
	if c.vote != nil && !c.vote.Complete {
		return " once the votes are complete"
	}
	return ""
}

// batchVoteWords lead a task's row in the confirmation of an answer for
// many: under a policy, whether its vote sends ("[vote 1 of 2: not sent
// yet] ", "[vote completes: sent] "); "" for one click.
func batchVoteWords(d *approvals.Decision) string {
	t := d.Vote
	switch {
	case t == nil:
		return ""
	case t.Complete:
		return "[vote completes: sent] "
	}
	return fmt.Sprintf("[vote %d of %d: not sent yet] ", len(t.Votes), t.Required)
}
