package cli

import (
	"context"
	"log/slog"

	"a2atop/a2aclient"
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
	// sshServed, when not nil, is told where serve's SSH listens and its
	// host key as a known_hosts line's key part (demo --hub prints them).
	sshServed func(addr, hostKey string)
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

// connectEach is connect for the commands that report per agent (check,
// tasks): an agent whose secrets cannot be read (an unset token_env, a
// missing token_file) is left out of the manager and its error kept by
// name, so that the others are still reached.
func (o *options) connectEach(urls []string) (*session, *a2aclient.Manager, map[string]error, int) {
	cfg, code := o.loadAgents(urls)
	if cfg == nil {
		return nil, nil, nil, code
	}
	s := o.open(cfg)
	var opts []a2aclient.AgentOptions
	failed := map[string]error{}
	for i, a := range cfg.Agents {
		ao, err := cfg.AgentOption(i)
		if err != nil {
			failed[a.Name] = err
			continue
		}
		opts = append(opts, ao)
	}
	return s, a2aclient.New(opts, a2aclient.Options{Logger: s.log, MaxStreams: cfg.MaxStreamsTotal}), failed, exitOK
}

// newManager resolves the config's secrets and builds the watchers. An
// error is a configuration problem (a missing token variable or file).
func newManager(cfg *config.Config, log *slog.Logger) (*a2aclient.Manager, error) {
	opts, err := cfg.AgentOptions()
	if err != nil {
		return nil, err
	}
	return a2aclient.New(opts, a2aclient.Options{Logger: log, MaxStreams: cfg.MaxStreamsTotal}), nil
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
