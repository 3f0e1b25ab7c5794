package agents

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// healthStyle colours a health state.
func healthStyle(ctx *common.Context, h model.Health) lipgloss.Style {
	th := ctx.Theme
	switch {
	case h.Up():
		return th.OK
	case h == model.HealthBackoff || h == model.HealthConnecting:
		return th.Warn
	}
	return th.Error
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// card is the selected agent in full, and its last raw exchanges.
func (v *Screen) card() string {
	a := v.selected()
	if a == nil {
		return ""
	}
	th, now := v.ctx.Theme, v.ctx.Now()
	b := common.Section{W: max(v.w, 10), Th: th}
	info, h := a.Info, a.Health
	title := sanitize.Line(a.Name, 64)
	if info.CardName != "" && info.CardName != a.Name {
		title += " — " + sanitize.Line(info.CardName, common.MaxLineText)
	}
	b.Line(th.Title.Render(title))
	if info.Description != "" {
		b.Text(info.Description)
	}
	b.Field("url", sanitize.Line(a.URL, common.MaxLineText))
	if info.InterfaceURL != "" {
		b.Field("interface", sanitize.Line(info.InterfaceURL, common.MaxLineText))
	}
	b.Field("protocol", orDash(sanitize.Line(info.ProtocolVersion, 16))+"  binding "+orDash(sanitize.Line(info.Binding, 32)))
	if info.Tenant != "" {
		b.Field("tenant", sanitize.Line(info.Tenant, 128))
	}
	listing := yesNo(h.Listing)
	if h.ListingNote != "" {
		listing += " (" + sanitize.Line(h.ListingNote, common.MaxLineText) + ")"
	}
	b.Field("supports", "streaming "+yesNo(info.Streaming)+" · push "+yesNo(info.Push)+" · listing "+listing)
	if info.ReadOnly || v.ctx.ReadOnly {
		b.Field("writes", th.Warn.Render("read-only"))
	}
	v.trustFields(&b, info)
	state := h.State.String()
	if h.Streams > 0 {
		state += " (" + common.Plural(h.Streams, "stream") + " open)"
	}
	if h.StreamsShort > 0 {
		state += "; " + common.Plural(h.StreamsShort, "more task") + " followed by sweeps (the fleet's stream budget, max_streams_total)"
	}
	b.Field("health", healthStyle(v.ctx, h.State).Render(state))
	if h.Err != "" {
		b.Field("last error", th.Error.Render(sanitize.Line(h.Err, common.MaxFieldText)))
	}
	v.pushFields(&b, h.Push, now)
	b.Field("last success", common.Stamp(now, h.LastSuccess))
	if !h.NextRetry.IsZero() {
		b.Field("next retry", futureIn(now, h.NextRetry))
	}
	b.Field("tasks", "active "+strconv.Itoa(a.Counts[model.ClassActive])+" · interrupted "+
		strconv.Itoa(a.Counts[model.ClassInterrupted])+" · terminal "+strconv.Itoa(a.Counts[model.ClassTerminal])+
		" · unknown "+strconv.Itoa(a.Counts[model.ClassUnknown]))
	if a.Violations > 0 {
		b.Field("violations", th.Error.Render(strconv.Itoa(a.Violations)+" protocol violations"))
	}
	v.activityFields(&b, a.Name)
	v.exchanges(&b, a.Name)
	return strings.TrimRight(b.String(), "\n")
}

// exchanges writes the newest captured requests and responses first.
func (v *Screen) exchanges(b *common.Section, name string) {
	th := v.ctx.Theme
	xs := v.captures[name]
	if v.ctx.Backend == nil {
		return
	}
	b.Heading("Raw exchanges (newest first, " + strconv.Itoa(min(len(xs), maxExchanges)) + " of " + strconv.Itoa(len(xs)) + ")")
	if len(xs) == 0 {
		b.Line(th.Muted.Render("none captured yet"))
	}
	for i := len(xs) - 1; i >= 0 && i >= len(xs)-maxExchanges; i-- {
		x := xs[i]
		head := x.At.UTC().Format("15:04:05.000") + "  " + sanitize.Line(x.Method, 10) + "  " +
			sanitize.Line(x.RPC, 64) + "  " + exchangeStatus(x) + "  " + x.Duration.Round(100_000).String()
		b.Line(th.Label.Render(head))
		b.Line(th.Muted.Render("  " + sanitize.Line(x.URL, common.MaxLineText)))
		if x.Err != "" {
			b.Line(th.Error.Render("  error: " + sanitize.Line(x.Err, common.MaxLineText)))
		}
		bodyLines(b, "→ ", x.Request)
		bodyLines(b, "← ", x.Response)
	}
}

// exchangeStatus is "200", "200 rpc -32004" or "no response".
func exchangeStatus(x model.Exchange) string {
	s := "no response"
	if x.Status != 0 {
		s = strconv.Itoa(x.Status)
	}
	if x.RPCCode != 0 {
		s += " rpc " + strconv.Itoa(x.RPCCode)
	}
	return s
}

// bodyLines writes the first lines of a captured body.
func bodyLines(b *common.Section, prefix, body string) {
	const maxLines = 6
	if body == "" {
		return
	}
	lines := strings.Split(sanitize.Text(body, 4096), "\n")
	for i, l := range lines {
		if i == maxLines {
			b.Line(b.Th.Muted.Render("    … " + strconv.Itoa(len(lines)-maxLines) + " more lines"))
			break
		}
		b.Line("  " + prefix + strings.ReplaceAll(l, "\t", common.TabSpaces))
		prefix = "  "
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// activityFields are the agent's events per minute over the last hour
// and the latency of its last calls, as sparklines with their figures.
func (v *Screen) activityFields(b *common.Section, name string) {
	th := v.ctx.Theme
	per := v.ctx.Activity.PerMinute(name, v.ctx.Now())
	var total, peak uint32
	for _, n := range per {
		total += n
		peak = max(peak, n)
	}
	w := min(max(b.W-16, 10), common.ActivityMinutes)
	b.Field("events/min", th.Title.Render(common.Pad(common.Sparkline(per[:], w), w)))
	b.Field("", th.Muted.Render(fmt.Sprintf("%d in the last hour · peak %d/min · now %d/min (60 minutes ago … now)", total, peak, per[len(per)-1])))
	if vals, words := common.Latencies(v.captures[name]); len(vals) > 0 {
		b.Field("latency", th.Title.Render(common.Sparkline(vals, min(len(vals), w))))
		b.Field("", th.Muted.Render(words))
	}
}

// pushFields say what the agent's push notifications do, when a2atop
// serves a webhook: on or off (and why), the configs a2atop holds, the
// last delivery, and the POSTs the webhook refused (and why the last was).
func (v *Screen) pushFields(b *common.Section, p model.PushHealth, now time.Time) {
	th := v.ctx.Theme
	if !p.On && p.Note == "" && p.Delivered == 0 && p.Rejected == 0 {
		return // no webhook configured
	}
	if !p.On {
		b.Field("push", th.Muted.Render("off: "+sanitize.Line(p.Note, common.MaxFieldText)))
	} else {
		line := "on · " + common.Plural(p.Configs, "config") + " registered · last delivery " + common.Stamp(now, p.LastDelivery)
		if p.Delivered > 0 {
			line += " (" + strconv.Itoa(p.Delivered) + " delivered)"
		}
		b.Field("push", line)
		if p.Note != "" {
			b.Field("push error", th.Error.Render(sanitize.Line(p.Note, common.MaxFieldText)))
		}
	}
	if p.Rejected > 0 {
		b.Field("push refused", th.Error.Render(strconv.Itoa(p.Rejected)+" POSTs, the last: "+sanitize.Line(p.LastRejected, common.MaxFieldText)))
	}
}
