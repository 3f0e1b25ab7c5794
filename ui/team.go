package ui

import (
	"net/url"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"a2atop/internal/sanitize"
	"a2atop/ui/common"
)

// Team is the hub a dashboard is attached to; see common.Team.
// *hubclient.Client satisfies it.
type Team = common.Team

// teamState is what the root knows of the hub it is attached to: whether
// the feed was up at the last look, since when it is down and why, and
// the claims' version last drawn. The zero value is a dashboard without
// a hub.
type teamState struct {
	seen      bool            // the hub was looked at once
	up        bool            // the feed was up at the last look
	why       string          // why it is down
	downSince time.Time       // when the dashboard saw it go
	claims    uint64          // ClaimsVersion at the last look
	record    recordSeen      // the team's record as the hub said at the last look (record.go)
	changed   <-chan struct{} // closed at the next change of the hub's state, taken before the last look (team_wait.go)
}

// readTeam takes the hub's state for the first frame. A hub not
// connected yet, with no error, is not news: the feed is opening.
func (m *Model) readTeam() {
	tm := m.ctx.Team
	if tm == nil {
		return
	}
	m.watchTeam()
	up, why := tm.Connected()
	m.team = teamState{seen: true, up: up || why == "", why: why, claims: tm.ClaimsVersion(), changed: m.team.changed, record: m.lookRecord()}
	if !m.team.up {
		m.team.downSince = m.ctx.Now()
	}
}

// checkTeam looks at the hub (memory only, on every message, the clock's
// included): when the feed went down the banner comes, with the reason;
// when it came back the banner goes and the footer says so; the screens
// get their new height either way. A change of the claims needs no more
// than the frame every message draws.
func (m *Model) checkTeam() {
	tm := m.ctx.Team
	if tm == nil {
		return
	}
	m.watchTeam()
	up, why := tm.Connected()
	if v := tm.ClaimsVersion(); v != m.team.claims {
		m.team.claims = v
		if m.view == viewDetail {
			m.screens[viewDetail], _ = m.screens[viewDetail].Update(common.ClaimsChangedMsg{}) // its claim line
		}
	}
	m.checkRecord()
	was := m.team.up
	switch {
	case !up && why == "": // still opening the first time: not news
		return
	case up && !was:
		down := m.ctx.Now().Sub(m.team.downSince).Round(time.Second)
		m.team.up, m.team.why = true, ""
		m.status.set("the hub at "+tm.URL()+" is back after "+down.String()+": the dashboard caught up with what it missed", false, m.ctx.Now())
		m.layout()
	case !up && was:
		m.team.up, m.team.why, m.team.downSince = false, why, m.ctx.Now()
		m.log.Warn("the hub is unreachable", "hub", tm.URL(), common.LogKeyErr, why)
		m.layout()
	case !up:
		m.team.why = why
	}
}

// teamBannerLines is the banner of an unreachable hub: what is shown is
// the last picture, stale, and nothing is sent until it is back; while
// the hub is up, the banner of its record if it cannot reach it
// (record.go).
func (m *Model) teamBannerLines() []string {
	tm := m.ctx.Team
	if tm == nil {
		return nil
	}
	if m.team.up {
		return m.recordBannerLines()
	}
	since := m.team.downSince.UTC().Format("15:04:05Z")
	why := sanitize.Line(common.TeamWhy(tm.URL(), m.team.why), common.MaxLineText)
	w := max(m.width, 1)
	head := "hub " + tm.URL() + " unreachable since " + since + " — the last picture, stale; nothing is sent until it is back; reconnecting"
	long := head + ": " + why
	text := long
	switch {
	case ansi.StringWidth(long) <= w:
	case w-ansi.StringWidth(head) >= 30: // the reason cut at the end
		text = ansi.Truncate(long, w, "…")
	default: // too little of the reason would be left: the rest, shorter
		text = common.FirstFit(w, head,
			"hub "+tm.URL()+" unreachable since "+since+" — stale; nothing is sent until it is back",
			"hub unreachable since "+since+" — the last picture, stale; nothing is sent until it is back",
			"hub unreachable since "+since+" — stale; nothing is sent",
			"hub unreachable — stale")
	}
	return []string{m.ctx.Theme.Error.Render(text)}
}

// teamBadge is the right end of the header: which hub, which operator,
// before badge (READ-ONLY); within most cells when it can.
func (m *Model) teamBadge(badge string, most int) string {
	tm := m.ctx.Team
	if tm == nil {
		return badge
	}
	t := m.ctx.Theme
	host := tm.URL()
	if u, err := url.Parse(host); err == nil && u.Host != "" {
		host = u.Host
	}
	if u, err := url.Parse(tm.URL()); err == nil && u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		host = tm.URL() // plain http to another host: say so
	}
	op := tm.Operator()
	mark := t.OK.Render("●")
	if !m.team.up {
		mark = t.Error.Render("○")
	}
	long := mark + " " + t.Muted.Render("hub ") + host + t.Muted.Render(" · operator ") + t.Title.Render(op)
	short := mark + " " + t.Title.Render(op) + t.Muted.Render("@"+host)
	s := long
	if lipgloss.Width(s) > most {
		s = short
	}
	if badge != "" {
		s += " " + badge
	}
	return s
}

func loopbackHost(h string) bool {
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}
