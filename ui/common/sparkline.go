package common

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"a2atop/model"
)

// sparkBlocks are the sparkline's heights, lowest first.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws values in w cells: each cell the sum of the values it
// covers, scaled to the largest; an empty cell is a space.
func Sparkline(values []uint32, w int) string {
	if w <= 0 || len(values) == 0 {
		return ""
	}
	w = min(w, len(values))
	cells := make([]uint32, w)
	for i, v := range values {
		cells[i*w/len(values)] += v
	}
	var peak uint32
	for _, c := range cells {
		peak = max(peak, c)
	}
	var b strings.Builder
	for _, c := range cells {
		switch {
		case c == 0:
			b.WriteByte(' ')
		case peak == 0:
			b.WriteRune(sparkBlocks[0])
		default:
			b.WriteRune(sparkBlocks[int(uint64(c)*uint64(len(sparkBlocks)-1)/uint64(peak))])
		}
	}
	return b.String()
}

// Latencies are the durations of an agent's last calls, oldest first,
// as a sparkline's values (in 0.1 ms), and the words for the newest,
// the median and the slowest. Streams (SubscribeToTask, a streaming
// SendMessage) last as long as the task talks: they are not calls.
func Latencies(all []model.Exchange) ([]uint32, string) {
	var xs []model.Exchange
	for _, x := range all {
		if x.Duration > 0 && !strings.Contains(x.RPC, "Subscribe") && !strings.Contains(x.RPC, "Streaming") {
			xs = append(xs, x)
		}
	}
	if len(xs) == 0 {
		return nil, ""
	}
	vals := make([]uint32, len(xs))
	ds := make([]time.Duration, len(xs))
	for i, x := range xs {
		ds[i] = x.Duration
		vals[i] = uint32(min(x.Duration/(100*time.Microsecond), 1<<31))
	}
	sorted := append([]time.Duration(nil), ds...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a] < sorted[b] })
	r := func(d time.Duration) string {
		if d >= time.Second {
			return d.Round(time.Millisecond).String()
		}
		return d.Round(100 * time.Microsecond).String()
	}
	return vals, fmt.Sprintf("last %s · median %s · slowest %s (of %d calls)", r(ds[len(ds)-1]), r(sorted[len(sorted)/2]),
		r(sorted[len(sorted)-1]), len(ds))
}
