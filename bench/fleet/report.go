package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"a2atop/a2aclient"
	"a2atop/model"
)

// report gathers every run's figures and prints them side by side.
type report struct {
	start time.Time
	load  [2]string // load average at the start and the end
	c     config
	rows  map[string]map[string]watchResult // scenario -> mode -> result
	bares []bareRow
}

type bareRow struct {
	scenario, agent string
	res             bareResult
}

func (r *report) add(sc string, res watchResult) {
	if r.rows == nil {
		r.rows = map[string]map[string]watchResult{}
	}
	if r.rows[sc] == nil {
		r.rows[sc] = map[string]watchResult{}
	}
	r.rows[sc][res.Mode] = res
}

func (r *report) bareOf(sc string) (bareResult, bool) {
	for _, b := range r.bares {
		if b.scenario == sc {
			return b.res, true
		}
	}
	return bareResult{}, false
}

func (r *report) print(w io.Writer) {
	c := r.c
	fmt.Fprintf(w, "\n# a2atop fleet benchmark (%s, %s, GOMAXPROCS %d)\n", runtime.Version(), r.start.Format(time.RFC3339), runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "load average at start %s, at end %s; took %s\n", r.load[0], r.load[1], time.Since(r.start).Round(time.Second))
	fmt.Fprintf(w, "fleet: %d agents x %d tasks (%d running, %d waiting, the rest finished), churn %g events/s for %s\n",
		c.agents, c.tasks, c.active, c.interrupted, c.rate, c.duration)
	fmt.Fprintf(w, "big: 1 agent x %d tasks (%d working, %d waiting, the rest finished), nothing changing; idle windows %s\n",
		c.big, c.bigActive, c.bigInt, c.idle)
	if r.rows["unstamped"] != nil {
		fmt.Fprintf(w, "unstamped: 1 agent x %d tasks (%d working, %d SUBMITTED without a status timestamp, %d input-required, %d auth-required, the rest finished), nothing changing; idle windows %s\n",
			c.big, c.unWorking, c.unSubmitted, c.unInput, c.unAuth, c.idle)
	}
	streams := fmt.Sprint(a2aclient.DefaultMaxStreamsTotal)
	if c.streamsTotal != 0 {
		streams = fmt.Sprint(c.streamsTotal)
	}
	limit := "none"
	if c.memLimitMiB > 0 {
		limit = fmt.Sprintf("%d MiB", c.memLimitMiB)
	}
	fmt.Fprintf(w, "terminal_per_agent %d, terminal_total %d: each fleet agent keeps %d finished tasks, the big agent %d; max_streams_total %s; a2atop's memory limit %s\n\n",
		c.keep, c.terminalTotal, model.TerminalKept(c.keep, c.terminalTotal, c.agents), model.TerminalKept(c.keep, c.terminalTotal, 1), streams, limit)

	row := func(fig, before, now, bare, goal string) {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", fig, before, now, bare, goal)
	}
	// ran reports whether a mode was measured at all: a figure of a mode
	// not run is "-", not a zero.
	ran := func(r watchResult, s string) string {
		if r.Mode == "" {
			return "-"
		}
		return s
	}
	fmt.Fprintln(w, "| figure | list all (as before) | by state (a2atop now) | bare SDK client | goal |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	big, fleet := r.rows["big"], r.rows["fleet"]
	bb, hasBB := r.bareOf("big")
	fb, hasFB := r.bareOf("fleet")
	str := func(ok bool, f func() string) string {
		if !ok {
			return "-"
		}
		return f()
	}
	if big != nil {
		o, n := big["list all"], big["by state"]
		row("complete inbox, 100k-task agent (card read to frame)", dur(o.InboxMax), dur(n.InboxMax),
			str(hasBB, func() string { return dur(bb.Inbox) + " (by state)" }), "< 1 s")
		row("complete picture, 100k-task agent (all open + newest terminal kept)", dur(o.PictureMax), dur(n.PictureMax),
			str(hasBB, func() string {
				return fmt.Sprintf("%s by state (%d pages); %s all (%d pages)", dur(bb.Picture), bb.Pages, dur(bb.All), bb.AllPages)
			}), "< 3 s")
		row("ListTasks/min, 100k-task agent, nothing changing", ran(o, num(o.IdleListPerMin)), ran(n, num(n.IdleListPerMin)), "-", "< 30")
		row("idle CPU, 100k-task agent, nothing changing", ran(o, pct(o.IdleCPU)), ran(n, pct(n.IdleCPU)), "-", "< 1 % of a core")
		row("RSS / heap in use, 100k-task agent, idle", mem(o.IdleRSS, o.IdleHeapInuse), mem(n.IdleRSS, n.IdleHeapInuse), "-", "-")
	}
	if un := r.rows["unstamped"]; un != nil {
		o, n := un["list all"], un["by state"]
		row("ListTasks/min, 100k-task agent with 500 unstamped SUBMITTED, nothing changing", ran(o, num(o.IdleListPerMin)), ran(n, num(n.IdleListPerMin)), "-", "< 30")
		row("  then one unstamped SUBMITTED task moves to WORKING: seen after", ran(o, touched(o.TouchSeen)), ran(n, touched(n.TouchSeen)), "-", "-")
		row("  idle CPU", ran(o, pct(o.IdleCPU)), ran(n, pct(n.IdleCPU)), "-", "< 1 % of a core")
	}
	if fleet != nil {
		o, n := fleet["list all"], fleet["by state"]
		row(fmt.Sprintf("complete inbox, %dx%d fleet (per agent p50 / max; every agent from start)", c.agents, c.tasks),
			ran(o, pictureTimes(o.InboxP50, o.InboxMax, o.AllInbox)), ran(n, pictureTimes(n.InboxP50, n.InboxMax, n.AllInbox)), "-", "< 1 s")
		row(fmt.Sprintf("complete picture, %dx%d fleet", c.agents, c.tasks),
			ran(o, pictureTimes(o.PictureP50, o.PictureMax, o.AllPicture)), ran(n, pictureTimes(n.PictureP50, n.PictureMax, n.AllPicture)),
			str(hasFB, func() string {
				return dur(fb.Picture) + " one agent by state; every agent at once: " + dur(fb.FleetPicture)
			}), "< 3 s")
		row(fmt.Sprintf("event-to-screen p50 / p99, %g events/s", c.rate), lat(o), lat(n),
			str(hasFB && fb.StreamN > 0, func() string {
				return fmt.Sprintf("%s / %s (%d events, status timestamp to the SDK stream)", dur(fb.StreamP50), dur(fb.StreamP99), fb.StreamN)
			}), "p99 < 100 ms")
		row("  the same, changes that came by a stream", qlat(o.LatStream), qlat(n.LatStream), "-", "-")
		row("  the same, from arrival at a2atop to the frame", qlat(o.LatOurs), qlat(n.LatOurs), "-", "-")
		row(fmt.Sprintf("RSS / heap in use after %s of churn", n.Steady), mem(o.RSS, o.HeapInuse), mem(n.RSS, n.HeapInuse), "-", "< 150 MiB")
		row("RSS max, first / second half of the churn (flat?)", halves(o), halves(n), "-", "flat")
		row("CPU per 1,000 events/s", perK(o), perK(n), "-", "-")
		row("ListTasks/min per agent, churning", ran(o, num(o.ListPerMin)), ran(n, num(n.ListPerMin)), "-", "-")
		row("ListTasks/min per agent, nothing changing", ran(o, num(o.IdleListPerMin)), ran(n, num(n.IdleListPerMin)), "-", "-")
		row("idle CPU, fleet, nothing changing", ran(o, pct(o.IdleCPU)), ran(n, pct(n.IdleCPU)), "-", "< 1 % of a core")
	}
	fmt.Fprintln(w)
	for _, sc := range []string{"fleet", "big"} {
		for _, mode := range []string{"by state", "list all"} {
			res, ok := r.rows[sc][mode]
			if !ok {
				continue
			}
			fmt.Fprintf(w, "%s, %s: %d incomplete; churn %s: %.0f events/s delivered (%.0f status), CPU %s; latency n=%d p99.9 %s max %s, %d not shown; %d frames\n",
				sc, mode, res.Incomplete, res.Steady, res.EventsPerSec, res.StatusPerSec, pct(res.SteadyCPU), res.LatN,
				dur(res.LatP999), dur(res.LatMax), res.LatNotShown, res.Frames)
		}
	}
}

func dur(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func pictureTimes(p50, max, all time.Duration) string {
	return dur(p50) + " / " + dur(max) + "; all " + dur(all)
}

func lat(r watchResult) string {
	if r.LatN == 0 {
		return "-"
	}
	return dur(r.LatP50) + " / " + dur(r.LatP99)
}

func qlat(q quantiles) string {
	if q.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%s / %s (n=%d)", dur(q.P50), dur(q.P99), q.N)
}

func mem(rss, heap uint64) string {
	if rss == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MiB / %.0f MiB", float64(rss)/(1<<20), float64(heap)/(1<<20))
}

func halves(r watchResult) string {
	if r.RSSFirstHalf == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f / %.0f MiB", float64(r.RSSFirstHalf)/(1<<20), float64(r.RSSSecondHalf)/(1<<20))
}

func pct(f float64) string { return fmt.Sprintf("%.2f %%", 100*f) }

func num(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", f), ".0") }

func perK(r watchResult) string {
	if r.EventsPerSec <= 0 {
		return "-"
	}
	return pct(r.SteadyCPU/(r.EventsPerSec/1000)) + " of a core"
}

// touched is the time to see the touched task, or "not seen in 2 min".
func touched(d time.Duration) string {
	if d < 0 {
		return "not seen in 2 min"
	}
	return dur(d)
}
