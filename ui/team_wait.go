package ui

import tea "github.com/charmbracelet/bubbletea"

// A hub that says when its state changes (*hubclient.Client's Changed)
// lets the attached dashboard sleep: the root takes the channel before
// it reads the hub's state (readTeam, checkTeam) and one Cmd at a time
// (waitTeam) waits for it to close, then the root reads the state again,
// reads the journal the hub's feed followed, tells the screens and draws
// (onTeamChanged). A hub that does not say is read every second, as
// before.

// teamChanges is the hub's change notification: a channel closed at the
// next change of what Team reads, and replaced; nil when nothing changes
// any more.
type teamChanges interface {
	Changed() <-chan struct{}
}

// teamChangedMsg says the hub's state changed.
type teamChangedMsg struct{}

// teamNotifies reports whether the hub attached says when its state
// changes; false without a hub.
func (m *Model) teamNotifies() bool {
	_, ok := m.ctx.Team.(teamChanges)
	return ok
}

// watchTeam takes the hub's change channel; call it before reading the
// hub's state, so that a change after the read closes the channel taken.
func (m *Model) watchTeam() {
	if tc, ok := m.ctx.Team.(teamChanges); ok {
		m.team.changed = tc.Changed()
	}
}

// waitTeam is the Cmd that waits for the hub's state to change; nil
// when the hub does not say or says nothing changes any more. The root
// starts one at Init and one after each change.
func (m *Model) waitTeam() tea.Cmd {
	ch := m.team.changed
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		<-ch
		return teamChangedMsg{}
	}
}

// onTeamChanged follows a change of the hub's state (checkTeam read it
// already, as for every message): the journal its feed followed is read,
// every screen is told (the inbox claims again when the hub is back),
// and the wait starts again.
func (m *Model) onTeamChanged(msg teamChangedMsg) tea.Cmd {
	return tea.Batch(m.waitTeam(), m.refreshJournal(), m.broadcast(msg))
}
