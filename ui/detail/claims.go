package detail

import (
	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// claimField says in the detail who else on the team is at work on the
// task ("bob is answering"); nothing without a hub or a claim.
func (v *Screen) claimField(b *common.Section, t *model.Task) {
	if v.ctx.Team == nil {
		return
	}
	if w := v.ctx.Team.ClaimWords(t.Key.Agent, t.Key.ID); w != "" {
		b.Field("claimed", v.ctx.Theme.Warn.Render(sanitize.Line(w, common.MaxLineText)+" (a claim informs, it does not block)"))
	}
}
