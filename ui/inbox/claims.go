package inbox

import (
	"context"
	"log/slog"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// On a team's hub (Context.Team) the inbox takes a soft claim on the task
// its reply editor, deny reason or confirmation is open on ("alice is
// answering"), renews it while the dialog stays open and releases it when
// the dialog closes; it shows the others' claims on the task's row, above
// its question and in the confirmation. A claim informs: it blocks no one,
// and y still sends. A decision the hub refused because another operator
// decided first says so on the task's row while it stays in the inbox.

// claimRenew is how often a claim held open is renewed: well within the
// two minutes after which the hub drops a claim nobody renewed.
const claimRenew = time.Minute

// claimTimeout bounds a claim's or a release's request.
const claimTimeout = 10 * time.Second

// teamInbox is the inbox's part of team mode. The zero value holds no
// claim.
type teamInbox struct {
	held   model.TaskKey // the task claimed, or zero
	what   string        // "answering", "approving", "denying"
	at     time.Time     // when it was taken or last renewed
	wasUp  bool          // the hub's feed was up at the last look
	refuse map[model.TaskKey]refusal
}

// refusal is what the hub said when it refused a decision on a prompt
// another operator had decided first.
type refusal struct{ prompt, words string }

// Update handles fleet changes, the clock, results and keys, then takes,
// renews or releases the claim the open dialog stands for.
func (m *Inbox) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	switch msg.(type) {
	case common.ReplyToMsg, common.DecideMsg: // asked from another screen
		m.answering = true
	case common.HiddenMsg:
		m.answering = false
	}
	c, cmd := m.update(msg)
	if m.answering && m.mode == modeList { // answered, declined or refused: back where it was asked
		m.answering = false
		m.ctx.Out.Send(common.BackMsg{})
	}
	if claim := m.syncClaim(); claim != nil {
		cmd = tea.Batch(cmd, claim)
	}
	m.askClock()
	return c, cmd
}

// wantedClaim is the claim the open dialog stands for: the task and what
// the operator is doing to it; zero when no dialog on a task is open.
func (m *Inbox) wantedClaim() (model.TaskKey, string) {
	if m.target == (model.TaskKey{}) {
		return model.TaskKey{}, ""
	}
	switch m.mode {
	case modeEditor:
		return m.target, "answering"
	case modeReason:
		return m.target, "denying"
	case modeConfirm:
		if m.conf != nil {
			switch m.conf.d.Kind {
			case approvals.KindApprove:
				return m.target, "approving"
			case approvals.KindDeny:
				return m.target, "denying"
			case approvals.KindReply:
				return m.target, "answering"
			}
		}
	}
	return model.TaskKey{}, ""
}

// syncClaim brings the hub's claim in line with the open dialog: a
// release for the one closed, a claim for the one opened (or that now
// says another thing), a renewal every claimRenew, and again when the
// hub's feed came back (the hub may have restarted and forgotten it).
func (m *Inbox) syncClaim() tea.Cmd {
	tm := m.ctx.Team
	if tm == nil {
		return nil
	}
	t := &m.team
	up, _ := tm.Connected()
	back := up && !t.wasUp
	t.wasUp = up
	k, what := m.wantedClaim()
	now := m.ctx.Now()
	log := m.ctx.Logger()
	var cmds []tea.Cmd
	if t.held != (model.TaskKey{}) && t.held != k {
		cmds = append(cmds, releaseCmd(tm, t.held, log))
		t.held, t.what = model.TaskKey{}, ""
	}
	if k != (model.TaskKey{}) && (k != t.held || what != t.what || back || now.Sub(t.at) >= claimRenew) {
		cmds = append(cmds, claimCmd(tm, k, what, log))
		t.held, t.what, t.at = k, what, now
	}
	return tea.Batch(cmds...)
}

// claimCmd takes or renews a claim. A claim that fails is logged, not
// said: it only informs, and the hub unreachable has its own banner.
func claimCmd(tm common.Team, k model.TaskKey, what string, log *slog.Logger) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
		defer cancel()
		if err := tm.Claim(ctx, k.Agent, k.ID, what); err != nil {
			log.Info("claim not taken", "agent", k.Agent, "task", string(k.ID), "what", what, "err", err)
		}
		return nil
	}
}

// releaseCmd ends a claim.
func releaseCmd(tm common.Team, k model.TaskKey, log *slog.Logger) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
		defer cancel()
		if err := tm.Release(ctx, k.Agent, k.ID); err != nil {
			log.Info("claim not released (the hub drops it when idle)", "agent", k.Agent, "task", string(k.ID), "err", err)
		}
		return nil
	}
}

// claimWords says who else is at work on task k; "" without a hub or
// when nobody else is.
func (m *Inbox) claimWords(k model.TaskKey) string {
	if m.ctx.Team == nil {
		return ""
	}
	return m.ctx.Team.ClaimWords(k.Agent, k.ID)
}

// noteRefusal keeps, for the task's row, the words of a decision the hub
// refused because another operator decided the prompt first.
func (m *Inbox) noteRefusal(msg SentMsg) {
	o := msg.Outcome
	if o.Winner == nil { // only a hub names the winner
		return
	}
	it := m.find(msg.Key)
	if it == nil {
		return
	}
	if m.team.refuse == nil {
		m.team.refuse = map[model.TaskKey]refusal{}
	}
	m.team.refuse[msg.Key] = refusal{prompt: it.Prompt, words: "your " + string(o.Kind) + " was refused: " + o.Words()}
}

// refusedWords are the words of the hub's refusal on the prompt it
// shows now; "" when the journal already says who answered it.
func (m *Inbox) refusedWords(it approvals.Item) string {
	r, ok := m.team.refuse[it.Key()]
	if !ok || r.prompt != it.Prompt || it.AnsweredElsewhere() != "" {
		return ""
	}
	return r.words
}

// teamRowWords is what a row says of the team before its text: who else
// is at work on it, the hub's refusal of a decision on it.
func (m *Inbox) teamRowWords(it approvals.Item) string {
	w := m.claimWords(it.Key())
	if r := m.refusedWords(it); r != "" {
		if w != "" {
			w += " · "
		}
		w += r
	}
	return w
}

// teamLines say, under the question, who else is at work on the task
// (for a chain's root or middle, on the task at its end, which takes the
// answer) and what the hub said of a decision on it.
func (m *Inbox) teamLines(it approvals.Item) []string {
	th := m.ctx.Theme
	var lines []string
	k := it.Key()
	if !it.Actionable && it.Leaf != nil {
		k = it.Leaf.Key
	}
	if w := m.claimWords(k); w != "" {
		lines = append(lines, th.Warn.Render(sanitize.Line(w+" — a claim informs, it does not block", m.w)))
	}
	if r := m.refusedWords(it); r != "" {
		lines = append(lines, th.Error.Render(sanitize.Line(r, m.w)))
	}
	return lines
}

// teamAnswerHelp is the help's answer keys: on a hub, only those the
// operator's roles allow on some agent.
func (m *Inbox) teamAnswerHelp() []key.Binding {
	k := m.keys
	if m.ctx.Team == nil {
		return []key.Binding{k.Reply, k.Approve, k.Deny}
	}
	approve := m.ctx.MayAnywhere(common.RoleApprove)
	return []key.Binding{common.Offer(k.Reply, approve || m.ctx.MayAnywhere(common.RoleAnswer)),
		common.Offer(k.Approve, approve), common.Offer(k.Deny, approve)}
}
