package inbox

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/charmbracelet/x/ansi"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// listShare is the part of the height the queue may take.
func (m *Inbox) listRows() int {
	n := len(m.items)
	switch m.mode {
	case modeList:
		return max(min(n, m.h/3), 1)
	default:
		return max(min(n, m.h/6), 1)
	}
}

// editorHeight is what the editor gets below the list and the question.
func (m *Inbox) editorHeight() int { return max(m.h-m.listRows()-8, 6) }

// View draws the queue, then the selected item (or the open dialog).
func (m *Inbox) View() string {
	m.ensure()
	th := m.ctx.Theme
	var lines []string
	lines = append(lines, m.titleLine())
	if len(m.items) == 0 && m.mode == modeList {
		empty := "Nothing is waiting for a person. Interrupted tasks (input-required, auth-required) show here."
		if len(m.all) > 0 {
			empty = "Nothing waiting matches the filter (" + m.keys.Filter.Clear.Help().Key + " clears it)."
		}
		lines = append(lines, "", th.Muted.Render(empty))
		return fit(lines, m.w, m.h)
	}
	top := len(lines) // the title
	lines = append(lines, m.rows()...)
	lines = append(lines, th.HelpSep.Render(strings.Repeat("─", m.w)))
	switch m.mode {
	case modeEditor:
		ed := m.editorLines(m.h - len(lines))
		lines = append(lines, m.question(max(m.h-len(lines)-len(ed), 3))...)
		lines = append(lines, ed...)
	case modeReason:
		lines = append(lines, m.question(max(m.h-len(lines)-4, 3))...)
		lines = append(lines, "", th.DialogTitle.Render("Deny: say why"), m.reason.View())
		if m.rerr != "" {
			lines = append(lines, th.Error.Render(sanitize.Line("✗ "+m.rerr, m.w)))
		}
	case modeConfirm: // the payload comes before the queue when both do not fit
		dlg := strings.Split(m.conf.view(th, m.w, m.h-top, m.ctx.Now()), "\n")
		if len(lines)+len(dlg) > m.h {
			lines = lines[:top]
		}
		lines = append(lines, dlg...)
	default:
		lines = append(lines, m.question(max(m.h-len(lines), 3))...)
	}
	return fit(lines, m.w, m.h)
}

// editorLines draws the editor in what is left below the queue (avail
// lines), sharing it with the question it answers: the fields shrink,
// down to one line each, until the whole question shows; they never
// grow past what SetSize gave them.
func (m *Inbox) editorLines(avail int) []string {
	th := m.ctx.Theme
	q := len(m.question(avail))
	status := strings.Count(m.ed.statusLine(th, m.w), "\n") + 1
	full := max((m.editorHeight()-4)/2, 1)
	m.ed.setFieldHeight(max(min((avail-q-2-status)/2, full), 1))
	return strings.Split(m.ed.view(th, m.w), "\n")
}

func (m *Inbox) titleLine() string {
	th := m.ctx.Theme
	count := fmt.Sprintf(" · %d waiting", len(m.all))
	if m.filter.Active() {
		count += fmt.Sprintf(" · %d shown", len(m.items))
	}
	s := th.Title.Render("Inbox") + th.Muted.Render(count+" · "+sortName(m.sort))
	if m.ctx.ReadOnly {
		s += " " + th.Badge.Render("READ-ONLY")
	}
	return s
}

func sortName(s model.SortBy) string {
	switch s {
	case model.SortAge:
		return "oldest first"
	case model.SortAgent:
		return "by agent"
	}
	return "newest first"
}

// fit cuts a drawing (lines that may hold newlines) to h lines of w
// cells: a view's cells.
func fit(lines []string, w, h int) string {
	return strings.Join(common.Fit(strings.Join(lines, "\n"), w, h), "\n")
}

// rows draws the visible part of the queue as trees: ancestors first,
// "└" before a task that others wait on.
func (m *Inbox) rows() []string {
	th := m.ctx.Theme
	n := m.listRows()
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+n {
		m.top = m.cursor - n + 1
	}
	m.top = max(min(m.top, len(m.items)-n), 0)
	agentW := m.agentW
	now := m.ctx.Now()
	var out []string
	for i := m.top; i < min(m.top+n, len(m.items)); i++ {
		it := m.items[i]
		t := it.Task
		tree := ""
		if it.Depth > 0 {
			tree = strings.Repeat("  ", it.Depth-1) + "└ "
		}
		name := sanitize.Line(tree+t.Key.Agent, agentW)
		state := sanitize.Line(model.ShortState(t.State), 14)
		age := common.Age(now, t.Since)
		head := fmt.Sprintf("%s %s %s %s ", common.Pad(name, agentW), common.Pad(sanitize.Line(model.ShortID(t.Key.ID), 8), 8),
			th.State(t.State).Render(common.Pad(state, 14)), common.Pad(age, 4))
		rest := m.w - ansi.StringWidth(head) - 2
		what := th.Muted.Render(sanitize.Line(m.rowText(it), max(rest, 1)))
		if it.Actionable {
			what = th.Text.Render(sanitize.Line(m.rowText(it), max(rest, 1)))
		}
		row := "  " + head + what
		if i == m.cursor {
			row = th.RowSelected.Render("▸ " + ansi.Strip(head) + ansi.Strip(what))
		}
		out = append(out, row)
	}
	if len(m.items) > n {
		out = append(out, th.Muted.Render(fmt.Sprintf("  %d–%d of %d", m.top+1, min(m.top+n, len(m.items)), len(m.items))))
	}
	return out
}

// rowText is what a row says after its columns.
func (m *Inbox) rowText(it approvals.Item) string {
	if !it.Actionable && it.WaitingOn != nil {
		return "waiting on " + it.WaitingOn.Key.Agent + " · " + model.ShortID(it.WaitingOn.Key.ID)
	}
	s := it.Task.Text
	if it.Prior != nil {
		s = "[" + string(it.Prior.Kind) + ": " + string(it.Prior.Result) + "] " + s
	}
	return s
}

// question draws the selected item: who asks, its chain, every part of
// its status message, and the earlier decision on this prompt. At most
// max lines.
func (m *Inbox) question(maxLines int) []string {
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
	head := fmt.Sprintf("%s · %s · %s · waiting %s", t.Key.Agent, model.ShortID(t.Key.ID), model.ShortState(t.State), common.Age(now, t.Since))
	if t.Snapshot != nil {
		head += " · context " + t.Snapshot.ContextID
	}
	lines = append(lines, th.Title.Render(sanitize.Line(head, m.w)))
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
	if p := it.Prior; p != nil {
		lines = append(lines, th.Warn.Render(sanitize.Line(fmt.Sprintf("decided: %s by %s at %s → %s", p.Kind, p.Approver,
			p.DecidedAt.UTC().Format("15:04:05Z"), p.Words()), m.w)))
	}
	if leaf := m.find(it.Leaf.Key); leaf != nil && m.ctx.Writable(leaf.Key().Agent) && !m.ctx.ReadOnly && m.mode == modeList {
		lines = append(lines, th.Muted.Render(actionHint(leaf)))
	}
	if len(lines) > maxLines {
		where := " more lines (enter: detail)"
		if m.mode != modeList { // enter belongs to the dialog
			where = " more lines (the task's detail view has them)"
		}
		lines = append(lines[:max(maxLines-1, 1)], th.Muted.Render("… "+strconv.Itoa(len(lines)-maxLines+1)+where))
	}
	return lines
}

func actionHint(it *approvals.Item) string {
	if it.Task.State == a2a.TaskStateAuthRequired {
		return "a: approve · d: deny (with a reason) · r: reply"
	}
	return "r: reply (text, JSON data, or both)"
}
