package inbox

import (
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/theme"
)

// confirm is the "send this?" dialog. It shows the whole payload and
// accepts "y" only once armed: after the quiet period with no keypress.
type confirm struct {
	d      *approvals.Decision
	key    model.TaskKey
	answer common.Confirm
	prior  *approvals.Entry // the prompt's earlier decision, when this is a second one
	from   mode             // where n/esc returns to
	// ask is the question being decided (the task's status message),
	// shown above what will be sent; nil when the task asks nothing now.
	ask *a2a.Message
	// via is the chain's root the decision was taken on, when the task
	// it goes to is the end of that chain.
	via model.TaskKey
	// elsewhere says who answered the prompt from another process while
	// the dialog was open: then y sends nothing.
	elsewhere string
	// claims says who else on the team is at work on the task ("bob is
	// answering"); it informs, y still sends.
	claims string
	// reach warns that the agent cannot be reached now (reachWords).
	reach string
	// vote is, for a vote under an approval policy, what it does as the
	// journal stands when the dialog is drawn (votes.go); nil for one click.
	vote *approvals.Tally
}

// newConfirm opens the dialog for d, armed after the service's quiet
// period, and returns the Cmd that redraws it when it arms.
func newConfirm(svc *approvals.Service, keys KeyMap, d *approvals.Decision, k model.TaskKey, prior *approvals.Entry, now time.Time) (*confirm, tea.Cmd) {
	answer, wake := common.NewConfirm(keys.Confirm, keys.Decline, svc.QuietPeriod(), now)
	return &confirm{d: d, key: k, prior: prior, answer: answer, vote: d.Vote}, wake
}

// warnReach notes in the dialog that its agent cannot be reached now.
func (c *confirm) warnReach(f *model.Fleet) *confirm {
	c.reach = reachWords(f, c.d.Agent, c.d.Kind)
	return c
}

// title says what will be sent.
func (c *confirm) title() string {
	if c.d.Attempt > 1 {
		return "Send this " + string(c.d.Kind) + " again?"
	}
	switch c.d.Kind {
	case approvals.KindApprove:
		return "Approve this request?"
	case approvals.KindDeny:
		return "Deny this request?"
	case approvals.KindFollowUp:
		if strings.HasPrefix(c.d.Prompt, "follow-up-of:") {
			return "Send this follow-up? It starts a new task."
		}
		return "The task ended first. Send as a follow-up task?"
	case approvals.KindMessage:
		return "Send this message to " + sanitize.Line(c.d.Agent, 40) + "? It starts a new task."
	}
	return "Send this reply?"
}

// view draws the dialog within w columns and, when it can, h lines: the
// task it goes to, the question being decided, the ids, then what will
// be sent. When that does not fit, the ids shrink to a line, then the
// payload is cut in the middle with a line that says how much more will
// be sent, then the question, so that the task, the question and the
// answer keys stay on screen.
func (c *confirm) view(th *theme.Theme, w, h int, now time.Time) string {
	inner := max(w-4, 20)
	var head []string
	head = append(head, th.DialogTitle.Render(c.title()))
	head = append(head, c.voteLines(th, inner)...)
	if c.prior != nil {
		head = append(head, strings.Split(th.Warn.Render(wrapText(line(c.priorWords()), inner)), "\n")...)
	}
	if c.elsewhere != "" {
		head = append(head, strings.Split(th.Error.Render(wrapText(line(c.elsewhere+" — nothing is sent from here"), inner)), "\n")...)
	}
	if c.reach != "" {
		head = append(head, strings.Split(th.Warn.Render(wrapText(line(c.reach), inner)), "\n")...)
	}
	if c.claims != "" {
		head = append(head, th.Warn.Render(sanitize.Line(c.claims+" (a claim informs; y still sends)", inner)))
	}
	head = append(head, strings.Split(wrapText(line(c.to()), inner), "\n")...)
	ask := c.question(th, inner)
	ids := strings.Split(th.Muted.Render(wrapText(line(c.ids()), inner)), "\n")
	parts := strings.Split(renderParts(th, c.d.Message.Parts, inner), "\n")
	sends := th.Label.Render(c.sendsLabel())
	if (c.d.Kind == approvals.KindApprove || c.d.Kind == approvals.KindDeny) && c.d.Attempt <= 1 { // a retry is the message as it was
		sends += th.Muted.Render(` ("at": when you confirm)`)
	}
	keys := c.answer.Hint(th, now, c.yesWord(), "back")
	if c.elsewhere != "" { // y sends nothing now
		keys = th.Muted.Render(c.answer.No.Help().Key + ": back")
	}
	// The keys' lines as the dialog wraps them; then the room between the
	// borders, the head, "sends:" and the keys.
	keyLines := strings.Count(lipgloss.NewStyle().Width(inner).Render(keys), "\n") + 1
	room := h - 2 - len(head) - 1 - keyLines
	if len(ask)+len(ids)+len(parts) > room && len(ids) > 1 {
		ids = []string{th.Muted.Render(sanitize.Line(line(c.ids()), inner))}
	}
	// What is left is shared: the question keeps at least a third of it
	// (its first lines are what is decided), the payload the rest.
	if avail := room - len(ids); len(ask)+len(parts) > avail {
		askKeep := min(len(ask), max(avail-len(parts), avail/3, 1))
		if askKeep < len(ask) {
			ask = append(ask[:max(askKeep-1, 1)], th.Muted.Render(fitting(inner,
				"… the rest of the question is in the task's detail", "… more in the task's detail")))
		}
		if keep := max(avail-len(ask), 2); keep < len(parts) {
			more := len(parts) - keep + 1
			parts = append(parts[:keep-1], th.Warn.Render(fitting(inner,
				fmt.Sprintf("… %d more lines of the payload do not fit here; all of it is sent%s", more, c.when()),
				fmt.Sprintf("… %d more lines not shown; all are sent%s", more, c.when()))))
		}
	}
	body := append(append(append(head, ask...), ids...), sends)
	body = append(append(body, parts...), keys)
	return th.Dialog.Width(max(w-2, 10)).Render(strings.Join(body, "\n"))
}

// priorWords names the earlier decision: the one a retry sends again
// as it was (its approver's message, whoever sends it again), or the
// one a second decision follows.
func (c *confirm) priorWords() string {
	p := c.prior
	when := p.DecidedAt.UTC().Format("15:04:05Z")
	if c.d.Attempt <= 1 {
		return fmt.Sprintf("already decided: %s by %s at %s (%s) — this sends a second decision", p.Kind, p.Approver, when, p.Result)
	}
	s := fmt.Sprintf("sends again %s's %s of %s (%s), the same message and messageId", p.Approver, p.Kind, when, p.Result)
	if c.d.SentBy != "" && c.d.SentBy != p.Approver {
		s += " — it stays " + p.Approver + "'s decision; the journal records that " + c.d.SentBy + " sent it again"
	}
	return s
}

// fitting is the first of texts that fits in w cells on one line (a
// line that wrapped would push the dialog's keys off the screen), else
// the last cut to w.
func fitting(w int, texts ...string) string {
	for _, t := range texts {
		if ansi.StringWidth(t) <= w {
			return t
		}
	}
	return sanitize.Line(texts[len(texts)-1], w)
}

// to names the task the decision goes to, and when it was taken on the
// chain's root, that this task is the end of the root's chain.
func (c *confirm) to() string {
	if c.d.Kind == approvals.KindMessage {
		return fmt.Sprintf("to %s · a new task in a new context", c.d.Agent)
	}
	if c.d.Kind == approvals.KindFollowUp {
		return fmt.Sprintf("to %s · new task in context %s, naming %s", c.d.Agent, c.d.ContextID, model.ShortID(c.d.TaskID))
	}
	s := "to " + keyName(model.TaskKey{Agent: c.d.Agent, ID: c.d.TaskID}) + " · " + model.ShortState(c.d.State)
	if c.via != (model.TaskKey{}) {
		s += " — the end of " + keyName(c.via) + "'s chain, the task that asks"
	}
	return s
}

// question is the question being decided, its first line led by "asks:".
func (c *confirm) question(th *theme.Theme, w int) []string {
	if c.ask == nil || len(c.ask.Parts) == 0 {
		return nil
	}
	label := "asks: "
	lines := strings.Split(renderParts(th, c.ask.Parts, max(w-len(label), 10)), "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = th.Label.Render(label) + lines[i]
		} else {
			lines[i] = strings.Repeat(" ", len(label)) + lines[i]
		}
	}
	return lines
}

// ids are the message's ids as sent.
func (c *confirm) ids() string {
	m := c.d.Message
	tid := string(m.TaskID)
	if tid == "" {
		tid = "(new task)"
	}
	cid := m.ContextID
	if cid == "" {
		cid = "(new context)"
	}
	ids := fmt.Sprintf("taskId %s · contextId %s · messageId %s · role user", tid, cid, m.ID)
	for _, r := range m.ReferenceTasks {
		ids += " · referenceTaskIds " + string(r)
	}
	return ids
}
