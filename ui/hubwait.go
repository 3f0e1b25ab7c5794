package ui

import (
	"context"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"a2atop/internal/sanitize"
	"a2atop/ui/common"
	"a2atop/ui/theme"
)

// HubWaitOptions configure the screen a dashboard shows while its hub
// cannot be reached yet (a2atop --hub started before the hub, or while
// it restarts).
type HubWaitOptions struct {
	// URL is the hub's URL, as the banner names it.
	URL string
	// Why is why the first try failed.
	Why string
	// Try asks the hub once (GET /v1/me): nil when it answered, an
	// unreachable error to try again, any other error to give up with.
	Try func(ctx context.Context) error
	// Unreachable reports whether err means "try again".
	Unreachable func(err error) bool
	// Every is the longest wait between tries (2 s when zero).
	Every time.Duration
	// Theme colours the screen (the default dark theme when nil).
	Theme *theme.Theme
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// HubWait is the screen of a dashboard waiting for its hub: the header,
// the banner an unreachable hub has on every screen, and what happens
// next. It asks the hub again every Every at most, and quits when the
// hub answered (Err nil, Attached true), when it refused for good (Err),
// or when the user pressed q or ctrl+c (neither). Held by a program that
// also holds the dashboard, it hands over with HubAttachedMsg instead.
type HubWait struct {
	o        HubWaitOptions
	ctx      context.Context
	since    time.Time
	why      string
	tries    int
	wait     time.Duration
	w, h     int
	attached bool
	err      error
}

// hubTriedMsg is the end of one try.
type hubTriedMsg struct{ err error }

// HubAttachedMsg says the hub answered: the dashboard opens in the
// waiting screen's place (a program that holds both swaps it in; the
// waiting screen alone quits).
type HubAttachedMsg struct{}

// NewHubWait builds the waiting screen; ctx ends its tries.
func NewHubWait(ctx context.Context, o HubWaitOptions) *HubWait {
	if o.Every <= 0 {
		o.Every = 2 * time.Second
	}
	if o.Theme == nil {
		o.Theme = theme.New(theme.Options{Mode: theme.ModeDark})
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &HubWait{o: o, ctx: ctx, since: o.Now(), why: o.Why, tries: 1, wait: 250 * time.Millisecond, w: 80, h: 24}
}

// Attached reports whether the hub answered: the dashboard opens next.
func (m *HubWait) Attached() bool { return m.attached }

// Err is the hub's refusal that ended the wait (nil otherwise).
func (m *HubWait) Err() error { return m.err }

// Init schedules the next try.
func (m *HubWait) Init() tea.Cmd { return m.next() }

// next waits, then asks the hub once.
func (m *HubWait) next() tea.Cmd {
	ctx, try, wait := m.ctx, m.o.Try, m.wait
	return func() tea.Msg {
		select {
		case <-ctx.Done():
			return hubTriedMsg{ctx.Err()}
		case <-time.After(wait):
		}
		return hubTriedMsg{try(ctx)}
	}
}

// Update takes the size, the keys that stop the wait, and each try's end.
func (m *HubWait) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case tea.KeyMsg:
		if s := msg.String(); s == "q" || s == "ctrl+c" || s == "esc" {
			return m, tea.Quit
		}
	case hubTriedMsg:
		return m, m.tried(msg.err)
	case HubAttachedMsg:
		return m, tea.Quit
	}
	return m, nil
}

// tried is what one try's end does: open the dashboard, give up, or try
// again a little later (doubling to Every).
func (m *HubWait) tried(err error) tea.Cmd {
	switch {
	case err == nil:
		m.attached = true
		return func() tea.Msg { return HubAttachedMsg{} }
	case m.ctx.Err() != nil:
		return tea.Quit
	case m.o.Unreachable != nil && !m.o.Unreachable(err):
		m.err = err
		return tea.Quit
	}
	m.tries++
	m.why = err.Error()
	m.wait = min(2*m.wait, m.o.Every)
	return m.next()
}

// View draws the header, the banner and the words under it; only what
// fits.
func (m *HubWait) View() string {
	t := m.o.Theme
	w := max(m.w, 1)
	since := m.since.UTC().Format("15:04:05Z")
	why := sanitize.Line(common.TeamWhy(m.o.URL, m.why), common.MaxLineText)
	url := sanitize.Line(m.o.URL, common.MaxLineText)
	head := "hub " + url + " unreachable since " + since + " — waiting for it; trying again every " + m.o.Every.String()
	banner := ansi.Truncate(head+": "+why, w, "…")
	if ansi.StringWidth(head) > w {
		banner = common.FirstFit(w, "hub unreachable since "+since+" — waiting for it", "hub unreachable — waiting")
	}
	lines := []string{
		ansi.Truncate(t.Title.Render("a2atop")+" "+t.Muted.Render("waiting for the hub")+"  "+t.Error.Render("○")+" "+t.Muted.Render("hub ")+url, w, "…"),
		t.Error.Render(banner),
		"",
		ansi.Truncate("  The dashboard opens as soon as the hub answers ("+tries(m.tries)+" so far).", w, "…"),
		ansi.Truncate("  Nothing is sent to any agent while it waits.", w, "…"),
	}
	for len(lines) < m.h-1 {
		lines = append(lines, "")
	}
	lines = append(lines, ansi.Truncate(t.HelpKey.Render("q")+" "+t.HelpDesc.Render("stop waiting"), w, "…"))
	if len(lines) > m.h && m.h > 0 {
		lines = lines[:m.h]
	}
	return strings.Join(lines, "\n")
}

// tries is "1 try" or "3 tries".
func tries(n int) string {
	if n == 1 {
		return "1 try"
	}
	return itoa(n) + " tries"
}
