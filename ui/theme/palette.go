package theme

import "github.com/charmbracelet/lipgloss"

// Palette is the set of colour tokens a Theme is built from. Each token
// has a value for light and one for dark backgrounds.
type Palette struct {
	Text        lipgloss.AdaptiveColor // ordinary text
	Muted       lipgloss.AdaptiveColor // secondary text: ages, ids, labels
	Accent      lipgloss.AdaptiveColor // titles, the focused pane, links
	Border      lipgloss.AdaptiveColor // unfocused pane borders
	SelectionBg lipgloss.AdaptiveColor // the selected row's background
	SelectionFg lipgloss.AdaptiveColor // the selected row's text
	Active      lipgloss.AdaptiveColor // submitted / working
	Interrupted lipgloss.AdaptiveColor // input-required / auth-required
	Terminal    lipgloss.AdaptiveColor // completed / canceled
	Failed      lipgloss.AdaptiveColor // failed / rejected (terminal, but bad)
	Unknown     lipgloss.AdaptiveColor // a state we cannot classify
	OK          lipgloss.AdaptiveColor // healthy agents
	Warn        lipgloss.AdaptiveColor // degraded agents, stale tasks
	Error       lipgloss.AdaptiveColor // down agents, errors
	BadgeBg     lipgloss.AdaptiveColor // the READ-ONLY badge
	BadgeFg     lipgloss.AdaptiveColor
}

// DefaultPalette returns the palette a2atop ships with: ANSI-256 values
// that read well on both common light and dark terminal themes.
func DefaultPalette() Palette {
	return Palette{
		Text:        lipgloss.AdaptiveColor{Light: "235", Dark: "252"},
		Muted:       lipgloss.AdaptiveColor{Light: "243", Dark: "245"},
		Accent:      lipgloss.AdaptiveColor{Light: "25", Dark: "75"},
		Border:      lipgloss.AdaptiveColor{Light: "250", Dark: "240"},
		SelectionBg: lipgloss.AdaptiveColor{Light: "153", Dark: "24"},
		SelectionFg: lipgloss.AdaptiveColor{Light: "232", Dark: "255"},
		Active:      lipgloss.AdaptiveColor{Light: "26", Dark: "39"},
		Interrupted: lipgloss.AdaptiveColor{Light: "130", Dark: "214"},
		Terminal:    lipgloss.AdaptiveColor{Light: "28", Dark: "78"},
		Failed:      lipgloss.AdaptiveColor{Light: "160", Dark: "203"},
		Unknown:     lipgloss.AdaptiveColor{Light: "90", Dark: "207"},
		OK:          lipgloss.AdaptiveColor{Light: "28", Dark: "78"},
		Warn:        lipgloss.AdaptiveColor{Light: "130", Dark: "214"},
		Error:       lipgloss.AdaptiveColor{Light: "160", Dark: "203"},
		BadgeBg:     lipgloss.AdaptiveColor{Light: "130", Dark: "214"},
		BadgeFg:     lipgloss.AdaptiveColor{Light: "231", Dark: "16"},
	}
}
