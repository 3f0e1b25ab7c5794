package ui

import (
	"net/url"
	"time"

	"github.com/charmbracelet/x/ansi"

	"a2atop/internal/sanitize"
	"a2atop/ui/common"
)

// A hub that keeps the team's record in NATS JetStream says when it
// cannot reach it (common.TeamRecord): it refuses every decision then,
// sends nothing, and tries again by itself. The root draws that as a
// banner under the header while the hub's feed is up (the banner of an
// unreachable hub says more, and the record's state is stale then),
// and the footer says when the record is back.

// recordSeen is the team's record as the hub said at the last look; the
// zero value is a record reachable, or a hub that says nothing of it.
type recordSeen struct {
	down  bool
	since time.Time // by the hub's clock
	why   string
}

// lookRecord is what the hub says of its record now.
func (m *Model) lookRecord() recordSeen {
	tr, ok := m.ctx.Team.(common.TeamRecord)
	if !ok {
		return recordSeen{}
	}
	up, since, why := tr.RecordReachable()
	if up {
		return recordSeen{}
	}
	return recordSeen{down: true, since: since, why: why}
}

// checkRecord looks at the hub's record (memory only): when the hub lost
// it the banner comes; when it is back the banner goes and the footer
// says so; the screens get their new height either way.
func (m *Model) checkRecord() {
	r, was := m.lookRecord(), m.team.record
	if r.down == was.down && r.why == was.why && r.since.Equal(was.since) {
		return
	}
	m.team.record = r
	switch {
	case r.down && !was.down:
		m.log.Warn("the hub cannot reach the team's record; it refuses decisions", "hub", m.ctx.Team.URL(), common.LogKeyErr, r.why)
		m.layout()
	case !r.down && was.down:
		m.status.set("the team's record is back at the hub (lost since "+was.since.UTC().Format("15:04:05Z")+"): decisions are taken again", false, m.ctx.Now())
		m.layout()
	}
}

// recordBannerLines is the banner of a hub that cannot reach the team's
// record: since when, that decisions are refused and nothing is sent,
// that the hub retries, and why, on one line when it fits and on two
// when not; none while the record is reachable.
func (m *Model) recordBannerLines() []string {
	r := m.team.record
	if !r.down {
		return nil
	}
	w := max(m.width, 1)
	since := r.since.UTC().Format("15:04:05Z")
	host := m.ctx.Team.URL()
	if u, err := url.Parse(host); err == nil && u.Host != "" {
		host = u.Host
	}
	what := "the team's record (NATS JetStream) is unreachable at hub " + host + " since " + since
	so := "decisions are refused and nothing is sent; the hub retries by itself"
	why := sanitize.Line(r.why, common.MaxLineText)
	withWhy := func(head string) string { // the reason after head, cut at the end; "" when too little of it would show
		long := head + ": " + why
		switch {
		case why == "":
			return head
		case ansi.StringWidth(long) <= w:
			return long
		case w-ansi.StringWidth(head) >= 30:
			return ansi.Truncate(long, w, "…")
		}
		return ""
	}
	if line := withWhy(what + " — " + so); line != "" {
		return []string{m.ctx.Theme.Error.Render(line)}
	}
	first := common.FirstFit(w, what,
		"the team's record (NATS JetStream) is unreachable at the hub since "+since,
		"the team's record is unreachable at the hub since "+since,
		"team record unreachable since "+since,
		"record unreachable")
	second := withWhy(so)
	if second == "" {
		second = common.FirstFit(w, so, "decisions refused, nothing sent; the hub retries", "decisions refused; retrying")
	}
	return []string{m.ctx.Theme.Error.Render(first), m.ctx.Theme.Error.Render(second)}
}
