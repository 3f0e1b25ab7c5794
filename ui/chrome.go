package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// statusDuration is how long a notice stays in the footer.
const statusDuration = 6 * time.Second

// statusLine is a notice in the footer: what an action did.
type statusLine struct {
	text  string
	err   bool
	until time.Time
}

// set shows text for a while. Notices name tasks, states and errors
// that came from agents, so the text is sanitized here, whoever wrote it.
func (s *statusLine) set(text string, err bool, now time.Time) {
	*s = statusLine{text: sanitize.Line(text, maxLineText), err: err, until: now.Add(statusDuration)}
}

func (s *statusLine) expire(now time.Time) {
	if s.text != "" && !now.Before(s.until) {
		*s = statusLine{}
	}
}

// resize is the only place the size changes; children get SetSize.
func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	m.layout()
}

// bodyHeight is what is left between the header and the footer.
func (m *Model) bodyHeight() int { return max(m.height-2, 1) }

// layout gives every view its cells.
func (m *Model) layout() {
	w, h := max(m.width, 1), m.bodyHeight()
	m.tasks.setSize(w, h)
	m.detail.setSize(w, h)
	m.agents.setSize(w, h)
	m.prompt.setWidth(w)
	m.help.Width = w
	for _, c := range []common.Component{m.inbox, m.journal} {
		if c != nil {
			c.SetSize(w, h)
		}
	}
}

// render draws header, body and footer; exactly height lines of at most
// width cells.
func (m *Model) render() string {
	body := m.body()
	lines := make([]string, 0, m.height)
	lines = append(lines, m.header())
	lines = append(lines, fitLines(body, m.width, m.bodyHeight())...)
	lines = append(lines, m.footer())
	return strings.Join(lines[:min(len(lines), max(m.height, 1))], "\n")
}

// body is the view or the overlay that replaces it.
func (m *Model) body() string {
	switch m.overlay {
	case overlayHelp:
		return m.helpView()
	case overlayConfirm:
		return m.confirm.view(m.ctx.Theme, m.width, m.bodyHeight())
	}
	switch m.view {
	case viewDetail:
		return m.detail.view()
	case viewAgents:
		return m.agents.view()
	case viewInbox, viewJournal:
		if c := m.component(); c != nil {
			return c.View()
		}
	}
	return m.tasks.view()
}

// header is one line: the fleet at a glance.
func (m *Model) header() string {
	t := m.ctx.Theme
	up, degraded, down, connecting := agentHealth(m.ctx.Fleet)
	f, all := m.ctx.Fleet, model.Query{}
	a, c := f.Count(model.ClassActive, all), f.Count(model.ClassInterrupted, all)
	term, unknown := f.Count(model.ClassTerminal, all), f.Count(model.ClassUnknown, all)
	long := []string{
		t.Title.Render("a2atop") + " " + t.Muted.Render(m.viewName()),
		t.OK.Render(strconv.Itoa(up)+" up") + " " + warnIf(t.Warn, degraded, " degraded") +
			" " + warnIf(t.Error, down, " down") + connectingText(t.Muted, connecting),
		t.StateActive.Render("active "+strconv.Itoa(a)) + " " +
			t.StateInterrupted.Render("interrupted "+strconv.Itoa(c)) + " " +
			t.StateTerminal.Render("terminal "+strconv.Itoa(term)) + unknownText(t.StateUnknown, unknown, "unknown "),
	}
	short := []string{
		t.Title.Render("a2atop"),
		t.OK.Render(strconv.Itoa(up)+"↑") + " " + warnIf(t.Warn, degraded, "~") + " " + warnIf(t.Error, down, "↓"),
		t.StateActive.Render("A"+strconv.Itoa(a)) + " " + t.StateInterrupted.Render("I"+strconv.Itoa(c)) +
			" " + t.StateTerminal.Render("T"+strconv.Itoa(term)) + unknownText(t.StateUnknown, unknown, "?"),
	}
	medium := []string{
		t.Title.Render("a2atop"),
		long[1],
		t.StateActive.Render("A "+strconv.Itoa(a)) + " " + t.StateInterrupted.Render("I "+strconv.Itoa(c)) +
			" " + t.StateTerminal.Render("T "+strconv.Itoa(term)) + unknownText(t.StateUnknown, unknown, "? "),
	}
	badge := ""
	if m.ctx.ReadOnly {
		badge = t.Badge.Render("READ-ONLY")
	}
	sep := t.Muted.Render(" │ ")
	line := strings.Join(long, sep)
	for _, alt := range []string{strings.Join(medium, sep), strings.Join(short, " ")} {
		if lipgloss.Width(line)+lipgloss.Width(badge)+1 <= m.width {
			break
		}
		line = alt
	}
	if badge != "" {
		gap := max(m.width-lipgloss.Width(line)-lipgloss.Width(badge), 1)
		line += strings.Repeat(" ", gap) + badge
	}
	return ansi.Truncate(line, m.width, "…")
}

func warnIf(s lipgloss.Style, n int, label string) string {
	text := strconv.Itoa(n) + label
	if n == 0 {
		return text
	}
	return s.Render(text)
}

func unknownText(s lipgloss.Style, n int, label string) string {
	if n == 0 {
		return ""
	}
	return " " + s.Render(label+strconv.Itoa(n))
}

func connectingText(s lipgloss.Style, n int) string {
	if n == 0 {
		return ""
	}
	return " " + s.Render(strconv.Itoa(n)+" connecting")
}

// agentHealth counts agents by how well we hear them.
func agentHealth(f *model.Fleet) (up, degraded, down, connecting int) {
	for _, a := range f.Agents() {
		switch s := a.Health.State; {
		case s.Up():
			up++
		case s == model.HealthBackoff:
			degraded++
		case s == model.HealthUnreachable, s == model.HealthUnauthorized:
			down++
		default:
			connecting++
		}
	}
	return up, degraded, down, connecting
}

// viewName is the header's word for what the body shows.
func (m *Model) viewName() string {
	switch m.view {
	case viewDetail:
		return "task"
	case viewAgents:
		return "agents"
	case viewInbox, viewJournal:
		if c, ok := m.component().(common.Titled); ok {
			return c.Title()
		}
		if m.view == viewInbox {
			return "inbox"
		}
		return "journal"
	}
	return "tasks"
}

// footer is the prompt, a notice, or the short help of the view.
func (m *Model) footer() string {
	t := m.ctx.Theme
	switch {
	case m.overlay == overlayFilter || m.overlay == overlayCommand:
		line := m.prompt.view()
		if hint := m.promptHint(); lipgloss.Width(line)+2+lipgloss.Width(hint) <= m.width {
			line += "  " + hint
		}
		return ansi.Truncate(line, m.width, "")
	case m.status.text != "":
		s := t.OK
		if m.status.err {
			s = t.Error
		}
		return s.Render(ansi.Truncate(m.status.text, m.width, "…"))
	}
	prefix := ""
	if f := m.tasks.filterText(); f != "" && (m.view == viewTasks) {
		prefix = t.Prompt.Render("/") + t.Text.Render(sanitize.Line(f, 40)) + t.Muted.Render(" (esc clears)") + "  "
		if bad := m.tasks.query.Filter.Invalid; len(bad) > 0 {
			prefix += t.Error.Render("matches nothing: "+sanitize.Line(strings.Join(bad, " "), 40)) + "  "
		}
	}
	return ansi.Truncate(prefix+m.keysLine(max(m.width-lipgloss.Width(prefix), 1)), m.width, "…")
}

// keysLine is the footer's short help in w cells. The keys that answer
// now come first and are cut with "…" when they do not fit; the help key
// always shows at the end, so at 80 columns "? help" is still there to
// say where the rest is. A dialog shows its own answers; a component
// taking typed text shows its keys alone (? would be typed).
func (m *Model) keysLine(w int) string {
	if m.overlay == overlayConfirm {
		return m.shortKeys([]key.Binding{m.keys.Confirm, m.keys.Decline}, w)
	}
	keys := m.shortHelp()
	if c, ok := m.component().(common.InputCapturer); ok && c.Capturing() || !m.keys.Help.Enabled() {
		return m.shortKeys(keys, w)
	}
	rest := make([]key.Binding, 0, len(keys))
	for _, b := range keys {
		if !sameKeys(b, m.keys.Help) {
			rest = append(rest, b)
		}
	}
	tail := m.shortKeys([]key.Binding{m.keys.Help}, w)
	sep := m.help.Styles.ShortSeparator.Inline(true).Render(m.help.ShortSeparator)
	if head := m.shortKeys(rest, w-lipgloss.Width(tail)-lipgloss.Width(sep)); head != "" {
		return head + sep + tail
	}
	return tail
}

// shortKeys is help.Model.ShortHelpView kept within w cells: bubbles adds
// an item that does not fit when its ellipsis does not fit either.
func (m *Model) shortKeys(keys []key.Binding, w int) string {
	st := m.help.Styles
	sep := st.ShortSeparator.Inline(true).Render(m.help.ShortSeparator)
	more := " " + st.Ellipsis.Inline(true).Render(m.help.Ellipsis)
	var b strings.Builder
	used := 0
	for _, k := range keys {
		if !k.Enabled() {
			continue
		}
		item := st.ShortKey.Inline(true).Render(k.Help().Key) + " " + st.ShortDesc.Inline(true).Render(k.Help().Desc)
		if used > 0 {
			item = sep + item
		}
		iw := lipgloss.Width(item)
		if used+iw > w {
			if used > 0 && used+lipgloss.Width(more) <= w {
				b.WriteString(more)
			}
			break
		}
		b.WriteString(item)
		used += iw
	}
	return b.String()
}

// sameKeys reports whether two bindings answer the same keys.
func sameKeys(a, b key.Binding) bool {
	ak, bk := a.Keys(), b.Keys()
	if len(ak) != len(bk) {
		return false
	}
	for i := range ak {
		if ak[i] != bk[i] {
			return false
		}
	}
	return true
}

// fitLines cuts or pads s to exactly h lines of at most w cells.
func fitLines(s string, w, h int) []string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines
}
