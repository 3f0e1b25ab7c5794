package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"a2atop/ui/common"
)

// HelpKeyMap is the keys of the help screen.
type HelpKeyMap struct {
	Close key.Binding `keys:"help"`
}

// DefaultHelpKeyMap returns the help screen's keys: ?, esc or q close it.
func DefaultHelpKeyMap() HelpKeyMap {
	return HelpKeyMap{Close: bind("?/esc", "close", "?", "esc", "q")}
}

// helpScreen is every key of the screen under it, grouped, and the
// global keys. The root shows it over that screen on `?`; it takes every
// key while open.
type helpScreen struct {
	ctx    *common.Context
	keys   HelpKeyMap
	global []key.Binding // the group every help ends with
	hm     help.Model
	of     common.Component // the screen described
	name   string           // its name
	w, h   int
}

func newHelp(ctx *common.Context, keys HelpKeyMap, global []key.Binding) *helpScreen {
	return &helpScreen{ctx: ctx, keys: keys, global: global, hm: newHelpModel(ctx.Theme)}
}

// describe makes the help about a screen.
func (s *helpScreen) describe(c common.Component, name string) { s.of, s.name = c, name }

// Update closes the help on its Close keys and ignores every other key.
func (s *helpScreen) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && key.Matches(k, s.keys.Close) {
		s.ctx.Out.Send(common.BackMsg{})
	}
	return s, nil
}

// View is the title, the key groups and the screen's own note. The
// groups are columns side by side, flowing onto further rows of columns
// when they do not fit the width, so that at 80 columns no key is cut
// off the help.
func (s *helpScreen) View() string {
	th := s.ctx.Theme
	title := th.Title.Render("Keys — "+s.name) + th.Muted.Render("   (? or esc closes)")
	out := title + "\n\n" + flowGroups(s.hm, s.FullHelp(), s.w)
	if n, ok := s.of.(common.HelpNoter); ok {
		out += "\n\n" + th.Muted.Render(n.HelpNote())
	}
	return out
}

// flowGroups draws each group of keys as a column (keys, then what they
// do) and lays the columns out left to right, starting a new row of
// columns when the next does not fit in w cells.
func flowGroups(h help.Model, groups [][]key.Binding, w int) string {
	const gap = "   "
	var rows []string
	var row []string
	used := 0
	flush := func() {
		if len(row) > 0 {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
			row, used = nil, 0
		}
	}
	for _, g := range groups {
		col := helpColumn(h, g)
		if col == "" {
			continue
		}
		cw := lipgloss.Width(col)
		if len(row) > 0 && used+len(gap)+cw > w {
			flush()
		}
		if len(row) > 0 {
			row = append(row, gap)
			used += len(gap)
		}
		row = append(row, col)
		used += cw
	}
	flush()
	return strings.Join(rows, "\n\n")
}

// helpColumn is one group: its enabled keys and what they do, aligned.
func helpColumn(h help.Model, g []key.Binding) string {
	kw := 0
	for _, b := range g {
		if b.Enabled() {
			kw = max(kw, lipgloss.Width(b.Help().Key))
		}
	}
	var lines []string
	for _, b := range g {
		if !b.Enabled() {
			continue
		}
		lines = append(lines, h.Styles.FullKey.Render(common.Pad(b.Help().Key, kw))+" "+h.Styles.FullDesc.Render(b.Help().Desc))
	}
	return strings.Join(lines, "\n")
}

// SetSize gives the help its cells.
func (s *helpScreen) SetSize(w, h int) {
	s.w, s.h = w, h
	s.hm.Width = w
}

// Capturing is always true: the help takes every key while open.
func (s *helpScreen) Capturing() bool { return true }

// Title is the name of the screen described.
func (s *helpScreen) Title() string { return s.name }

// ShortHelp is the close key.
func (s *helpScreen) ShortHelp() []key.Binding { return []key.Binding{s.keys.Close} }

// FullHelp is the groups of the screen described, then the global keys.
func (s *helpScreen) FullHelp() [][]key.Binding {
	var groups [][]key.Binding
	if s.of != nil {
		groups = append(groups, s.of.FullHelp()...)
	}
	return append(groups, s.global)
}
