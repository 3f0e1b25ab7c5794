package ui

import (
	"strconv"

	"github.com/aymanbagabas/go-osc52/v2"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
	"a2atop/ui/common"
)

// copiedMsg reports the OSC 52 write.
type copiedMsg struct {
	ID  string
	Err error
}

// show switches the body to a view; the inbox and journal only when
// their components are wired.
func (m *Model) show(v view) tea.Cmd {
	now := m.ctx.Now()
	switch {
	case v == viewInbox && m.inbox == nil:
		m.status.set("no inbox in this build (ui.Options.Inbox is not set)", true, now)
		return nil
	case v == viewJournal && m.journal == nil:
		m.status.set("no journal in this build (ui.Options.Journal is not set)", true, now)
		return nil
	}
	if v != viewDetail && m.view != v {
		m.prev = m.view
	}
	m.setView(v)
	if v == viewAgents {
		m.agents.sync()
		return m.agents.fetchCapture()
	}
	return nil
}

// back leaves the current view for the one before it (tasks at the end).
func (m *Model) back() {
	switch {
	case m.view == viewDetail && m.prev != viewDetail:
		m.setView(m.prev)
	default:
		m.setView(viewTasks)
	}
	m.prev = viewTasks
}

// openDetail shows a task and fetches its history.
func (m *Model) openDetail(k model.TaskKey) tea.Cmd {
	if m.view != viewDetail {
		m.prev = m.view
	}
	m.setView(viewDetail)
	m.detail.stack = nil
	return m.detail.open(k, m.history)
}

// setView shows v and tells the components which of them left or came
// on screen.
func (m *Model) setView(v view) {
	if c := m.component(); c != nil && v != m.view {
		c.Update(common.HiddenMsg{})
	}
	was := m.view
	m.view = v
	if c := m.component(); c != nil && v != was {
		c.Update(common.ShownMsg{})
	}
}

// reply hands an interrupted task to the inbox component's editor.
func (m *Model) reply(t *model.Task) tea.Cmd {
	now := m.ctx.Now()
	switch {
	case m.inbox == nil:
		return nil
	case t == nil || t.Class != model.ClassInterrupted:
		m.status.set("only interrupted tasks (input-required, auth-required) take a reply", true, now)
		return nil
	case !m.ctx.Writable(t.Key.Agent):
		m.status.set(m.ctx.ReadOnlyWords(t.Key.Agent), true, now)
		return nil
	}
	m.show(viewInbox)
	next, cmd := m.inbox.Update(common.ReplyToMsg{Key: t.Key})
	m.inbox = next
	return tea.Batch(cmd, m.drain())
}

// copyID writes the task id to the clipboard with OSC 52: our own escape
// sequence, through the program's output, never agent text. Inside tmux
// it is written twice: plain, which tmux takes itself when set-clipboard
// is on, and wrapped for passthrough, which reaches the outer terminal
// when allow-passthrough is on (off by default since tmux 3.3, which then
// drops the wrapped one: wrapped alone, y copied nothing).
func (m *Model) copyID(k model.TaskKey) tea.Cmd {
	out, tmux := m.out, m.tmux
	id := string(k.ID)
	return func() tea.Msg {
		seqs := []osc52.Sequence{osc52.New(id)}
		if tmux {
			seqs = append(seqs, osc52.New(id).Tmux())
		}
		for _, seq := range seqs {
			if _, err := seq.WriteTo(out); err != nil {
				return copiedMsg{ID: id, Err: err}
			}
		}
		return copiedMsg{ID: id}
	}
}

// copied tells what the copy did.
func (m *Model) copied(msg copiedMsg) {
	if msg.Err != nil {
		m.log.Warn("copy to clipboard failed", logKeyErr, msg.Err)
		m.status.set("copy failed: "+msg.Err.Error(), true, m.ctx.Now())
		return
	}
	m.status.set("copied "+msg.ID+" (OSC 52; your terminal decides whether to accept it)", false, m.ctx.Now())
}

// ring writes the terminal bell.
func (m *Model) ring() tea.Cmd {
	out := m.out
	return func() tea.Msg {
		_, _ = out.Write([]byte{'\a'})
		return nil
	}
}

// scrollViewport scrolls by n lines (negative is up).
func scrollViewport(vp *viewport.Model, n int) {
	if n < 0 {
		vp.ScrollUp(-n)
	} else {
		vp.ScrollDown(n)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
