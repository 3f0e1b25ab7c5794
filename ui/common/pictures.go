package common

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"a2atop/model"
	"a2atop/ui/theme"
)

// Pictures where a glance beats reading: the tasks header's stacked bar,
// the detail's timeline of states and streaming progress, the agents'
// sparklines. Each is drawn from what the fleet (or the root's
// Activity) holds already, and costs the cells it draws.

// classGlyph is what a class's cells are drawn with, so that the bar and
// the timeline read without colour too.
func classGlyph(c model.Class) string {
	switch c {
	case model.ClassActive:
		return "█"
	case model.ClassInterrupted:
		return "▒"
	case model.ClassTerminal:
		return "░"
	}
	return "?"
}

// StackedBar is the share of active, interrupted and terminal tasks in w
// cells, each in its class's colour and glyph; a class with any task
// gets at least a cell.
func StackedBar(th *theme.Theme, counts [3]int, w int) string {
	classes := [3]model.Class{model.ClassActive, model.ClassInterrupted, model.ClassTerminal}
	total := counts[0] + counts[1] + counts[2]
	if w < 3 || total == 0 {
		return ""
	}
	cells := shares(counts[:], w)
	var b strings.Builder
	for i, n := range cells {
		b.WriteString(th.Class(classes[i]).Render(strings.Repeat(classGlyph(classes[i]), n)))
	}
	return b.String()
}

// shares splits w cells in proportion to counts (largest remainders),
// giving every non-zero count at least one cell when w allows.
func shares(counts []int, w int) []int {
	total := 0
	for _, c := range counts {
		total += c
	}
	out := make([]int, len(counts))
	if total == 0 {
		return out
	}
	used := 0
	type rem struct{ i, r int }
	var rems []rem
	for i, c := range counts {
		out[i] = c * w / total
		if c > 0 && out[i] == 0 {
			out[i] = 1
		}
		used += out[i]
		rems = append(rems, rem{i, c * w % total})
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for k := 0; used < w && k < len(rems); k++ {
		if counts[rems[k].i] > 0 {
			out[rems[k].i]++
			used++
		}
	}
	for used > w { // the minimum cells overshot: take from the largest
		big := 0
		for i := range out {
			if out[i] > out[big] {
				big = i
			}
		}
		out[big]--
		used--
	}
	return out
}

// Timeline draws a task's states in w cells: a bar of one segment per
// state, its width its share of the time (at least a cell; a terminal
// state is the bar's end), then one line per state with its time and how
// long it lasted. dropped states before the first are said.
func Timeline(th *theme.Theme, marks []model.StateMark, dropped int, now time.Time, w int) []string {
	if len(marks) == 0 {
		return nil
	}
	durs := make([]int, len(marks))
	for i, m := range marks {
		end := now
		if i+1 < len(marks) {
			end = marks[i+1].At
		}
		switch {
		case model.ClassOf(m.State) == model.ClassTerminal && i == len(marks)-1:
			durs[i] = 0
		case m.At.IsZero() || !end.After(m.At):
			durs[i] = 1
		default:
			durs[i] = int(end.Sub(m.At) / time.Millisecond)
		}
	}
	barW := max(w-4, len(marks))
	widths := shares(durs, barW-1) // the end marker takes a cell
	var bar strings.Builder
	for i, m := range marks {
		n := widths[i]
		if n == 0 && durs[i] > 0 {
			n = 1
		}
		c := model.ClassOf(m.State)
		bar.WriteString(th.State(m.State).Render(strings.Repeat(classGlyph(c), n)))
	}
	last := marks[len(marks)-1]
	end := th.Muted.Render("▸")
	if model.ClassOf(last.State) == model.ClassTerminal {
		end = th.State(last.State).Render("■")
	}
	lines := []string{"  " + bar.String() + end}
	if dropped > 0 {
		lines = append(lines, th.Muted.Render(fmt.Sprintf("  … %d earlier states not kept", dropped)))
	}
	for i, m := range marks {
		at := "-"
		if !m.At.IsZero() {
			at = m.At.UTC().Format("15:04:05Z")
		}
		lasted := ""
		switch {
		case i+1 < len(marks):
			lasted = "for " + span(marks[i+1].At.Sub(m.At))
		case model.ClassOf(m.State) != model.ClassTerminal && !m.At.IsZero():
			lasted = "for " + span(now.Sub(m.At)) + " so far"
		}
		lines = append(lines, "  "+th.Muted.Render(at)+"  "+th.State(m.State).Render(Pad(StateText(m.State), 16))+" "+th.Muted.Render(lasted))
	}
	return lines
}

// span writes a duration the way a timeline reads it: "850ms", "42s",
// "3m12s", "2h5m".
func span(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		return strings.TrimSuffix(d.Round(time.Second).String(), "0s")
	}
	return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
}

// Progress is a streamed artifact's line: its chunks, bytes, rate and
// last chunk.
func Progress(th *theme.Theme, s model.Stream, now time.Time) string {
	took := s.Last.Sub(s.First)
	rate := ""
	if took > 0 {
		rate = " · " + bytesText(int(float64(s.Bytes)/took.Seconds())) + "/s"
	}
	if s.Done {
		return th.OK.Render(fmt.Sprintf("streamed: %s · %s in %s%s · last chunk %s", Plural(s.Chunks, "chunk"), bytesText(s.Bytes),
			span(took), rate, s.Last.UTC().Format("15:04:05Z")))
	}
	return th.Warn.Render(fmt.Sprintf("streaming: %s · %s%s · last chunk %s ago", Plural(s.Chunks, "chunk"), bytesText(s.Bytes),
		rate, span(now.Sub(s.Last))))
}

// bytesText is "812 B", "12.3 KiB", "4.1 MiB".
func bytesText(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
