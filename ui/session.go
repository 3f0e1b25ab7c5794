package ui

// startOn opens the dashboard on the screen named start, when it is
// wired (before Init, which tells it it is shown), and keeps via for the
// footer.
func (m *Model) startOn(start, via string) {
	m.via = via
	if v, ok := viewNamed(start); ok && m.screens[v] != nil {
		m.view = v
	}
}

// viaNote is the footer's start: who is at the keys and how ("alice via
// ssh · "), muted; "" for a dashboard that says nothing of it.
func (m *Model) viaNote() string {
	if m.via == "" {
		return ""
	}
	return m.ctx.Theme.Muted.Render(m.via) + m.hm.Styles.ShortSeparator.Inline(true).Render(m.hm.ShortSeparator)
}
