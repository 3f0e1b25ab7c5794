package inbox

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/theme"
)

// title says what the answer for many sends.
func (p *batchPlan) title() string {
	n := len(p.plans)
	switch p.kind {
	case "approve":
		return fmt.Sprintf("Approve these %d requests?", n)
	case "deny":
		return fmt.Sprintf("Deny these %d requests?", n)
	}
	return fmt.Sprintf("Send this reply to these %d tasks?", n)
}

// payloads are the distinct payloads of the plan, each with the tasks
// it goes to: an approval's message is the same for every task of one
// agent's template, so most plans have one.
func (p *batchPlan) payloads(th *theme.Theme, w int) [][]string {
	type group struct {
		lines []string
		n     int
	}
	var order []string
	groups := map[string]*group{}
	for _, pl := range p.plans {
		text := renderParts(th, pl.d.Message.Parts, w)
		g := groups[text]
		if g == nil {
			g = &group{lines: strings.Split(text, "\n")}
			groups[text] = g
			order = append(order, text)
		}
		g.n++
	}
	at := ""
	if p.kind == "approve" || p.kind == "deny" {
		at = th.Muted.Render(` ("at": when each is sent)`)
	}
	out := make([][]string, 0, len(order))
	for _, text := range order {
		g := groups[text]
		label := th.Label.Render(fmt.Sprintf("sends to each of the %d:", g.n)) + at
		if len(order) > 1 {
			label = th.Label.Render(fmt.Sprintf("sends to %d of them:", g.n)) + at
		}
		out = append(out, append([]string{label}, g.lines...))
	}
	return out
}

// view draws the confirmation within w columns and h lines: the tasks
// the answer goes to (agent, id, state, the first line of the question),
// the marked tasks it skips and why, the exact payload, and the answer
// keys. When it does not all fit, the list of tasks is cut with a line
// that says how many more get the answer, so that the payload and the
// keys stay on screen.
func (p *batchPlan) view(th *theme.Theme, w, h int, now time.Time) string {
	inner := max(w-4, 20)
	head := []string{th.DialogTitle.Render(p.title())}
	for _, w := range p.reach {
		head = append(head, th.Warn.Render(sanitize.Line(w, inner)))
	}
	rows := p.rows(th, inner)
	var skipped []string
	if len(p.skipped) > 0 {
		skipped = append(skipped, th.Warn.Render(fmt.Sprintf("skipped (%d): nothing is sent to them", len(p.skipped))))
		for _, s := range p.skipped {
			skipped = append(skipped, th.Muted.Render(sanitize.Line(keyName(s.Key)+" — "+s.Why, inner)))
		}
	}
	var pay []string
	for _, g := range p.payloads(th, inner) {
		pay = append(pay, g...)
	}
	ids := th.Muted.Render(sanitize.Line("each on its own taskId and contextId, with a new messageId, role user; each journaled before it is sent", inner))
	keys := p.answer.Hint(th, now, "send them all", "back")
	keyLines := strings.Count(lipgloss.NewStyle().Width(inner).Render(keys), "\n") + 1
	room := h - 2 - len(head) - 1 - keyLines // the borders, the ids line
	// The payload keeps what it needs (at most half); the tasks and the
	// skipped share the rest, the tasks first.
	payKeep := min(len(pay), max(room/2, 2))
	if payKeep < len(pay) {
		more := len(pay) - payKeep + 1
		pay = append(pay[:payKeep-1], th.Warn.Render(fitting(inner,
			fmt.Sprintf("… %d more lines of the payload do not fit here; all of it is sent", more),
			fmt.Sprintf("… %d more lines not shown; all are sent", more))))
	}
	left := room - len(pay)
	if len(rows)+len(skipped) > left {
		skipKeep := min(len(skipped), max(left/3, 0))
		if skipKeep < len(skipped) {
			if skipKeep > 0 {
				skipped = append(skipped[:skipKeep-1], th.Muted.Render(fmt.Sprintf("… %d more skipped", len(skipped)-skipKeep)))
			} else {
				skipped = nil
			}
		}
		rowKeep := max(left-len(skipped), 2)
		if rowKeep < len(rows) {
			rows = append(rows[:rowKeep-1], th.Warn.Render(fmt.Sprintf("… %d more tasks get this answer too", len(rows)-rowKeep+1)))
		}
	}
	body := append(append(append(head, rows...), skipped...), ids)
	body = append(append(body, pay...), keys)
	return th.Dialog.Width(max(w-2, 10)).Render(strings.Join(body, "\n"))
}

// rows are the tasks the answer goes to, one line each.
func (p *batchPlan) rows(th *theme.Theme, w int) []string {
	aw := 8
	for _, pl := range p.plans {
		aw = max(aw, min(lipgloss.Width(sanitize.Line(pl.key.Agent, 20)), 20))
	}
	out := make([]string, 0, len(p.plans))
	for _, pl := range p.plans {
		head := common.Pad(sanitize.Line(pl.key.Agent, aw), aw) + " " + common.Pad(sanitize.Line(model.ShortID(pl.key.ID), 8), 8) + " "
		state := common.Pad(model.ShortState(pl.d.State), 14)
		q := "(no question)"
		if pl.ask != nil {
			q = firstLine(renderParts(th, pl.ask.Parts, 1<<20))
		}
		if pl.via != (model.TaskKey{}) {
			q = "(for " + keyName(pl.via) + ") " + q
		}
		q = batchVoteWords(pl.d) + q
		rest := max(w-lipgloss.Width(head)-16, 1)
		out = append(out, head+th.State(pl.d.State).Render(state)+" "+sanitize.Line(q, rest))
	}
	return out
}

// firstLine is the first line of s.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
