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

// tickMsg is the clock: it wakes when the picture changes by the time
// alone (clock.go).
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

// applyEvents applies a batch to the fleet and re-arms the wait; a
// batch that changed nothing leaves a pending render as it was.
func (m *Model) applyEvents(msg eventsMsg, wasDirty bool) tea.Cmd {
	if msg.closed {
		m.closed = true
		m.log.Info("event channel closed")
	}
	cmd, changed := m.apply(msg.batch)
	if !changed {
		m.dirty = wasDirty
	}
	return tea.Batch(m.waitEvents(m.batchDelay(time.Now())), cmd)
}

// quickBatches is how many batches may follow a lone one closely and
// still be applied at once: at start an agent comes up, then its card,
// then its tasks state by state, each its own batch a few ms apart, and
// the first picture is all of them. A flood gets as many quick applies,
// then one batch per interval.
const quickBatches = 4

// batchDelay is how long to wait before taking the next batch: nothing
// after a lone batch (one that came two intervals or more after the one
// before: the first, an event after a quiet spell) and after the
// quickBatches that follow it closely, so that what follows shows at
// once too (an agent came up, then its tasks: the first picture); else
// the interval, which spaces a flood's batches one interval apart as
// before.
func (m *Model) batchDelay(now time.Time) time.Duration {
	if m.lastBatch.IsZero() || now.Sub(m.lastBatch) >= 2*m.interval {
		m.quick = 0
	}
	m.lastBatch = now
	if m.quick < quickBatches {
		m.quick++
		return 0
	}
	return m.interval
}

// apply applies events to the fleet and tells every screen what changed
// (rings for tasks that now wait on a person, and records in the journal
// the states decided tasks went on to); it reports whether
// anything did. It is the one place the fleet changes: for the watchers'
// batches and for what the dashboard's own calls returned (ApplyMsg).
func (m *Model) apply(events []model.Event) (tea.Cmd, bool) {
	if len(events) == 0 {
		return nil, false
	}
	m.ctx.Activity.Count(events)
	res := m.ctx.Fleet.Apply(events)
	if !res.Changed {
		return nil, false
	}
	cmd := tea.Batch(m.broadcast(common.FleetChangedMsg{Result: res, Version: m.ctx.Fleet.Version()}), m.observeJournal())
	if m.bell && len(res.Entered) > 0 {
		cmd = tea.Batch(cmd, m.ring())
	}
	return tea.Batch(cmd, m.announce(res.Entered), m.titleCmd()), true
}

// onTick expires the notice, tells every screen the time (what they ask
// of the clock from here on, and what the render that follows draws,
// says when it wakes next) and, unless
// the journal file's changes are followed (journal_follow.go), reads what
// other processes appended to it.
func (m *Model) onTick() tea.Cmd {
	now := m.ctx.Now()
	m.ctx.Clock.Reset()
	m.alarm.clear()
	m.status.expire(now)
	var refresh tea.Cmd
	if m.jchanges == nil {
		refresh = m.refreshJournal()
	}
	return tea.Batch(m.waitClock(), m.broadcast(common.TickMsg{Now: now}), refresh)
}

// ring writes the terminal bell.
func (m *Model) ring() tea.Cmd {
	out := m.clip.Out
	return func() tea.Msg {
		_, _ = out.Write([]byte{'\a'})
		return nil
	}
}
