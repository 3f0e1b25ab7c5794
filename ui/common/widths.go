package common

import (
	"github.com/charmbracelet/x/ansi"

	"a2atop/model"
)

// AgentWidth is the width of the agent column: the longest name, 6..16
// ("AGENT" and its sort arrow).
func AgentWidth(f *model.Fleet) int {
	w := 6
	for _, a := range f.Agents() {
		w = max(w, ansi.StringWidth(a.Name))
	}
	return min(w, 16)
}
