package ui

import (
	"strings"

	"a2atop/internal/sanitize"
	"a2atop/model"
)

// trustFields write in the agent's card which credential a2atop sends
// (and what the config lacks for the card's requirements, and how to sign
// in), the card's signature and what the extended card adds.
func (v *agentsScreen) trustFields(b *section, info model.AgentInfo) {
	th := v.ctx.Theme
	if info.Auth != "" {
		auth := sanitize.Line(info.Auth, maxLineText)
		if info.SignIn {
			auth += th.Muted.Render("  (L: sign in)")
		}
		b.field("auth", auth)
	}
	if info.AuthMissing != "" {
		b.field("auth missing", th.Warn.Render(sanitize.Line(info.AuthMissing, maxFieldText)))
	}
	if info.Signature != "" {
		style := th.Warn
		switch {
		case info.SignatureOK:
			style = th.OK
		case strings.HasPrefix(info.Signature, "signature invalid"):
			style = th.Error
		}
		b.field("card", style.Render(sanitize.Line(info.Signature, maxFieldText)))
	}
	if info.Extended != "" {
		b.field("extended card", sanitize.Line(info.Extended, maxFieldText))
	}
}
