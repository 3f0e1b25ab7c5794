package detail

import (
	"fmt"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// voteFields list, for a task waiting at an approval under its agent's
// approval policy, the votes on its prompt: how many of how many, each
// approval and denial with who, when and why, and the votes that no
// longer count (the prompt changed, or older than vote_ttl). Nothing
// without a policy or a journal.
func (v *Screen) voteFields(b *common.Section, t *model.Task) {
	svc := v.act.Journal()
	if svc == nil || t == nil || t.Snapshot == nil {
		return
	}
	vs := svc.VotesOn(svc.ItemFor(t))
	if !vs.Policy {
		return
	}
	th := v.ctx.Theme
	head := fmt.Sprintf("%d of %d approvals: nothing is sent until the last", len(vs.Approvals), vs.Required)
	if vs.Required <= 1 {
		head = "one approval sends"
	}
	b.Field("votes", head)
	for _, vt := range vs.Approvals {
		b.Field("", "✓ "+voter(vt, "approved"))
	}
	for _, vt := range vs.Denials {
		b.Field("", "✗ "+voter(vt, "denied"))
	}
	if vs.Dropped > 0 {
		b.Field("", th.Warn.Render(fmt.Sprintf("the prompt changed while votes were open: %s for the earlier question dropped",
			common.Plural(vs.Dropped, "vote"))))
	}
	if vs.Expired > 0 {
		b.Field("", th.Muted.Render(common.Plural(vs.Expired, "older vote")+" no longer counting (vote_ttl)"))
	}
}

// voter is one vote in words: "alice approved 14:02 "rollout window ok"".
func voter(vt approvals.Voter, what string) string {
	return sanitize.Line(vt.Words(what), common.MaxLineText)
}
