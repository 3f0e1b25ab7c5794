package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
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
	at    time.Time
	until time.Time
	// pressed is true once a key or a click came after the text was set.
	pressed bool
	// byFleet marks an aside: a notice the fleet made on its own.
	byFleet bool
}

// errorHold is how long the answer to what the person did (a refusal, a
// failure, or what their approve did: "the agent took the message")
// stays against the notices the fleet makes on its own ("… left
// Active": aside), while no key is pressed: long enough to be read. Any
// other answer, or an aside once a key was pressed, replaces it at once.
// (The task an approve moves on leaves its pane within the same frame:
// without the hold, the approver never saw what their approve did.)
const errorHold = 4 * time.Second

// aside shows a notice the fleet made on its own, unless the answer to
// what the person did, shown a moment ago, is still being read.
func (s *statusLine) aside(text string, now time.Time) {
	if s.text != "" && !s.byFleet && !s.pressed && now.Sub(s.at) < errorHold {
		return
	}
	s.set(text, false, now)
	s.byFleet = true
}

// set shows text for a while. Notices name tasks, states and errors
// that came from agents, so the text is sanitized here, whoever wrote it.
func (s *statusLine) set(text string, err bool, now time.Time) {
	*s = statusLine{text: sanitize.Line(text, common.MaxLineText), err: err, at: now, until: now.Add(statusDuration)}
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

// bodyHeight is what is left between the header (and the banner of a
// damaged journal, while it shows) and the footer.
func (m *Model) bodyHeight() int { return max(m.height-2-m.bannerLines(), 1) }

// bodyTop is the first line of the body: after the header and the banner.
func (m *Model) bodyTop() int { return 1 + m.bannerLines() }

// layout gives every screen the cells between the header and the footer.
func (m *Model) layout() {
	w, h := max(m.width, 1), m.bodyHeight()
	for _, c := range m.screens {
		if c != nil {
			c.SetSize(w, h)
		}
	}
	m.help.SetSize(w, h)
	m.prompt.setWidth(w)
	m.hm.Width = w
}

// render draws header, banner, body and footer; exactly height lines of
// at most width cells.
func (m *Model) render() string {
	h := m.bodyHeight()
	lines := make([]string, 0, m.height)
	lines = append(lines, m.header())
	lines = append(lines, m.teamBannerLines()...)
	if len(m.banner) > 0 {
		lines = append(lines, m.bannerLine())
	}
	body := common.Fit(m.body(), m.width, h)
	for range h - len(body) {
		body = append(body, "")
	}
	if list := m.listLines(m.width, h); len(list) > 0 {
		copy(body[len(body)-len(list):], list) // the command line's list, over the bottom of the body
	}
	lines = append(lines, body...)
	lines = append(lines, m.footer())
	return strings.Join(lines[:min(len(lines), max(m.height, 1))], "\n")
}

// body is the screen shown, or the help over it.
func (m *Model) body() string {
	if m.overlay == overlayHelp {
		return m.help.View()
	}
	return m.screens[m.view].View()
}

// header is one line: the fleet at a glance.
func (m *Model) header() string {
	t := m.ctx.Theme
	up, degraded, down, connecting, hubDown := agentHealth(m.ctx.Fleet)
	f, all := m.ctx.Fleet, model.Query{}
	a, c := f.Count(model.ClassActive, all), f.Count(model.ClassInterrupted, all)
	term, unknown := f.Count(model.ClassTerminal, all), f.Count(model.ClassUnknown, all)
	termText, termShort := "terminal "+strconv.Itoa(term), strconv.Itoa(term)
	if _, total := f.TerminalCount(); total > term { // retention left some out
		termText = "terminal " + thousands(term) + " of " + thousands(total)
		termShort += "/" + strconv.Itoa(total)
	}
	health := t.OK.Render(strconv.Itoa(up)+" up") + " " + warnIf(t.Warn, degraded, " degraded") +
		" " + warnIf(t.Error, down, " down") + connectingText(t.Muted, connecting)
	healthShort := t.OK.Render(strconv.Itoa(up)+"↑") + " " + warnIf(t.Warn, degraded, "~") + " " + warnIf(t.Error, down, "↓")
	if hubDown > 0 { // the agents' health is not known: the hub is away, not they
		health, healthShort = t.Error.Render("hub unreachable"), t.Error.Render("hub ↓")
	}
	long := []string{
		t.Title.Render("a2atop") + " " + t.Muted.Render(m.viewName()),
		health,
		t.StateActive.Render("active "+strconv.Itoa(a)) + " " +
			t.StateInterrupted.Render("interrupted "+strconv.Itoa(c)) + " " +
			t.StateTerminal.Render(termText) + unknownText(t.StateUnknown, unknown, "unknown "),
	}
	short := []string{
		t.Title.Render("a2atop"),
		healthShort,
		t.StateActive.Render("A"+strconv.Itoa(a)) + " " + t.StateInterrupted.Render("I"+strconv.Itoa(c)) +
			" " + t.StateTerminal.Render("T"+strconv.Itoa(term)) + unknownText(t.StateUnknown, unknown, "?"),
	}
	medium := []string{
		t.Title.Render("a2atop"),
		long[1],
		t.StateActive.Render("A "+strconv.Itoa(a)) + " " + t.StateInterrupted.Render("I "+strconv.Itoa(c)) +
			" " + t.StateTerminal.Render("T "+termShort) + unknownText(t.StateUnknown, unknown, "? "),
	}
	badge := ""
	if m.ctx.ReadOnly {
		badge = t.Badge.Render("READ-ONLY")
	}
	badge = m.teamBadge(badge, m.width/2)
	sep := t.Muted.Render(" │ ")
	line := strings.Join(long, sep)
	for _, alt := range []string{strings.Join(medium, sep), strings.Join(short, " ")} {
		if lipgloss.Width(line)+lipgloss.Width(badge)+1 <= m.width {
			break
		}
		line = alt
	}
	if m.view == viewTasks && m.overlay == overlayNone {
		if bw := min(m.width-lipgloss.Width(line)-lipgloss.Width(badge)-3, 32); bw >= 8 {
			line += " " + common.StackedBar(t, [3]int{a, c, term}, bw)
		}
	}
	if badge != "" {
		gap := max(m.width-lipgloss.Width(line)-lipgloss.Width(badge), 1)
		line += strings.Repeat(" ", gap) + badge
	}
	return ansi.Truncate(line, m.width, "…")
}

// thousands writes n with commas: 97,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
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

// agentHealth counts agents by how well we hear them; hubDown counts
// those whose hub is unreachable, whose health is then not known.
func agentHealth(f *model.Fleet) (up, degraded, down, connecting, hubDown int) {
	for _, a := range f.Agents() {
		switch s := a.Health.State; {
		case a.Health.HubDown:
			hubDown++
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
	return up, degraded, down, connecting, hubDown
}

// viewName is the header's word for what the body shows.
func (m *Model) viewName() string {
	if c, ok := m.screens[m.view].(common.Titled); ok {
		return c.Title()
	}
	return viewNames[m.view]
}

// footer is the command line, or what the screen writes there itself
// (the filter being typed), or a notice, or the screen's note and keys.
func (m *Model) footer() string {
	if m.overlay == overlayCommand {
		return m.commandLine()
	}
	note, editing := "", false
	if f, ok := m.screens[m.view].(common.Footnoter); ok {
		note, editing = f.Footnote(m.width)
	}
	switch {
	case editing:
		return ansi.Truncate(note, m.width, "")
	case m.status.text != "":
		s := m.ctx.Theme.OK
		if m.status.err {
			s = m.ctx.Theme.Error
		}
		return s.Render(ansi.Truncate(m.status.text, m.width, "…"))
	}
	note = m.viaNote() + note
	return ansi.Truncate(note+m.keysLine(max(m.width-lipgloss.Width(note), 1)), m.width, "…")
}

// keysLine is the footer's short help in w cells. The keys that answer
// now come first and are cut with "…" when they do not fit; the help key
// always shows at the end, so at 80 columns "? help" is still there to
// say where the rest is. A screen taking typed text or answering a
// dialog shows its keys alone (? would be typed, or is no answer).
func (m *Model) keysLine(w int) string {
	keys := m.screens[m.view].ShortHelp()
	if m.capturing() || !m.keys.Help.Enabled() {
		return shortKeys(m.hm, keys, w)
	}
	rest := make([]key.Binding, 0, len(keys))
	for _, b := range keys {
		if !common.SameKeys(b, m.keys.Help) {
			rest = append(rest, b)
		}
	}
	tail := shortKeys(m.hm, []key.Binding{m.keys.Help}, w)
	sep := m.hm.Styles.ShortSeparator.Inline(true).Render(m.hm.ShortSeparator)
	if head := shortKeys(m.hm, rest, w-lipgloss.Width(tail)-lipgloss.Width(sep)); head != "" {
		return head + sep + tail
	}
	return tail
}

// shortKeys is help.Model.ShortHelpView kept within w cells: bubbles adds
// an item that does not fit when its ellipsis does not fit either.
func shortKeys(h help.Model, keys []key.Binding, w int) string {
	st := h.Styles
	sep := st.ShortSeparator.Inline(true).Render(h.ShortSeparator)
	more := " " + st.Ellipsis.Inline(true).Render(h.Ellipsis)
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

func itoa(n int) string { return strconv.Itoa(n) }
