package inbox

import (
	"fmt"

	"a2atop/internal/sanitize"
)

// chainLine is the journal's line about its hash chain, as the Service
// checked it while reading: "chain verified up to 11-29 20:02:00Z (42
// records, signed to line 40)", or the first break no acceptance covers
// (at which line, what was done, what to run, how it shows); "" while
// the journal has no chained record; for a shared record (NATS
// JetStream), that it is not chained and what holds it.
func (j *Journal) chainLine() string {
	th, c := j.ctx.Theme, j.chain
	if c.Shared != "" {
		return th.Muted.Render(sanitize.Line("not hash-chained: the team's record in NATS JetStream holds the lines in its stream's order · a2atop journal verify", j.w))
	}
	if b := c.First(true); b != nil {
		st := th.Error
		if b.Tail() {
			st = th.Warn // a crash's cut line until the next write names it
		}
		return st.Render(sanitize.Line(fmt.Sprintf("chain broken at line %d (%s) · a2atop journal verify · %s", b.Line, b.Kind, b.Words), j.w))
	}
	if c.Records == 0 {
		return ""
	}
	s := fmt.Sprintf("chain verified up to %s (%d records", stamp(c.HeadAt), c.Records)
	if c.Partial {
		s = fmt.Sprintf("chain verified up to %s (%d records the hub sent; the hub checks the whole", stamp(c.HeadAt), c.Records)
	}
	if c.Checkpoints > 0 {
		s += fmt.Sprintf(", signed to line %d", c.SignedLine)
	}
	s += ")"
	if c.Start > 1 {
		s += fmt.Sprintf(" · lines 1–%d were written before the chain", c.Start-1)
	}
	if n := len(c.Breaks); n > 0 {
		s += fmt.Sprintf(" · %d break(s) accepted", n)
	}
	return th.Muted.Render(sanitize.Line(s, j.w))
}
