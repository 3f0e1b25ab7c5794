package cli

import (
	"context"
	"errors"

	tea "github.com/charmbracelet/bubbletea"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui"
	"a2atop/ui/inbox"
)

// runDashboard implements `a2atop [--config FILE] [--read-only] [URL...]`.
func runDashboard(ctx context.Context, args []string, st Streams) int {
	o := newOptions("", st)
	o.configFlag()
	o.readOnlyFlag()
	urls, err := o.parse(args)
	if err != nil {
		return flagStatus(err)
	}
	cfg, code := o.loadAgents(urls)
	if cfg == nil {
		return code
	}
	cfg.ReadOnly = cfg.ReadOnly || o.readOnly
	s := o.open(cfg)
	defer s.Close()
	return dashboard(ctx, s, nil)
}

// dashboard watches the session's agents and runs the terminal UI on them
// until the user quits or ctx ends. Nothing is printed once the UI runs:
// logs go to the session's log file.
// started, when not nil, is called with the manager before it runs.
func dashboard(ctx context.Context, s *session, started func(*a2aclient.Manager)) int {
	cfg, log, st := s.cfg, s.log, s.st
	mgr, code := s.manager()
	if mgr == nil {
		return code
	}
	look, err := dashboardLook(cfg)
	if err != nil {
		return s.failf(exitUsage, "config: %v", err)
	}
	svc, err := approvals.Open(approvals.Options{
		JournalPath: cfg.JournalPath,
		Sender:      mgr,
		Approver:    cfg.Approver,
		Agents:      journalAgents(cfg),
		Templates:   cfg.Templates(),
		Logger:      log,
		ReadOnly:    cfg.ReadOnly,
	})
	if err != nil {
		return s.failf(exitFailed, "approvals journal %s: %v (set journal_path in the config)", cfg.JournalPath, err)
	}
	defer svc.Close()
	fleet := model.NewFleet(model.Options{ChainKeys: cfg.ChainKeys()})
	for _, a := range cfg.Agents {
		fleet.AddAgent(a.Name, a.URL)
	}
	views := inbox.Options{Sort: model.SortAge, JournalNote: s.journalNote, KeyMap: look.inboxKeys}
	m := ui.New(look.options(cfg, svc, ui.Options{
		Fleet:    fleet,
		Events:   mgr.Events(),
		Backend:  uiBackend{mgr},
		ReadOnly: cfg.ReadOnly,
		Bell:     cfg.Bell,
		Logger:   log,
		Inbox:    inbox.InboxFactory(svc, views),
		Journal:  inbox.JournalFactory(svc, views),
		Output:   st.Out,
	}))
	if started != nil {
		started(mgr)
	}
	stop := runWatchers(ctx, mgr)
	log.Info("dashboard started", logKeyAgents, len(cfg.Agents), logKeyPath, cfg.Path)

	opts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx)}
	if st.In != nil { // tests drive the program through a pipe
		opts = append(opts, tea.WithInput(st.In), tea.WithOutput(st.Out))
	}
	p := tea.NewProgram(m, opts...)
	_, err = p.Run()
	stop()
	return s.dashboardStatus(err)
}

// dashboardStatus maps the program's end to an exit status: quitting and
// SIGINT/SIGTERM are a normal end.
func (s *session) dashboardStatus(err error) int {
	if err == nil || errors.Is(err, tea.ErrProgramKilled) || errors.Is(err, tea.ErrInterrupted) {
		s.log.Info("dashboard stopped")
		return exitOK
	}
	s.log.Error("dashboard failed", logKeyErr, err)
	return s.failf(exitFailed, "%v", err)
}
