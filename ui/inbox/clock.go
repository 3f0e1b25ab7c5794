package inbox

// askClock asks the root's clock for the next second while the inbox
// does something on it (see tick): the reconcile of the open decisions
// at start, and while a dialog or the editor is open, the draft saved
// and the queue read again once the person is done. The ages it draws
// ask for themselves (Clock.Age).
func (m *Inbox) askClock() {
	if m.mode != modeList || (!m.reconciled && !m.ctx.ReadOnly) {
		m.ctx.Clock.EverySecond(m.ctx.Now())
	}
}
