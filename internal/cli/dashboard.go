package cli

import (
	"context"
	"errors"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui"
	"a2atop/ui/inbox"
)

// FrameRate is how many frames a second the dashboard draws at most. The
// watchers' events reach it in batches at most every 30 ms
// (ui.DefaultBatchInterval), so more frames would show nothing sooner,
// while Bubble Tea's default of 60 costs an idle dashboard about half a
// percent of a core in its renderer alone (bench/fleet measures it).
const FrameRate = 30

// runDashboard implements `a2atop [--config FILE] [--read-only] [URL...]`
// and, attached to a team's hub, `a2atop --hub URL`.
func runDashboard(ctx context.Context, args []string, st Streams) int {
	o := newOptions("", st)
	o.configFlag()
	o.readOnlyFlag()
	o.hubFlag()
	urls, err := o.parse(args)
	if err != nil {
		return flagStatus(err)
	}
	if o.hub != "" {
		if len(urls) > 0 {
			return o.failf(exitUsage, "%v", errHubURLs)
		}
		return attachDashboard(ctx, o)
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
	if cfg.PushOn() && cfg.PushListen == "" {
		return s.failf(exitUsage, "config: %v", cfg.At("push_public_url", "is set but push_listen is not: the dashboard serves the agents' webhook on push_listen (a2atop serve uses its own address)"))
	}
	if recv := s.pushReceiver(mgr); recv != nil {
		stopPush, err := s.servePush(recv, nil)
		if err != nil {
			return s.failf(exitFailed, "%v", err)
		}
		defer stopPush()
	}
	if err := sharedElsewhere(cfg); err != nil {
		return s.failf(exitUsage, "config: %v", err)
	}
	svc, err := approvals.Open(approvals.Options{
		JournalPath: cfg.JournalPath,
		Sender:      mgr,
		Approver:    cfg.Approver,
		Agents:      journalAgents(cfg),
		Templates:   cfg.Templates(),
		Policies:    cfg.Policies(),
		Groups:      cfg.Groups(),
		Logger:      log,
		ReadOnly:    cfg.ReadOnly,
		Memory:      cfg.JournalMemory,
		Segment:     approvals.SegmentPolicy(cfg.JournalSegment),
	})
	if err != nil {
		return s.failf(exitFailed, "approvals journal %s: %v (set journal_path in the config)", cfg.JournalPath, err)
	}
	defer svc.Close()
	changes, stopWatch, ok := svc.Watch() // nil and false: read on the clock
	if ok {
		defer stopWatch()
	}
	fleet := model.NewFleet(cfg.FleetOptions())
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
		Compose:  look.compose(svc),

		// The root follows the journal the inbox and the journal view show,
		// when it is written.
		Approvals:      svc,
		JournalChanges: changes,
	}))
	if started != nil {
		started(mgr)
	}
	stop := runWatchers(ctx, mgr)
	log.Info("dashboard started", logKeyAgents, len(cfg.Agents), logKeyPath, cfg.Path)

	err = s.runUI(ctx, m)
	stop()
	return s.dashboardStatus(err)
}

// runUI runs the terminal UI until the user quits or ctx ends.
//
// ctx (SignalContext) is the one way a signal ends the UI: Bubble Tea's
// own handler is off. Next to ours it raced for SIGINT and SIGTERM, and
// when ctx won, its goroutine blocked for ever sending the quit to an
// event loop that had ended, while Run waited for that goroutine: the
// dashboard stayed up at idle until SIGKILL (bubbletea v1.3.10,
// handleSignals; upstream pull request #1806).
func (s *session) runUI(ctx context.Context, m *ui.Model) error { return s.runProgram(ctx, m) }

// runProgram runs m as the dashboard runs (the alternate screen, the
// mouse, ctx the one way a signal ends it) until it quits or ctx ends.
//
// ctx's end quits the program as q does, and kills it only if it has not
// ended quitKill later. A program killed (tea.WithContext) closes its
// input while its read loop still reads it (bubbletea v1.3.10,
// Program.shutdown with kill: no wait for readLoop): a data race the race
// detector ended every signalled dashboard on (exit 66).
func (s *session) runProgram(ctx context.Context, m tea.Model) error {
	opts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithFPS(FrameRate), tea.WithoutSignalHandler()}
	if s.st.In != nil { // tests drive the program through a pipe
		opts = append(opts, tea.WithInput(s.st.In), tea.WithOutput(s.st.Out))
	}
	p := NewProgram(m, opts...) // the frame ticker stops while nothing changes (renderpace.go)
	var kill *time.Timer
	var mu sync.Mutex
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		kill = time.AfterFunc(quitKill, p.Kill)
		p.Quit()
	})
	_, err := p.Run()
	if !stop() {
		mu.Lock()
		if kill != nil {
			kill.Stop()
		}
		mu.Unlock()
	}
	return err
}

// quitKill is how long a program asked to quit by a signal has before it
// is killed.
const quitKill = 2 * time.Second

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
