package inbox

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/theme"
)

// The inbox's lines are shared out like the tasks panes: each part gets
// what its lines need, and the queue the rest. While browsing, the
// question of the selected task gets its lines (up to half the height
// when the queue is longer than the rest; enter shows it all) and the
// queue the rest. While an answer is written, the question answered
// comes first (leaving the editor's fields a line each), then the fields
// up to a comfortable height, then the queue's rows, then the fields
// grow. A line stays blank only when everything fits.
const (
	fieldComfort = 2 // lines per editor field before the queue gets more rows
	fieldMost    = 8 // lines per editor field at most
)

// layout is the lines of each part in the current mode.
type layout struct{ list, question, field int }

// layout shares m.h among the parts of the current mode, for a question
// of qn lines.
func (m *Inbox) layout(qn int) layout {
	n := len(m.items)
	switch m.mode {
	case modeList:
		avail := m.h - 2 // title, rule
		q := min(qn, max(avail-n, m.h/2))
		return layout{list: m.fitList(avail - q), question: q}
	case modeEditor:
		status := strings.Count(m.ed.statusLine(m.ctx.Theme, m.w), "\n") + 1
		avail := m.h - 4 - status - len(m.elsewhereLines()) // title, rule, the fields' labels, the status line
		q := min(qn, max(avail-4, 3))
		fh := min(max((avail-q-2)/2, 1), fieldComfort)
		list := m.fitList(avail - q - 2*fh)
		fh += min(max((avail-q-2*fh-m.listLines(list))/2, 0), fieldMost-fh)
		return layout{list: list, question: q, field: fh}
	case modeReason:
		avail := m.h - 5 - len(m.elsewhereLines()) // title, rule, a blank line, the title and the input
		if m.rerr != "" {
			avail--
		}
		q := min(qn, max(avail-2, 3))
		return layout{list: m.fitList(avail - q), question: q}
	}
	return layout{list: max(min(n, m.h/6), 1)}
}

// fitList is how many queue rows fit in avail lines, with the line that
// says how many there are when not all fit.
func (m *Inbox) fitList(avail int) int {
	if n := len(m.items); n <= avail {
		return max(n, 1)
	}
	return max(avail-1, 1)
}

// listLines is the lines list rows take: the rows, and the range line
// when the queue is longer.
func (m *Inbox) listLines(list int) int {
	if len(m.items) > list {
		return list + 1
	}
	return list
}

// listRows is how many queue rows are drawn.
func (m *Inbox) listRows() int { return m.layout(len(m.questionLines())).list }

// View draws the queue, then the selected item (or the open dialog).
func (m *Inbox) View() string {
	m.ensure()
	th := m.ctx.Theme
	var lines []string
	lines = append(lines, m.titleLine())
	switch m.mode {
	case modeResults:
		lines = append(lines, m.results.View(th, m.resultKeys, m.w, m.h-1))
		return fit(lines, m.w, m.h)
	case modeBatch:
		lines = append(lines, m.plan.view(th, m.w, m.h-1, m.ctx.Now()))
		return fit(lines, m.w, m.h)
	}
	if len(m.items) == 0 && m.mode == modeList {
		empty := "Nothing is waiting for a person. Interrupted tasks (input-required, auth-required) show here."
		if len(m.all) > 0 {
			empty = "Nothing waiting matches the filter (" + m.keys.Filter.Clear.Help().Key + " clears it)."
		}
		lines = append(lines, "", th.Muted.Render(empty))
		return fit(lines, m.w, m.h)
	}
	var q []string // the question, measured once
	if m.mode != modeConfirm {
		q = m.questionLines()
	}
	l := m.layout(len(q))
	top := len(lines) // the title
	lines = append(lines, m.rows(l.list)...)
	lines = append(lines, th.HelpSep.Render(strings.Repeat("─", m.w)))
	switch m.mode {
	case modeEditor:
		lines = append(lines, m.elsewhereLines()...)
		lines = append(lines, m.cutQuestion(q, l.question)...)
		m.ed.setFieldHeight(l.field)
		lines = append(lines, strings.Split(m.ed.view(th, m.w), "\n")...)
	case modeReason:
		lines = append(lines, m.elsewhereLines()...)
		lines = append(lines, m.cutQuestion(q, l.question)...)
		lines = append(lines, "", th.DialogTitle.Render(m.reasonTitle()), m.reason.View())
		if m.rerr != "" {
			lines = append(lines, th.Error.Render(sanitize.Line("✗ "+m.rerr, m.w)))
		}
	case modeConfirm: // the payload comes before the queue when both do not fit
		m.conf.claims = m.claimWords(m.conf.key)
		m.conf.liveVote(m.svc)
		dlg := strings.Split(m.conf.view(th, m.w, m.h-top, m.ctx.Now()), "\n")
		if len(lines)+len(dlg) > m.h {
			lines = lines[:top]
		}
		lines = append(lines, dlg...)
	default:
		lines = append(lines, m.cutQuestion(q, max(m.h-len(lines), l.question))...)
	}
	return fit(lines, m.w, m.h)
}

func (m *Inbox) titleLine() string {
	th := m.ctx.Theme
	count := fmt.Sprintf(" · %d waiting", len(m.all))
	if m.filter.Active() {
		count += fmt.Sprintf(" · %d shown", len(m.items))
	}
	s := th.Title.Render("Inbox") + th.Muted.Render(count+" · "+m.sortLabel())
	if m.ctx.ReadOnly {
		s += " " + th.Badge.Render("READ-ONLY")
	}
	return s
}

// fit cuts a drawing (lines that may hold newlines) to h lines of w
// cells: a view's cells.
func fit(lines []string, w, h int) string {
	return strings.Join(common.Fit(strings.Join(lines, "\n"), w, h), "\n")
}

// rows draws the visible part of the queue as trees: ancestors first,
// "└" before a task that others wait on.
func (m *Inbox) rows(n int) []string {
	th := m.ctx.Theme
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+n {
		m.top = m.cursor - n + 1
	}
	m.top = max(min(m.top, len(m.items)-n), 0)
	agentW := m.agentW
	now := m.ctx.Now()
	p := m.paints()
	var out []string
	for i := m.top; i < min(m.top+n, len(m.items)); i++ {
		it := m.items[i]
		t := it.Task
		tree := ""
		if it.Depth > 0 {
			tree = strings.Repeat("  ", it.Depth-1) + "└ "
		}
		name := common.Pad(sanitize.Line(tree+t.Key.Agent, agentW), agentW)
		id := common.Pad(sanitize.Line(model.ShortID(t.Key.ID), 8), 8)
		state := common.Pad(sanitize.Line(model.ShortState(t.State), 14), 14)
		age := common.Pad(m.ctx.Clock.Age(now, t.Since), 4)
		rest := m.w - (agentW + 8 + 14 + 4 + 4) - 2
		what := sanitize.Line(m.rowText(it), max(rest, 1))
		marked := m.marks.Len() > 0 && m.marks.Has(t.Key)
		if i == m.cursor {
			gutter := "▸ "
			if marked {
				gutter = "▸" + common.MarkGutter
			}
			out = append(out, p.selected.On(gutter+name+" "+id+" "+state+" "+age+" "+what))
			continue
		}
		text := p.muted
		if it.Actionable {
			text = p.text
		}
		gutter := "  "
		if marked {
			gutter = " " + p.check.On(common.MarkGutter)
		}
		out = append(out, gutter+name+" "+id+" "+p.state(t.State).On(state)+" "+age+" "+text.On(what))
	}
	if len(m.items) > n {
		out = append(out, th.Muted.Render(fmt.Sprintf("  %d–%d of %d", m.top+1, min(m.top+n, len(m.items)), len(m.items))))
	}
	return out
}

// rowPaints are the paints the queue's rows are drawn with: a row costs
// string concatenation, not a lipgloss render per cell.
type rowPaints struct {
	muted, text, selected, check common.Paint
	states                       map[a2a.TaskState]common.Paint
	th                           *theme.Theme
}

// paints are the inbox's row paints, made on first use.
func (m *Inbox) paints() *rowPaints {
	if m.rp == nil {
		th := m.ctx.Theme
		m.rp = &rowPaints{muted: common.NewPaint(th.Muted), text: common.NewPaint(th.Text),
			selected: common.NewPaint(th.RowSelected), check: common.NewPaint(th.Marked), states: map[a2a.TaskState]common.Paint{}, th: th}
	}
	return m.rp
}

// state is the paint of a task state, as the theme styles it.
func (p *rowPaints) state(s a2a.TaskState) common.Paint {
	if c, ok := p.states[s]; ok {
		return c
	}
	c := common.NewPaint(p.th.State(s))
	p.states[s] = c
	return c
}

// rowText is what a row says after its columns.
func (m *Inbox) rowText(it approvals.Item) string {
	if !it.Actionable && it.WaitingOn != nil {
		return "waiting on " + it.WaitingOn.Key.Agent + " · " + model.ShortID(it.WaitingOn.Key.ID)
	}
	s := it.Task.Text
	if w := it.AnsweredElsewhere(); w != "" {
		s = "[" + w + "] " + s
	} else if it.Prior != nil {
		s = "[" + string(it.Prior.Kind) + ": " + string(it.Prior.Result) + "] " + s
	}
	if w := m.teamRowWords(it); w != "" {
		s = "[" + w + "] " + s
	}
	if w := m.votesRow(it); w != "" {
		s = "[" + w + "] " + s
	}
	if _, ok := m.drafts[it.Key()]; ok {
		s = "✎ draft · " + s
	}
	return s
}

// questionLines draws the selected item (or the one a dialog is about):
// who asks, its chain, every part of its status message, and the
// earlier decision on this prompt.
func (m *Inbox) questionLines() []string {
	th := m.ctx.Theme
	it := m.selected()
	if m.mode != modeList {
		if t := m.find(m.target); t != nil {
			it = t
		}
	}
	if it == nil {
		return nil
	}
	t := it.Task
	now := m.ctx.Now()
	var lines []string
	head := fmt.Sprintf("%s · %s · %s · waiting %s", t.Key.Agent, model.ShortID(t.Key.ID), model.ShortState(t.State), m.ctx.Clock.Age(now, t.Since))
	if t.Snapshot != nil {
		head += " · context " + t.Snapshot.ContextID
	}
	lines = append(lines, th.Title.Render(sanitize.Line(head, m.w)))
	lines = append(lines, m.teamLines(*it)...)
	if len(it.Chain) > 1 {
		var names []string
		for _, c := range it.Chain {
			n := c.Key.Agent + " · " + model.ShortID(c.Key.ID)
			if c == it.Leaf {
				n += " (asks)"
			}
			names = append(names, n)
		}
		lines = append(lines, th.Label.Render("chain: ")+sanitize.Line(strings.Join(names, " → "), m.w-7))
	}
	switch {
	case m.mode != modeList && m.batching():
		lines = append(lines, th.Warn.Render(wrapText(line(fmt.Sprintf("one answer for the %d marked tasks: this one and %d more; the confirmation lists them all",
			len(m.batch), len(m.batch)-1)), m.w)))
	case m.mode != modeList && m.via != (model.TaskKey{}):
		lines = append(lines, th.Warn.Render(wrapText(line("answering "+keyName(it.Key())+" — the end of "+keyName(m.via)+"'s chain, the task that asks"), m.w)))
	case !it.Actionable:
		lines = append(lines, th.Warn.Render(wrapText(line("waiting on "+keyName(it.Leaf.Key)+", the end of the chain: answers go there"), m.w)))
	}
	if q := it.Question(); q != nil {
		lines = append(lines, strings.Split(renderParts(th, q.Parts, m.w), "\n")...)
	} else {
		lines = append(lines, th.Muted.Render("(the agent sent no status message)"))
	}
	if it.Actionable {
		lines = append(lines, m.voteLines(*it)...)
	}
	leaf := m.find(it.Leaf.Key)
	decided := m.decidedWords(leaf)
	if w := it.AnsweredElsewhere(); w != "" && decided == "" {
		lines = append(lines, strings.Split(th.Warn.Render(wrapText(line(w+" → "+it.Prior.Words()), m.w)), "\n")...)
	} else if p := it.Prior; p != nil && decided == "" {
		lines = append(lines, th.Warn.Render(sanitize.Line(fmt.Sprintf("decided: %s by %s at %s → %s", p.Kind, p.Approver,
			p.DecidedAt.UTC().Format("15:04:05Z"), p.Words()), m.w)))
	} else if decided != "" { // decided, with who and when: no answer is offered
		lines = append(lines, strings.Split(th.Warn.Render(wrapText(line(decided), m.w)), "\n")...)
	}
	if leaf != nil && m.ctx.May(leaf.Key().Agent, common.RoleFor(leaf.Task.State)) && !m.ctx.ReadOnly && m.mode == modeList && decided == "" {
		if w := m.blockedWords(leaf.Key().Agent); w != "" {
			lines = append(lines, th.Error.Render(w))
		} else {
			lines = append(lines, th.Muted.Render(actionHint(leaf)))
		}
	}
	return lines
}

// cutQuestion is the question's lines cut to at most maxLines, the last
// one saying how many more there are and where they are.
func (m *Inbox) cutQuestion(lines []string, maxLines int) []string {
	if len(lines) <= maxLines {
		return lines
	}
	where := " more lines (enter: detail)"
	if m.mode != modeList { // enter belongs to the dialog
		where = " more lines (the task's detail view has them)"
	}
	return append(lines[:max(maxLines-1, 1):max(maxLines-1, 1)], m.ctx.Theme.Muted.Render("… "+strconv.Itoa(len(lines)-maxLines+1)+where))
}

func actionHint(it *approvals.Item) string {
	if it.Task.State == a2a.TaskStateAuthRequired {
		return "a: approve · d: deny (with a reason) · r: reply"
	}
	return "r: reply (text, JSON data, or both)"
}
