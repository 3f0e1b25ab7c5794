// Package theme holds every colour and named style the dashboard draws
// with. Colours are tokens (lipgloss.AdaptiveColor, a light and a dark
// value each); components never use a raw colour, they ask the Theme for a
// named style such as Theme.RowSelected or Theme.State(class).
//
// A Theme is built once, before the program starts, by New, which asks
// the terminal nothing: in ModeAuto it starts from the guess of ui/termbg
// and the dashboard switches it (SetDark) when the terminal has answered
// its query, so the first frame never waits for the terminal. With
// NO_COLOR set (or Options.NoColor) the Theme emits no colours at all and
// marks emphasis with bold, reverse and underline instead, so that
// interrupted and unknown tasks still stand out.
//
// A Theme is read-only after New and safe for concurrent use.
//
// theme may import lipgloss and model (for model.Class) only.
package theme
