package demo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/log"
)

// Agent names, in the order Fleet.Agents lists them.
const (
	TestRunner   = "test-runner"
	CodeReviewer = "code-reviewer"
	Deployer     = "deployer"
	Planner      = "planner"
	LegacyIntake = "legacy-intake"
)

// Options configure Start. The zero value runs the fleet at a human pace
// with the planner client on and logs discarded.
type Options struct {
	// Pace is how often the planner client hands out a new piece of work.
	// 0 means the default, about every 4 s.
	Pace time.Duration
	// Logger receives the agents' and the planner client's logs. nil
	// discards them: once the TUI runs nothing may print.
	Logger *slog.Logger
	// NoPlanner starts the five agents without the planner client, for
	// tests and for `a2atop demo --agents-only` users who bring their own.
	NoPlanner bool
	// Timings sets how long the agents take; the zero value is the human
	// pace. Tests shorten it.
	Timings Timings
	// BasePort, when not 0, fixes the ports: the agents listen on
	// 127.0.0.1:BasePort, BasePort+1, ... in the order of Agents(), so a
	// fleet started again has the same URLs and a dashboard watching it
	// recovers. 0 lets the OS choose.
	BasePort int
	// OnTask, when set, is called (from the planner client's goroutine)
	// with every task the planner client creates. A dashboard uses it to
	// watch tasks of agents that cannot list them (legacy-intake speaks
	// A2A 0.3 JSON-RPC, which has no ListTasks).
	OnTask func(agent string, id a2a.TaskID)
	// Push makes the A2A 1.0 agents offer push notifications: they keep
	// the push configs a client registers and POST every update of the
	// task to its webhook (the SDK's sender, allowed to reach loopback).
	Push bool
}

// Timings set the simulated durations of the demo agents. A zero field
// takes its default.
type Timings struct {
	// Step is one unit of simulated work (default 1.5 s).
	Step time.Duration
	// LogEvery is the interval between the log chunks of a full-suite run
	// (default 2.5 s).
	LogEvery time.Duration
	// LogChunks is how many log chunks a full-suite run writes (default 30,
	// so a full suite streams for over a minute).
	LogChunks int
	// OutOfBand is how long a staging deploy with a change ticket waits
	// before the ticket approves it with no message (default 25 s).
	OutOfBand time.Duration
	// ApprovalExpiry is how long a staging deploy waits for a decision
	// before it fails (default 30 min).
	ApprovalExpiry time.Duration
	// CancelAfter is how long the planner client lets a full-suite run go
	// before it cancels it (default 6 s).
	CancelAfter time.Duration
	// Poll is how often the planner agent checks the deployer's task
	// (default 1 s).
	Poll time.Duration
}

func (t Timings) withDefaults() Timings {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.Step, 1500*time.Millisecond)
	def(&t.LogEvery, 2500*time.Millisecond)
	def(&t.OutOfBand, 25*time.Second)
	def(&t.ApprovalExpiry, 30*time.Minute)
	def(&t.CancelAfter, 6*time.Second)
	def(&t.Poll, time.Second)
	if t.LogChunks <= 0 {
		t.LogChunks = 30
	}
	return t
}

// DefaultPace is the planner client's pace when Options.Pace is 0.
const DefaultPace = 4 * time.Second

// Agent names one running demo agent.
type Agent struct {
	// Name is the agent's fleet name, e.g. "deployer".
	Name string
	// URL is the base URL serving /.well-known/agent-card.json.
	URL string
}

// Fleet is a running demo fleet. Its methods are safe for concurrent use.
type Fleet struct {
	log     *slog.Logger
	life    context.Context // ends on Close: waiting executors give up, the planner client stops
	stop    context.CancelFunc
	servers []*agentServer
	driver  *driver // nil with Options.NoPlanner
	client  sync.WaitGroup
	once    sync.Once
}

// Start runs all five agents on 127.0.0.1 ports chosen by the OS (or
// from o.BasePort) and,
// unless o.NoPlanner, the planner client. When ctx ends the fleet closes
// itself; Close may still be called.
func Start(ctx context.Context, o Options) (*Fleet, error) {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	life, stop := context.WithCancel(log.AttachLogger(context.WithoutCancel(ctx), logger))
	f := &Fleet{log: logger, life: life, stop: stop}
	e := &env{log: logger, t: o.Timings.withDefaults(), life: life, urls: map[string]string{}, push: o.Push}

	names := []string{TestRunner, CodeReviewer, Deployer, Planner, LegacyIntake}
	listeners := make([]net.Listener, len(names))
	if o.BasePort < 0 || o.BasePort > 65535-len(names)+1 {
		stop()
		return nil, fmt.Errorf("demo: base port %d is out of range (1-%d, or 0 to let the OS choose)", o.BasePort, 65535-len(names)+1)
	}
	for i, name := range names {
		addr := "127.0.0.1:0"
		if o.BasePort != 0 {
			addr = fmt.Sprintf("127.0.0.1:%d", o.BasePort+i)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			closeAll(listeners)
			stop()
			return nil, fmt.Errorf("demo agent %q: listen on %s: %w", name, addr, err)
		}
		listeners[i] = ln
		e.urls[name] = "http://" + ln.Addr().String()
	}
	builders := map[string]func(*env) http.Handler{
		TestRunner: newTestRunner, CodeReviewer: newCodeReviewer, Deployer: newDeployer,
		Planner: newPlannerAgent, LegacyIntake: newLegacyIntake,
	}
	for i, name := range names {
		s := &agentServer{name: name, addr: listeners[i].Addr().String(), url: e.urls[name],
			handler: builders[name](e), log: logger.With("agent", name)}
		s.serve(listeners[i])
		f.servers = append(f.servers, s)
	}
	if !o.NoPlanner {
		pace := o.Pace
		if pace <= 0 {
			pace = DefaultPace
		}
		f.driver = newDriver(e, pace)
		f.driver.onTask = o.OnTask
		f.client.Add(1)
		go func() { defer f.client.Done(); f.driver.run(life) }()
	}
	go func() {
		select {
		case <-ctx.Done():
			_ = f.Close()
		case <-life.Done():
		}
	}()
	return f, nil
}

func closeAll(ls []net.Listener) {
	for _, ln := range ls {
		if ln != nil {
			_ = ln.Close()
		}
	}
}

// Agents lists the five agents: test-runner, code-reviewer, deployer,
// planner, legacy-intake. URLs stay the same across StopAgent/StartAgent.
func (f *Fleet) Agents() []Agent {
	out := make([]Agent, 0, len(f.servers))
	for _, s := range f.servers {
		out = append(out, Agent{Name: s.name, URL: s.url})
	}
	return out
}

// Close stops the planner client and every agent. Executions waiting for a
// decision end FAILED. It is safe to call more than once.
func (f *Fleet) Close() error {
	var errs []error
	f.once.Do(func() {
		f.stop()
		f.client.Wait()
		for _, s := range f.servers {
			if err := s.halt(); err != nil {
				errs = append(errs, err)
			}
		}
	})
	return errors.Join(errs...)
}

// StopAgent takes one agent off the network (its port refuses connections,
// open streams break) while its tasks and executions live on, so a
// dashboard sees an outage. StartAgent brings it back on the same port.
func (f *Fleet) StopAgent(name string) error {
	s, err := f.server(name)
	if err != nil {
		return err
	}
	return s.halt()
}

// StartAgent serves a stopped agent again on the same port and URL. It is a
// no-op for an agent that is running.
func (f *Fleet) StartAgent(name string) error {
	s, err := f.server(name)
	if err != nil {
		return err
	}
	if f.life.Err() != nil {
		return fmt.Errorf("demo agent %q: the fleet is closed; call Start for a new one", name)
	}
	return s.resume()
}

func (f *Fleet) server(name string) (*agentServer, error) {
	for _, s := range f.servers {
		if s.name == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("demo agent %q: no such agent; the fleet has %s, %s, %s, %s and %s",
		name, TestRunner, CodeReviewer, Deployer, Planner, LegacyIntake)
}

// agentServer is one agent's HTTP server, stoppable and restartable on a
// fixed address.
type agentServer struct {
	name, addr, url string
	handler         http.Handler
	log             *slog.Logger

	mu  sync.Mutex
	srv *http.Server // nil while stopped
	ln  net.Listener // srv's listener, closed by halt itself
}

// serve starts serving on ln; the caller holds s.mu (or owns s alone).
func (s *agentServer) serve(ln net.Listener) {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return log.AttachLogger(context.Background(), s.log) },
	}
	s.srv, s.ln = srv, ln
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("demo agent stopped serving", "err", err)
		}
	}()
}

func (s *agentServer) halt() error {
	s.mu.Lock()
	srv, ln := s.srv, s.ln
	s.srv, s.ln = nil, nil
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	err := srv.Close()
	// srv.Close closes only the listeners Serve has registered, and Serve
	// runs on its own goroutine: close ours here, so the port is free
	// when halt returns (StartAgent, or a fleet started again with the
	// same BasePort, listens on it at once).
	if lerr := ln.Close(); lerr != nil && !errors.Is(lerr, net.ErrClosed) && err == nil {
		err = lerr
	}
	if err != nil {
		return fmt.Errorf("demo agent %q: close server: %w", s.name, err)
	}
	return nil
}

func (s *agentServer) resume() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return nil
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("demo agent %q: listen again on %s (is another process on the port?): %w", s.name, s.addr, err)
	}
	s.serve(ln)
	return nil
}
