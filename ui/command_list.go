package ui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"a2atop/internal/sanitize"
	"a2atop/ui/common"
)

// The command line's list: on tab (or ↓) the commands, or a command's
// arguments, that what is typed starts, above the footer; tab then
// completes the one there is, or what they all start with, and ↓ ↑
// choose one for tab or enter to take.

// candidate is one line of the list: what it puts on the command line,
// and how the list shows it.
type candidate struct {
	line        string // "sort ", "sort state desc"
	name, about string // ":sort COLUMN [asc|desc]", "sort the tasks by a column"
}

// maxListed bounds the lines of the list, whatever the height.
const maxListed = 20

// candidates are the lines the typed value could become: while no space
// is typed, the commands whose name it starts; after a command's name,
// the arguments it offers that the rest starts. Case is ignored.
func (m *Model) candidates(value string) []candidate {
	name, arg, spaced := strings.Cut(strings.TrimLeft(value, " "), " ")
	name = strings.ToLower(name)
	var out []candidate
	if !spaced {
		for _, c := range m.offeredCommands() {
			if strings.HasPrefix(c.name, name) {
				line := c.name
				if c.arg != "" {
					line += " "
				}
				out = append(out, candidate{line: line, name: c.usage(), about: c.desc})
			}
		}
		return out
	}
	c, ok := m.commandNamed(name)
	if !ok || c.complete == nil {
		return nil
	}
	arg = strings.TrimLeft(arg, " ")
	for _, a := range c.complete(m) {
		if len(a) >= len(arg) && strings.EqualFold(a[:len(arg)], arg) {
			out = append(out, candidate{line: c.name + " " + a, name: a})
		}
	}
	return out
}

// usage is the command as the help and the list write it: ":sort COLUMN [asc|desc]".
func (c command) usage() string { return strings.TrimSpace(":" + c.name + " " + c.arg) }

// commandNamed is the command name is or uniquely starts, without a word
// in the footer (findCommand says why there is none).
func (m *Model) commandNamed(name string) (command, bool) {
	var match []command
	for _, c := range m.offeredCommands() {
		if c.name == name {
			return c, true
		}
		if strings.HasPrefix(c.name, name) {
			match = append(match, c)
		}
	}
	if len(match) == 1 {
		return match[0], true
	}
	return command{}, false
}

// offeredCommands are the commands the list and the help show: all but
// those that write to agents in roles allowed on none (read-only, or
// the hub's roles), and those whose key is disabled, as the keys are
// hidden. Those still run, and say
// why they do nothing.
func (m *Model) offeredCommands() []command {
	var out []command
	for _, c := range m.cmds {
		if len(c.roles) > 0 && !slices.ContainsFunc(c.roles, m.ctx.MayAnywhere) || c.key != nil && !c.key(&m.keys).Enabled() {
			continue
		}
		out = append(out, c)
	}
	return out
}

// tab completes the command line: the one candidate, or the one chosen
// with ↓ ↑, or else what every candidate starts with, and lists them.
func (m *Model) tab() {
	p := &m.prompt
	cands := m.candidates(p.value())
	p.listing = true
	switch {
	case p.sel >= 0 && p.sel < len(cands):
		p.set(cands[p.sel].line)
	case len(cands) == 1:
		p.set(cands[0].line)
	case len(cands) > 1:
		lines := make([]string, len(cands))
		for i, c := range cands {
			lines[i] = c.line
		}
		if pre := commonPrefixFold(lines); len(pre) > len(p.value()) {
			p.set(pre)
		}
		return
	}
	p.sel = -1
}

// choose moves the choice in the list by d (1 down, -1 up).
func (m *Model) choose(d int) {
	p := &m.prompt
	n := len(m.candidates(p.value()))
	p.listing = true
	if n == 0 {
		p.sel = -1
		return
	}
	p.sel = ((p.sel+d)%n + n) % n
}

// commonPrefixFold is the start every line shares, ignoring case, as the
// first line writes it.
func commonPrefixFold(lines []string) string {
	pre := lines[0]
	for _, l := range lines[1:] {
		n := 0
		for n < len(pre) && n < len(l) && strings.EqualFold(pre[n:n+1], l[n:n+1]) {
			n++
		}
		pre = pre[:n]
	}
	return pre
}

// listLines is the list drawn in at most h lines of w cells, the chosen
// line marked; nil when it is not shown.
func (m *Model) listLines(w, h int) []string {
	p := &m.prompt
	if m.overlay != overlayCommand || !p.listing || h < 2 {
		return nil
	}
	th := m.ctx.Theme
	cands := m.candidates(p.value())
	if len(cands) == 0 {
		return []string{common.Pad(th.Error.Render(" nothing starts with "+sanitize.Line(p.value(), 40)+"; esc, then : and tab lists every command"), w)}
	}
	room := min(h-1, maxListed, len(cands))
	top := 0
	if p.sel >= room {
		top = p.sel - room + 1
	}
	nw := 0
	for _, c := range cands {
		nw = max(nw, len(c.name))
	}
	nw = min(nw, w/2)
	lines := []string{common.Pad(th.Muted.Render(" "+m.listTitle(len(cands))), w)}
	for i := top; i < top+room && i < len(cands); i++ {
		c := cands[i]
		name := common.Pad(sanitize.Line(c.name, nw), nw)
		about := sanitize.Line(c.about, max(w-nw-3, 1))
		if i == p.sel {
			lines = append(lines, th.RowSelected.Render(common.Pad(" "+name+"  "+about, w)))
			continue
		}
		lines = append(lines, common.Pad(" "+th.HelpKey.Render(name)+"  "+th.HelpDesc.Render(about), w))
	}
	return lines
}

// listTitle heads the list: how many, and how to take one.
func (m *Model) listTitle(n int) string {
	in := m.prompt.input.KeyMap
	return common.Plural(n, "choice") + " · " + firstKey(in.AcceptSuggestion.Keys()) + " completes · ↓ ↑ choose · enter runs"
}

// firstKey is the first of keys, or "".
func firstKey(keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}

// commandBindings are the commands as the help lists them: ":sort
// COLUMN [asc|desc]" and what it does.
func commandBindings(cs []command) []key.Binding {
	out := make([]key.Binding, len(cs))
	for i, c := range cs {
		out[i] = key.NewBinding(key.WithKeys(":"+c.name), key.WithHelp(c.usage(), c.desc))
	}
	return out
}
