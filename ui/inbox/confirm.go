package inbox

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

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
}

// newConfirm opens the dialog for d, armed after the service's quiet
// period, and returns the Cmd that redraws it when it arms.
func newConfirm(svc *approvals.Service, keys KeyMap, d *approvals.Decision, k model.TaskKey, prior *approvals.Entry, now time.Time) (*confirm, tea.Cmd) {
	answer, wake := common.NewConfirm(keys.Confirm, keys.Decline, svc.QuietPeriod(), now)
	return &confirm{d: d, key: k, prior: prior, answer: answer}, wake
}

// title says what will be sent.
func (c *confirm) title() string {
	switch c.d.Kind {
	case approvals.KindApprove:
		return "Approve this request?"
	case approvals.KindDeny:
		return "Deny this request?"
	case approvals.KindFollowUp:
		return "The task ended first. Send as a follow-up task?"
	}
	return "Send this reply?"
}

// view draws the dialog within w columns and, when it can, h lines: a
// payload too long for the screen is cut in the middle with a line that
// says how much more will be sent, so the answer keys stay on screen.
func (c *confirm) view(th *theme.Theme, w, h int, now time.Time) string {
	inner := max(w-4, 20)
	var b strings.Builder
	b.WriteString(th.DialogTitle.Render(c.title()) + "\n")
	if c.prior != nil {
		b.WriteString(th.Warn.Render(sanitize.Line(fmt.Sprintf("already decided: %s by %s at %s (%s) — this sends a second decision",
			c.prior.Kind, c.prior.Approver, c.prior.DecidedAt.UTC().Format("15:04:05Z"), c.prior.Result), inner)) + "\n")
	}
	m := c.d.Message
	to := fmt.Sprintf("to %s · %s", c.d.Agent, model.ShortID(c.d.TaskID))
	if c.d.Kind == approvals.KindFollowUp {
		to = fmt.Sprintf("to %s · new task in context %s, naming %s", c.d.Agent, c.d.ContextID, model.ShortID(c.d.TaskID))
	}
	b.WriteString(wrapText(line(to), inner) + "\n")
	tid := string(m.TaskID)
	if tid == "" {
		tid = "(new task)"
	}
	ids := fmt.Sprintf("taskId %s · contextId %s · messageId %s · role user", tid, m.ContextID, m.ID)
	for _, r := range m.ReferenceTasks {
		ids += " · referenceTaskIds " + string(r)
	}
	b.WriteString(th.Muted.Render(wrapText(line(ids), inner)) + "\n")
	keys := c.answer.Hint(th, now, "send", "back")
	head := b.String()
	parts := strings.Split(renderParts(th, m.Parts, inner), "\n")
	room := h - 2 - strings.Count(head, "\n") - 1 // borders, head, keys
	if len(parts) > room && room >= 2 {
		more := len(parts) - room + 1
		parts = append(parts[:room-1], th.Warn.Render(fmt.Sprintf("… %d more lines of the payload do not fit here; all of it is sent", more)))
	}
	return th.Dialog.Width(max(w-2, 10)).Render(head + strings.Join(parts, "\n") + "\n" + keys)
}
