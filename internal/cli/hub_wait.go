package cli

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"a2atop/hub"
	"a2atop/hubclient"
	"a2atop/ui"
)

// waitForHub runs a dashboard whose hub could not be reached (first):
// one program that shows the dashboard's header with the banner of an
// unreachable hub, asks again every two seconds at most, and puts the
// dashboard in its place once the hub answers. q or a signal ends the
// wait (exit 0); a refusal (a token the hub does not know) ends it as
// it would without a wait (exit 2). One program, so one reader of the
// terminal, and no flash of the screen between the two.
func (s *session) waitForHub(ctx context.Context, tok string, first error) int {
	s.log.Warn("waiting for the hub", logKeyErr, first)
	th, err := dashboardTheme(s.cfg)
	if err != nil {
		return s.failf(exitUsage, "config: %v", err)
	}
	var (
		cl      *hubclient.Client
		me      hub.Me
		d       *hubDash
		openErr error
	)
	w := ui.NewHubWait(ctx, ui.HubWaitOptions{URL: s.hub, Why: first.Error(), Theme: th, Unreachable: hubUnreachable,
		Try: func(ctx context.Context) error {
			c, m, err := s.dial(ctx, tok)
			if err == nil {
				cl, me = c, m
			}
			return err
		}})
	open := func() tea.Model {
		s.attached(cl, me, nil)
		if d, openErr = s.openHubDashboard(ctx, cl, me); openErr != nil {
			return nil
		}
		return d.m
	}
	err = s.runProgram(ctx, &hubHandoff{cur: w, open: open})
	switch {
	case openErr != nil:
		return s.failf(exitUsage, "config: %v", openErr)
	case d != nil:
		return d.close(err)
	case w.Err() != nil:
		_, _, code := s.attached(nil, hub.Me{}, w.Err())
		return code
	}
	return s.dashboardStatus(err)
}

// hubHandoff is the model of that program: the waiting screen, then the
// dashboard open builds once the hub answered (ui.HubAttachedMsg), given
// the terminal's size the waiting screen had.
type hubHandoff struct {
	cur  tea.Model
	open func() tea.Model // nil once called
	size *tea.WindowSizeMsg
}

// Init is the waiting screen's.
func (h *hubHandoff) Init() tea.Cmd { return h.cur.Init() }

// Update hands every message to the model shown, but the one that says
// the hub answered, which swaps the dashboard in.
func (h *hubHandoff) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		h.size = &msg
	case ui.HubAttachedMsg:
		if h.open != nil {
			return h, h.swap()
		}
	}
	var cmd tea.Cmd
	h.cur, cmd = h.cur.Update(msg)
	return h, cmd
}

// swap builds the dashboard and starts it at the terminal's size.
func (h *hubHandoff) swap() tea.Cmd {
	m := h.open()
	h.open = nil
	if m == nil {
		return tea.Quit
	}
	h.cur = m
	cmds := []tea.Cmd{m.Init()}
	if h.size != nil {
		size := *h.size
		cmds = append(cmds, func() tea.Msg { return size })
	}
	return tea.Batch(cmds...)
}

// View is the model shown's.
func (h *hubHandoff) View() string { return h.cur.View() }
