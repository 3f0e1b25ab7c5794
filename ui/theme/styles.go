package theme

import "github.com/charmbracelet/lipgloss"

// build fills the named styles from the palette. Without colour, emphasis
// is carried by bold, reverse, underline and faint alone.
func (t *Theme) build(r *lipgloss.Renderer) {
	p := t.Palette
	s := r.NewStyle
	fg := func(c lipgloss.AdaptiveColor) lipgloss.Style { return s().Foreground(t.color(c)) }

	t.App = s()
	t.Text = fg(p.Text)
	t.Muted = fg(p.Muted).Faint(t.NoColor)
	t.Label = fg(p.Muted)
	t.Title = fg(p.Accent).Bold(true)
	t.Header = s()
	t.Footer = fg(p.Muted)
	t.Badge = s().Bold(true).Padding(0, 1).
		Foreground(t.color(p.BadgeFg)).Background(t.color(p.BadgeBg)).Reverse(t.NoColor)
	t.Link = fg(p.Accent).Underline(true)
	t.LinkFocused = fg(p.Accent).Underline(true).Bold(true).Reverse(true)

	t.Pane = s().Border(lipgloss.RoundedBorder()).BorderForeground(t.color(p.Border))
	t.PaneFocused = s().Border(lipgloss.ThickBorder()).BorderForeground(t.color(p.Accent))
	t.PaneTitle = fg(p.Muted).Bold(true)
	t.PaneTitleFocused = fg(p.Accent).Bold(true).Underline(t.NoColor)
	t.ColumnHeader = fg(p.Muted).Bold(true)
	t.Row = s()
	t.RowSelected = s().Bold(true).
		Foreground(t.color(p.SelectionFg)).Background(t.color(p.SelectionBg)).Reverse(t.NoColor)
	t.RowMarked = s().Underline(true)
	t.Marked = fg(p.Accent).Bold(true)

	t.StateActive = fg(p.Active)
	t.StateInterrupted = fg(p.Interrupted).Bold(true)
	t.StateTerminal = fg(p.Terminal)
	t.StateFailed = fg(p.Failed).Bold(true)
	t.StateUnknown = fg(p.Unknown).Bold(true).Underline(true).Reverse(true)

	t.OK = fg(p.OK)
	t.Warn = fg(p.Warn).Bold(true)
	t.Error = fg(p.Error).Bold(true)

	t.Dialog = s().Border(lipgloss.DoubleBorder()).BorderForeground(t.color(p.Warn)).Padding(0, 1)
	t.DialogTitle = fg(p.Warn).Bold(true)
	t.Prompt = fg(p.Accent).Bold(true)
	t.HelpKey = fg(p.Accent)
	t.HelpDesc = fg(p.Muted)
	t.HelpSep = fg(p.Border)
}
