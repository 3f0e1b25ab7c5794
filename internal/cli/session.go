package cli

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/internal/config"
)

// session is a command's run against its agents: the options, the
// configuration and the log file, which open opens and Close closes. Not
// safe for concurrent use.
type session struct {
	*options
	cfg      *config.Config
	log      *slog.Logger
	closeLog func()
	// journalNote is what the dashboard's journal view says of the
	// journal (the demo's is a temporary file); "" says nothing.
	journalNote string
}

// open opens the log file cfg names (see openLog) for the command's run;
// the caller defers Close.
func (o *options) open(cfg *config.Config) *session {
	log, closeLog := openLog(cfg.LogPath, o.cmd, o.st)
	return &session{options: o, cfg: cfg, log: log, closeLog: closeLog}
}

// Close closes the log file.
func (s *session) Close() { s.closeLog() }

// manager resolves the configuration's secrets and builds the watchers.
// A missing token variable or file is a configuration problem: it says so
// and returns exitUsage.
func (s *session) manager() (*a2aclient.Manager, int) {
	mgr, err := newManager(s.cfg, s.log)
	if err != nil {
		return nil, s.failf(exitUsage, "config: %v", err)
	}
	return mgr, exitOK
}

// connect is how a command that watches agents starts: it loads the
// configuration with the agent URLs given, opens the log and builds the
// manager. A nil session comes with the exit status to return; otherwise
// the caller defers its Close.
func (o *options) connect(urls []string) (*session, *a2aclient.Manager, int) {
	cfg, code := o.loadAgents(urls)
	if cfg == nil {
		return nil, nil, code
	}
	s := o.open(cfg)
	mgr, code := s.manager()
	if mgr == nil {
		s.Close()
		return nil, nil, code
	}
	return s, mgr, exitOK
}

// newManager resolves the config's secrets and builds the watchers. An
// error is a configuration problem (a missing token variable or file).
func newManager(cfg *config.Config, log *slog.Logger) (*a2aclient.Manager, error) {
	opts, err := cfg.AgentOptions()
	if err != nil {
		return nil, err
	}
	return a2aclient.New(opts, a2aclient.Options{Logger: log}), nil
}

// runWatchers runs mgr's watchers until ctx ends or the returned stop is
// called. stop ends them and returns once every watcher has, discarding
// the events they send meanwhile so that none waits on a full channel.
func runWatchers(ctx context.Context, mgr *a2aclient.Manager) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { mgr.Run(ctx); close(done) }()
	return func() {
		cancel()
		for {
			select {
			case <-done:
				return
			case <-mgr.Events():
			}
		}
	}
}

// readOnlySender is the approvals.Sender of the dashboard: the Manager,
// except that a reply to an agent configured read_only = true fails with
// approvals.ErrReadOnly, so the inbox records "read-only" (refused,
// nothing sent) rather than an unknown outcome it would later try to
// reconcile. The Manager refuses such replies too, with its own error.
type readOnlySender struct {
	*a2aclient.Manager
	readOnly map[string]bool // agent name -> read_only
}

// newSender wraps mgr with the per-agent read_only settings of cfg.
func newSender(cfg *config.Config, mgr *a2aclient.Manager) approvals.Sender {
	ro := map[string]bool{}
	for _, a := range cfg.Agents {
		ro[a.Name] = cfg.ReadOnly || a.ReadOnly
	}
	return readOnlySender{Manager: mgr, readOnly: ro}
}

// Reply implements approvals.Sender.
func (s readOnlySender) Reply(ctx context.Context, agent string, msg *a2a.Message) (*a2a.Task, error) {
	if s.readOnly[agent] {
		return nil, fmt.Errorf("agent %q is configured read_only: %w", agent, approvals.ErrReadOnly)
	}
	return s.Manager.Reply(ctx, agent, msg)
}
