package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/ui/common"
)

// The root follows the approvals journal that other processes (another
// dashboard, `a2atop reply`) write too: when the file was written
// (Options.JournalChanges), or without that on the 1 Hz clock, a tea.Cmd
// reads what they appended (Service.Refresh) and every screen gets the
// common.JournalRefreshedMsg; after each batch of the fleet it asks, on
// this goroutine, which decided tasks show a state the journal does not
// hold yet (Service.Observations) and records them in a tea.Cmd
// (Service.Observe). One of each is under way at a time.

// journalObservedMsg is the answer to the Observe of a batch.
type journalObservedMsg struct{ err error }

// journalWrittenMsg says the journal file was written; ended is true
// when the notification stopped (the clock reads it from then on).
type journalWrittenMsg struct{ ended bool }

// waitJournal is the Cmd that waits for the next write of the journal
// file, or nil when its changes are not followed.
func (m *Model) waitJournal() tea.Cmd {
	ch := m.jchanges
	if ch == nil || m.svc == nil {
		return nil
	}
	return func() tea.Msg {
		_, ok := <-ch
		return journalWrittenMsg{ended: !ok}
	}
}

// onJournalWritten reads what was appended and waits for the next write.
func (m *Model) onJournalWritten(msg journalWrittenMsg) tea.Cmd {
	if msg.ended {
		m.jchanges = nil
		m.log.Info("journal: file-change notification ended; reading it on the clock")
	}
	return tea.Batch(m.refreshJournal(), m.waitJournal())
}

// refreshJournal is the Cmd that reads what others appended, or nil when
// there is no journal or a read is under way (which reads again when it
// is done: the write may have come after it read).
func (m *Model) refreshJournal() tea.Cmd {
	svc := m.svc
	if svc == nil {
		return nil
	}
	if m.refreshing {
		m.refreshAgain = true
		return nil
	}
	m.refreshing = true
	return func() tea.Msg {
		r, err := svc.Refresh()
		return common.JournalRefreshedMsg{Refreshed: r, Err: err}
	}
}

// onJournalRefreshed tells every screen what the journal gained.
func (m *Model) onJournalRefreshed(msg common.JournalRefreshedMsg) tea.Cmd {
	m.refreshing = false
	m.journalErr(&m.refreshErr, "reading what others wrote", msg.Err)
	cmd := m.broadcast(msg)
	if m.refreshAgain {
		m.refreshAgain = false
		cmd = tea.Batch(cmd, m.refreshJournal())
	}
	return cmd
}

// observeJournal records, in a Cmd, the states the fleet shows for tasks
// decided on that the journal does not hold yet (a task that went on
// working, then completed). A batch that arrives while one is recorded
// asks again when it is done.
func (m *Model) observeJournal() tea.Cmd {
	svc := m.svc
	if svc == nil || svc.ReadOnly() {
		return nil
	}
	if m.observing {
		m.observeAgain = true
		return nil
	}
	obs := svc.Observations(m.ctx.Fleet)
	if len(obs) == 0 {
		return nil
	}
	m.observing = true
	return func() tea.Msg { return journalObservedMsg{err: svc.Observe(obs)} }
}

// onJournalObserved tells every screen the journal changed, and records
// what the batches that came meanwhile showed.
func (m *Model) onJournalObserved(msg journalObservedMsg) tea.Cmd {
	m.observing = false
	m.journalErr(&m.observeErr, "recording the states of decided tasks", msg.err)
	cmd := m.broadcast(common.JournalChangedMsg{})
	if m.observeAgain && msg.err == nil {
		m.observeAgain = false
		cmd = tea.Batch(cmd, m.observeJournal())
	}
	return cmd
}

// journalErr logs a failure to read or write the journal and says it in
// the footer once, not each time it repeats (*last is the one said).
func (m *Model) journalErr(last *string, doing string, err error) {
	if err == nil {
		*last = ""
		return
	}
	m.log.Error("journal: "+doing, common.LogKeyErr, err)
	if text := "journal: " + doing + ": " + err.Error(); text != *last {
		*last = text
		m.status.set(text, true, m.ctx.Now())
	}
}

// readBanner reads which damaged lines of the journal refuse decisions
// now (Service.Blocking: memory, no I/O) into the banner.
func (m *Model) readBanner() {
	if m.svc == nil {
		return
	}
	m.bannerVer = m.svc.Version()
	m.banner = common.JournalDamage(m.svc.Blocking())
}

// checkBanner reads the banner again when the journal changed (here or in
// another process, through a Refresh), and gives the screens their new
// height when it came or went.
func (m *Model) checkBanner() {
	if m.svc == nil || m.svc.Version() == m.bannerVer {
		return
	}
	had := len(m.banner) > 0
	m.readBanner()
	if had != (len(m.banner) > 0) {
		m.layout()
	}
}

// bannerLines is the lines the banners take: the hub's while it is
// unreachable, the damaged journal's while it shows.
func (m *Model) bannerLines() int {
	n := len(m.teamBannerLines()) // the hub's, above
	if len(m.banner) > 0 {
		n++
	}
	return n
}

// bannerLine is the banner in the width, in the theme's error colour.
func (m *Model) bannerLine() string {
	return m.ctx.Theme.Error.Render(common.FirstFit(max(m.width, 1), m.banner...))
}
