package agents

import (
	"strings"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// trustFields write in the agent's card which credential a2atop sends
// (and what the config lacks for the card's requirements, and how to sign
// in), the card's signature and what the extended card adds.
func (v *Screen) trustFields(b *common.Section, info model.AgentInfo) {
	th := v.ctx.Theme
	if info.Auth != "" {
		auth := sanitize.Line(info.Auth, common.MaxLineText)
		if info.SignIn {
			auth += th.Muted.Render("  (L: sign in)")
		}
		b.Field("auth", auth)
	}
	if info.AuthMissing != "" {
		b.Field("auth missing", th.Warn.Render(sanitize.Line(info.AuthMissing, common.MaxFieldText)))
	}
	if info.Signature != "" {
		style := th.Warn
		switch {
		case info.SignatureOK:
			style = th.OK
		case strings.HasPrefix(info.Signature, "signature invalid"):
			style = th.Error
		}
		b.Field("card", style.Render(sanitize.Line(info.Signature, common.MaxFieldText)))
	}
	if info.Extended != "" {
		b.Field("extended card", sanitize.Line(info.Extended, common.MaxFieldText))
	}
}
