package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	tea "github.com/charmbracelet/bubbletea"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/internal/config"
	"a2atop/model"
	"a2atop/ui"
	"a2atop/ui/inbox"
	"a2atop/ui/theme"
)

// runDashboard implements `a2atop [--config FILE] [--read-only] [URL...]`.
func runDashboard(ctx context.Context, args []string, st streams) int {
	fs := newFlags("a2atop", st)
	cfgPath := fs.String("config", "", "config `FILE` (default $A2ATOP_CONFIG, then ~/.config/a2atop/config.toml)")
	readOnly := fs.Bool("read-only", false, "hide every action that writes to an agent")
	fs.Usage = func() { fmt.Fprint(st.Err, usageText) }
	urls, err := parseArgs(fs, args)
	if err != nil {
		return flagStatus(err)
	}
	cfg, code := loadConfig(*cfgPath, urls, st)
	if cfg == nil {
		return code
	}
	if len(cfg.Agents) == 0 {
		fmt.Fprintln(st.Err, "a2atop: no agents to watch: pass agent base URLs (a2atop http://host:port), "+
			"configure [[agent]] tables (see config.example.toml), or try the demo: a2atop demo")
		return exitUsage
	}
	cfg.ReadOnly = cfg.ReadOnly || *readOnly
	return dashboard(ctx, cfg, "dashboard", st, nil)
}

// dashboard watches cfg's agents and runs the terminal UI on them until
// the user quits or ctx ends. Nothing is printed once the UI runs: logs go
// to cfg.LogPath.
// started, when not nil, is called with the manager before it runs.
func dashboard(ctx context.Context, cfg *config.Config, cmd string, st streams, started func(*a2aclient.Manager)) int {
	log, closeLog := openLog(cfg.LogPath, cmd, st)
	defer closeLog()
	mgr, err := newManager(cfg, log)
	if err != nil {
		fmt.Fprintf(st.Err, "a2atop: config: %v\n", err)
		return exitUsage
	}
	mode, err := theme.ParseMode(cfg.Theme)
	if err != nil {
		fmt.Fprintf(st.Err, "a2atop: config: %v\n", err)
		return exitUsage
	}
	svc, err := approvals.Open(approvals.Options{
		JournalPath: cfg.JournalPath,
		Sender:      newSender(cfg, mgr),
		Approver:    cfg.Approver,
		Templates:   cfg.Templates(),
		Logger:      log,
		ReadOnly:    cfg.ReadOnly,
	})
	if err != nil {
		fmt.Fprintf(st.Err, "a2atop: approvals journal %s: %v (set journal_path in the config)\n", cfg.JournalPath, err)
		return exitFailed
	}
	defer svc.Close()
	fleet := model.NewFleet(model.Options{ChainKeys: cfg.ChainKeys()})
	for _, a := range cfg.Agents {
		fleet.AddAgent(a.Name, a.URL)
	}
	views := inbox.Options{Sort: model.SortAge}
	m := ui.New(ui.Options{
		Fleet:    fleet,
		Events:   mgr.Events(),
		Backend:  mgr,
		ReadOnly: cfg.ReadOnly,
		Bell:     cfg.Bell,
		Theme:    theme.New(theme.Options{Mode: mode}),
		Logger:   log,
		Inbox:    inbox.InboxFactory(svc, views),
		Journal:  inbox.JournalFactory(svc, views),
		Output:   st.Out,
	})
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	if started != nil {
		started(mgr)
	}
	go func() { mgr.Run(runCtx); close(done) }()
	log.Info("dashboard started", logKeyAgents, len(cfg.Agents), logKeyPath, cfg.Path)

	opts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(runCtx)}
	if st.In != nil { // tests drive the program through a pipe
		opts = append(opts, tea.WithInput(st.In), tea.WithOutput(st.Out))
	}
	p := tea.NewProgram(m, opts...)
	_, err = p.Run()
	cancel()
	<-done
	return dashboardStatus(err, log, st)
}

// dashboardStatus maps the program's end to an exit status: quitting and
// SIGINT/SIGTERM are a normal end.
func dashboardStatus(err error, log *slog.Logger, st streams) int {
	if err == nil || errors.Is(err, tea.ErrProgramKilled) || errors.Is(err, tea.ErrInterrupted) {
		log.Info("dashboard stopped")
		return exitOK
	}
	log.Error("dashboard failed", logKeyErr, err)
	fmt.Fprintf(st.Err, "a2atop: %v\n", err)
	return exitFailed
}
