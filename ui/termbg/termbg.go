// Package termbg decides whether the terminal's background is dark
// without holding up the start of every command.
//
// Bubble Tea v1.3.10 asks the terminal for its background colour in its
// package init (tea_init.go: lipgloss.HasDarkBackground, an OSC 11
// query and a cursor report), so that the answer does not reach its
// input reader later. Every command of a2atop paid that round trip
// before main, `a2atop version` included, whatever the config's theme
// said; on a terminal that answers neither query it is termenv's
// OSCTimeout, 5 s. This package's init runs first (the Go spec
// initializes, among the packages whose imports are done, the first by
// import path: "a2atop/..." before "github.com/...", and this package
// imports neither Bubble Tea nor anything that does) and sets lipgloss's
// answer from the environment, so Bubble Tea's init asks nothing. The
// terminal is asked only where the answer is wanted, and nothing waits
// for it: the dashboard in theme mode "auto" writes Query once its
// program reads the terminal, draws meanwhile with the guess, and reads
// the answer from its input (ParseAnswer; ui's background.go).
package termbg

import (
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

func init() {
	lipgloss.SetHasDarkBackground(Guess(os.Getenv("COLORFGBG")))
}

// Guess is what the environment says without asking the terminal:
// COLORFGBG ("fg;bg", as rxvt and others set it) names the background's
// ANSI colour; without it, dark, as termenv assumes when the terminal
// does not answer.
func Guess(colorFGBG string) bool {
	i := strings.LastIndexByte(colorFGBG, ';')
	if i < 0 {
		return true
	}
	bg, err := strconv.Atoi(colorFGBG[i+1:])
	if err != nil || bg < 0 || bg > 255 {
		return true
	}
	// As termenv judges a background: by the lightness of its colour
	// (so the grey 8, at one half, is light).
	_, _, l := termenv.ConvertToRGB(termenv.ANSIColor(bg)).Hsl()
	return l < 0.5
}
