package ui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
	"a2atop/ui/common"
)

// maxBatch bounds one batch so that a never-ending flood still yields
// frames.
const maxBatch = 50_000

// eventsMsg is one batch of watcher events, in arrival order.
type eventsMsg struct {
	batch  []model.Event
	closed bool // the channel was closed after this batch
}

// tickMsg is the 1 Hz clock.
type tickMsg struct{ now time.Time }

// waitEvents returns a Cmd that waits delay, then blocks for the first
// event and drains everything waiting behind it. Waiting before blocking
// is what spaces batches at least delay apart while a lone event after a
// quiet spell still shows at once.
func (m *Model) waitEvents(delay time.Duration) tea.Cmd {
	ch := m.events
	if ch == nil || m.closed {
		return nil
	}
	return func() tea.Msg {
		if delay > 0 {
			time.Sleep(delay)
		}
		e, ok := <-ch
		if !ok {
			return eventsMsg{closed: true}
		}
		batch := make([]model.Event, 1, 64)
		batch[0] = e
		for len(batch) < maxBatch {
			select {
			case e, ok := <-ch:
				if !ok {
					return eventsMsg{batch: batch, closed: true}
				}
				batch = append(batch, e)
			default:
				return eventsMsg{batch: batch}
			}
		}
		return eventsMsg{batch: batch}
	}
}

// applyEvents applies a batch to the fleet, re-arms the wait and tells the
// views and components what changed.
func (m *Model) applyEvents(msg eventsMsg, wasDirty bool) tea.Cmd {
	if msg.closed {
		m.closed = true
		m.log.Info("event channel closed")
	}
	cmds := []tea.Cmd{m.waitEvents(m.interval)}
	if len(msg.batch) == 0 {
		m.dirty = wasDirty
		return tea.Batch(cmds...)
	}
	res := m.ctx.Fleet.Apply(msg.batch)
	if !res.Changed {
		m.dirty = wasDirty
		return tea.Batch(cmds...)
	}
	m.syncViews()
	cmds = append(cmds, m.broadcast(common.FleetChangedMsg{Result: res, Version: m.ctx.Fleet.Version()}))
	if m.bell && len(res.Entered) > 0 {
		cmds = append(cmds, m.ring())
	}
	return tea.Batch(cmds...)
}

// syncViews brings our own views up to date with the fleet.
func (m *Model) syncViews() {
	m.tasks.sync()
	m.agents.sync()
	m.detail.sync()
}

// tick schedules the next clock message on the next whole second.
func tick(now func() time.Time) tea.Cmd {
	d := time.Second - time.Duration(now().Nanosecond())
	if d <= 0 || d > time.Second {
		d = time.Second
	}
	return tea.Tick(d, func(t time.Time) tea.Msg { return tickMsg{now: t} })
}

// onTick refreshes ages and expiring notices, and the agents' capture.
func (m *Model) onTick(tickMsg) tea.Cmd {
	now := m.ctx.Now()
	m.status.expire(now)
	cmds := []tea.Cmd{tick(m.ctx.Now)}
	switch m.view {
	case viewAgents:
		m.agents.sync()
		cmds = append(cmds, m.agents.fetchCapture())
	case viewDetail:
		m.detail.rebuild(false)
	}
	cmds = append(cmds, m.broadcast(common.TickMsg{Now: now}))
	return tea.Batch(cmds...)
}
