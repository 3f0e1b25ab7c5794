package common

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/theme"
)

// FilterKeys open, keep and clear a list's filter.
type FilterKeys struct {
	// Open starts typing the filter. While it is typed Keep keeps it and
	// Clear clears it; outside it, Clear clears a kept filter.
	Open  key.Binding
	Keep  key.Binding `keys:"typing"`
	Clear key.Binding `keys:"layered"`
}

// DefaultFilterKeys are /, enter and esc.
func DefaultFilterKeys() FilterKeys {
	return FilterKeys{
		Open:  key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Keep:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep")),
		Clear: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear")),
	}
}

// FilterNote is the syntax every list's filter takes, for the help.
const FilterNote = "filter: free text, agent:NAME, state:input-required, class:terminal, id:ID"

// Filter is the `/` filter of a list, the same on every screen: the text
// typed (applied as it is typed), read with model.ParseFilter, and the
// footer line that shows it and names the list it filters. While it is
// typed every key goes to it (the screen reports Capturing), so no key
// typed into a filter can reach the list's actions. Build it with
// NewFilter; the zero value is not usable.
type Filter struct {
	keys   FilterKeys
	th     *theme.Theme
	of     string // the list it filters, for the footer: "tasks", "the inbox"
	line   TypedLine
	text   string // the filter in effect
	parsed model.Filter
	agents func() []string // the names agent: may start; nil: not checked
}

// NewFilter builds an empty filter of the list named of.
func NewFilter(th *theme.Theme, keys FilterKeys, of string) Filter {
	return Filter{keys: keys, th: th, of: of, line: NewTypedLine(th, "/", 256)}
}

// SetWidth gives the input the room the footer leaves it in w cells:
// beside it the keys and the name of the list, when at least 10 cells
// are left for typing.
func (f *Filter) SetWidth(w int) {
	if rest := w - lipgloss.Width(f.hint()) - 4; rest >= 10 {
		w = rest + 2
	}
	f.line.Input.Width = min(max(w-4, 1), 60)
}

// hint is what the filter's keys do while it is typed, and what it
// filters.
func (f *Filter) hint() string {
	return TypingHint(f.th, f.keys.Keep, f.keys.Clear, " · filters "+f.of)
}

// CheckAgents has the filter check its agent: tokens against the names
// agents returns (the fleet's agents), so that a typo says so.
func (f *Filter) CheckAgents(agents func() []string) { f.agents = agents }

// FleetAgents returns the names of the agents of ctx's fleet, read when
// called (what CheckAgents takes); none without a fleet.
func FleetAgents(ctx *Context) func() []string {
	return func() []string {
		if ctx.Fleet == nil {
			return nil
		}
		var out []string
		for _, a := range ctx.Fleet.Agents() {
			out = append(out, a.Name)
		}
		return out
	}
}

// Problem says what in the filter in effect names nothing (an unknown
// key, state, class or agent; model.Filter.Check), sanitized; "" when
// every token names something.
func (f *Filter) Problem() string {
	if f.text == "" {
		return ""
	}
	var names []string
	if f.agents != nil {
		names = f.agents()
	}
	if err := f.parsed.Check(names); err != nil {
		return sanitize.Line(err.Error(), 300)
	}
	return ""
}

// Opens reports whether msg opens the filter.
func (f *Filter) Opens(msg tea.KeyMsg) bool {
	return !f.line.Editing() && key.Matches(msg, f.keys.Open)
}

// Editing reports whether the filter is being typed.
func (f *Filter) Editing() bool { return f.line.Editing() }

// Active reports whether a filter is in effect.
func (f *Filter) Active() bool { return f.text != "" }

// Query is the filter in effect.
func (f *Filter) Query() model.Filter { return f.parsed }

// Text is the filter in effect as typed.
func (f *Filter) Text() string { return f.text }

// Key handles a key of the list. Outside the filter it opens the filter
// on Open and clears a kept one on Clear; while the filter is typed it
// takes every key. It reports whether the key was the filter's, and
// whether the filter in effect changed (the list shows other rows).
func (f *Filter) Key(msg tea.KeyMsg) (handled, changed bool, cmd tea.Cmd) {
	if !f.line.Editing() {
		switch {
		case key.Matches(msg, f.keys.Open):
			return true, false, f.line.Open(f.text)
		case key.Matches(msg, f.keys.Clear) && f.text != "":
			return true, f.set(""), nil
		}
		return false, false, nil
	}
	switch {
	case key.Matches(msg, f.keys.Clear):
		f.line.Close()
		return true, f.set(""), nil
	case key.Matches(msg, f.keys.Keep):
		f.line.Close()
		return true, false, nil
	}
	text, cmd := f.line.Type(msg)
	return true, f.set(text), cmd
}

// Set puts text in effect, as if typed and kept.
func (f *Filter) Set(text string) bool {
	f.line.Close()
	return f.set(text)
}

// set puts s in effect and reports whether that changed the filter.
func (f *Filter) set(s string) bool {
	if s == f.text {
		return false
	}
	f.text = s
	f.parsed = model.ParseFilter(s)
	return true
}

// Footnote is the filter's line at the start of the footer, within w
// cells: while typed, the input, its keys and the list it filters (and
// editing is true: then it is the whole footer); kept, "/dep filters the
// inbox (esc clears)". A filter that names nothing shows its Problem in
// place of the keys, typed or kept. "" when no filter is in effect.
func (f *Filter) Footnote(w int) (string, bool) {
	th := f.th
	problem := f.Problem()
	if f.line.Editing() {
		line, hint := f.line.Input.View(), f.hint()
		if problem != "" {
			hint = th.Error.Render(problem)
		}
		if lipgloss.Width(line)+2+lipgloss.Width(hint) <= w || problem != "" {
			line += "  " + hint
		}
		return ansi.Truncate(line, w, "…"), true
	}
	if f.text == "" {
		return "", false
	}
	s := th.Prompt.Render("/") + th.Text.Render(sanitize.Line(f.text, 40))
	if problem != "" {
		return s + "  " + th.Error.Render(problem) + "  ", false
	}
	return s + th.Muted.Render(" filters "+f.of+" ("+f.keys.Clear.Help().Key+" clears)") + "  ", false
}
