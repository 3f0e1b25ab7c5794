package cli

import (
	"fmt"
	"strconv"
	"strings"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
)

// reportVotes says, for a vote under an approval policy, whom the
// approval (or denial) it sent names, or how many votes it still waits
// for; nothing for one click.
func reportVotes(st Streams, out approvals.Outcome) {
	t := out.Votes
	if t == nil {
		return
	}
	switch {
	case t.Complete && out.Result == approvals.ResultAccepted:
		fmt.Fprintf(st.Out, "votes: %d of %d; the %s sent names %s\n", len(t.Votes), t.Required, sentWord(t.Kind), sanitize.Line(t.Names(), 300))
	case !t.Complete:
		fmt.Fprintf(st.Out, "votes: %d of %d (%s); nothing was sent\n", len(t.Votes), t.Required, sanitize.Line(t.Names(), 300))
	}
}

func sentWord(k approvals.Kind) string {
	if k == approvals.KindDeny {
		return "denial"
	}
	return "approval"
}

// votesCell is the export's "votes" column: `alice 2026-12-01T14:02:00Z
// "rollout window ok"; bob 2026-12-01T14:05:00Z`.
func votesCell(votes []approvals.Voter) string {
	cells := make([]string, len(votes))
	for i, v := range votes {
		cells[i] = v.Name + " " + stamp(v.At)
		if v.Reason != "" {
			cells[i] += " " + strconv.Quote(v.Reason)
		}
	}
	return strings.Join(cells, "; ")
}
