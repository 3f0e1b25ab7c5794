package theme

import "github.com/charmbracelet/lipgloss"

// Palette is the set of colour tokens a Theme is built from. Each token
// has a value for light and one for dark backgrounds.
type Palette struct {
	Text        lipgloss.AdaptiveColor `token:"text" doc:"ordinary text"`
	Muted       lipgloss.AdaptiveColor `token:"muted" doc:"secondary text: ages, ids, labels"`
	Accent      lipgloss.AdaptiveColor `token:"accent" doc:"titles, the focused pane, links, keys in the help"`
	Border      lipgloss.AdaptiveColor `token:"border" doc:"rules and separators"`
	SelectionBg lipgloss.AdaptiveColor `token:"selection_bg" doc:"the selected row's background"`
	SelectionFg lipgloss.AdaptiveColor `token:"selection_fg" doc:"the selected row's text"`
	Active      lipgloss.AdaptiveColor `token:"active" doc:"submitted and working tasks"`
	Interrupted lipgloss.AdaptiveColor `token:"interrupted" doc:"input-required and auth-required tasks"`
	Terminal    lipgloss.AdaptiveColor `token:"terminal" doc:"completed and canceled tasks"`
	Failed      lipgloss.AdaptiveColor `token:"failed" doc:"failed and rejected tasks"`
	Unknown     lipgloss.AdaptiveColor `token:"unknown" doc:"a state a2atop cannot classify"`
	OK          lipgloss.AdaptiveColor `token:"ok" doc:"healthy agents, what was sent"`
	Warn        lipgloss.AdaptiveColor `token:"warn" doc:"degraded agents, stale tasks, dialogs"`
	Error       lipgloss.AdaptiveColor `token:"error" doc:"down agents, errors, refusals"`
	BadgeBg     lipgloss.AdaptiveColor `token:"badge_bg" doc:"the READ-ONLY badge's background"`
	BadgeFg     lipgloss.AdaptiveColor `token:"badge_fg" doc:"the READ-ONLY badge's text"`
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
