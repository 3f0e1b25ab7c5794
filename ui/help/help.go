package help

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"a2atop/ui/common"
	"a2atop/ui/theme"
)

// KeyMap is the keys of the help screen: Close, and the list keys
// scroll a help taller than the screen.
type KeyMap struct {
	common.ListKeys
	Close key.Binding `keys:"help"`
}

// DefaultKeyMap returns the help screen's keys: ?, esc or q close it;
// the arrows, j/k, pgup/pgdn, g/G scroll it.
func DefaultKeyMap() KeyMap {
	return KeyMap{ListKeys: common.DefaultListKeys(), Close: common.Bind("?/esc", "close", "?", "esc", "q")}
}

// Screen is every key of the screen under it, grouped, and the global
// keys. The root shows it over that screen on `?`; it takes every key
// while open. It is a common.Component; it asks the root to close it
// through Context.Out (common.BackMsg).
type Screen struct {
	ctx    *common.Context
	keys   KeyMap
	global []key.Binding // the group every help ends with
	hm     help.Model
	of     common.Component // the screen described
	name   string           // its name
	// commands are the : commands every help ends with, as bindings
	// (":sort COLUMN [asc|desc]" and what it does).
	commands []key.Binding
	top      int // the first line shown of a help taller than the screen
	w, h     int
}

// New is the help, with the keys that close and scroll it and global,
// the group every help ends with.
func New(ctx *common.Context, keys KeyMap, global []key.Binding) *Screen {
	return &Screen{ctx: ctx, keys: keys, global: global, hm: common.NewHelpModel(ctx.Theme)}
}

// Describe makes the help about screen c, named name, ending with the :
// commands it offers.
func (s *Screen) Describe(c common.Component, name string, commands []key.Binding) {
	s.of, s.name, s.commands, s.top = c, name, commands, 0
}

// Restyle draws the help in th's styles (after :theme).
func (s *Screen) Restyle(th *theme.Theme) { s.hm = common.NewHelpModel(th) }

// Update closes the help on its Close keys, scrolls it on the list keys
// and ignores every other key.
func (s *Screen) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return s, nil
	}
	page := max(s.h-2, 1)
	switch {
	case key.Matches(k, s.keys.Close):
		s.ctx.Out.Send(common.BackMsg{})
	case key.Matches(k, s.keys.Up):
		s.top--
	case key.Matches(k, s.keys.Down):
		s.top++
	case key.Matches(k, s.keys.PageUp):
		s.top -= page
	case key.Matches(k, s.keys.PageDown):
		s.top += page
	case key.Matches(k, s.keys.Top):
		s.top = 0
	case key.Matches(k, s.keys.Bottom):
		s.top = 1 << 20
	}
	return s, nil
}

// View is the title, the key groups, the screen's own note and the :
// commands. The groups are columns side by side, flowing onto further
// rows of columns when they do not fit the width, so that at 80 columns
// no key is cut off the help. A help taller than the screen scrolls; its
// last line then says where it is and how to see the rest.
func (s *Screen) View() string {
	lines := strings.Split(s.full(), "\n")
	if s.h <= 1 || len(lines) <= s.h {
		s.top = 0
		return strings.Join(lines, "\n")
	}
	room := s.h - 1
	s.top = min(max(s.top, 0), len(lines)-room)
	more := fmt.Sprintf("lines %d–%d of %d · %s %s scroll · %s %s page", s.top+1, s.top+room, len(lines),
		s.keys.Down.Help().Key, s.keys.Up.Help().Key, s.keys.PageDown.Help().Key, s.keys.PageUp.Help().Key)
	return strings.Join(append(lines[s.top:s.top+room], s.ctx.Theme.Muted.Render(more)), "\n")
}

// full is the whole help, however tall.
func (s *Screen) full() string {
	th := s.ctx.Theme
	title := th.Title.Render("Keys — "+s.name) + th.Muted.Render("   (? or esc closes)")
	out := title + "\n\n" + flowGroups(s.hm, s.FullHelp(), s.w)
	if n, ok := s.of.(common.HelpNoter); ok {
		out += "\n\n" + th.Muted.Render(n.HelpNote())
	}
	if len(s.commands) > 0 {
		out += "\n\n" + th.Title.Render("Commands") + th.Muted.Render("   (: then tab lists them; a unique start of a name is enough)") +
			"\n" + helpColumn(s.hm, s.commands)
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
func (s *Screen) SetSize(w, h int) {
	s.w, s.h = w, h
	s.hm.Width = w
}

// Capturing is always true: the help takes every key while open.
func (s *Screen) Capturing() bool { return true }

// Title is the name of the screen described.
func (s *Screen) Title() string { return s.name }

// ShortHelp is the close key.
func (s *Screen) ShortHelp() []key.Binding { return []key.Binding{s.keys.Close} }

// FullHelp is the groups of the screen described, then the global keys.
func (s *Screen) FullHelp() [][]key.Binding {
	var groups [][]key.Binding
	if s.of != nil {
		groups = append(groups, s.of.FullHelp()...)
	}
	return append(groups, s.global)
}
