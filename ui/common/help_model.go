package common

import (
	"github.com/charmbracelet/bubbles/help"

	"a2atop/ui/theme"
)

// NewHelpModel is a bubbles help.Model in the theme's styles.
func NewHelpModel(th *theme.Theme) help.Model {
	h := help.New()
	h.Styles.ShortKey, h.Styles.FullKey = th.HelpKey, th.HelpKey
	h.Styles.ShortDesc, h.Styles.FullDesc = th.HelpDesc, th.HelpDesc
	h.Styles.ShortSeparator, h.Styles.FullSeparator = th.HelpSep, th.HelpSep
	h.Styles.Ellipsis = th.HelpSep
	return h
}
